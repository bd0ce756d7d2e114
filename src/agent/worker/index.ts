/** The worker's public names: the Worker, what it is given, and how a run ends. */
export { Worker } from './worker.js';
export type { ActionMode, WorkerOptions } from './options.js';
export type { WorkerOutcome } from './outcome.js';

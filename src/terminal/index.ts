/** The terminal part: the UIAdapter of the `golem` chat on a pair of streams. */
export { TerminalAdapter, type RunMessages, type TerminalAdapterOptions } from './terminal-adapter.js';
export { PROGRESS_MODES, type ProgressMode } from './worker-summary.js';
export type { PlanEdits, PlanTask } from './plan-view.js';

/**
 * The runs benchmark's child process (`bench/runs.bench.ts` forks it, with an IPC channel):
 * the holder of a run in a process of its own, on the parent's PostgreSQL schema. It claims a
 * run on the parent's session and tells the parent its id; pushes a worker start, which the
 * parent's follower reading it is the parent's start line; then pushes `count` text deltas
 * `gapMs` apart, each carrying in its text the time it was pushed, and ends the run.
 *
 * Both processes' clocks are `performance.timeOrigin + performance.now()`; the parent measures
 * how far apart they are (`clock` messages) and corrects for it.
 */
import { createWorkspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';

export interface HoldTask {
  url: string;
  schema: string;
  sessionId: string;
  count: number;
  gapMs: number;
}

/** What the child tells the parent: the run's id, its clock (answering `clock`), and that the run ended. */
export type ChildMessage = { type: 'claimed'; runId: string } | { type: 'clock'; at: number } | { type: 'done'; status: string };
/** What the parent tells the child: read your clock, or start pushing. */
export type ParentMessage = { type: 'clock' } | { type: 'go' };

/** A wall-clock time in milliseconds, finer than `Date.now()`. */
const now = (): number => performance.timeOrigin + performance.now();

const send = (message: ChildMessage) => new Promise<void>((resolve) => process.send?.(message, () => resolve()));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const task = JSON.parse(process.argv[2] ?? '{}') as HoldTask;
let go!: () => void;
const started = new Promise<void>((resolve) => (go = resolve));
process.on('message', (message: ParentMessage) => {
  if (message.type === 'clock') void send({ type: 'clock', at: now() });
  else go();
});

const ws = await createWorkspace({ store: postgresStore(task.url, { schema: task.schema }) });
try {
  const claim = await ws.runs.claim(task.sessionId);
  await send({ type: 'claimed', runId: claim.id });
  const worker = { id: task.sessionId, depth: 0, task: 'bench' };
  const { record } = await claim.run(async ({ log }) => {
    log.push({ type: 'event', event: { type: 'worker-start', worker, parent: null } });
    await started;
    for (let i = 0; i < task.count; i++) {
      log.push({ type: 'event', event: { type: 'text-delta', worker, text: `${now()} ` } });
      await sleep(task.gapMs);
    }
  }).done;
  await send({ type: 'done', status: record?.status ?? 'unknown' });
} finally {
  await ws.close();
  process.disconnect();
}

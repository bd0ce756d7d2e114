/**
 * The scale benchmark's child process (`bench/scale.bench.ts` forks it, with an IPC
 * channel): one measurement in a process of its own, so its heap holds nothing else.
 *
 * - `open`: opens a workspace (SQLite folder or PostgreSQL schema), then reads a cold
 *   session's transcript; reports the times and the heap after a full GC.
 * - `append`: opens a PostgreSQL workspace, makes a session of its own, says it is
 *   ready, and on the parent's start line appends to it in a loop until the window ends.
 */
import { createWorkspace, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';

/** Where a workspace is. */
export type Where = { store: 'sqlite'; dir: string } | { store: 'postgres'; url: string; schema: string };

export type ChildTask =
  | { task: 'open'; where: Where; cold?: { sessionId: string; turns: number } }
  | { task: 'append'; where: Extract<Where, { store: 'postgres' }>; seconds: number };

export interface OpenResult {
  type: 'open';
  openMs: number;
  /** `heapUsed` after a full GC, before opening and with the workspace open. */
  heapBefore: number;
  heapAfter: number;
  /** `sessions.get` + `transcript()` of the cold session, the first read after opening. */
  coldReadMs?: number;
}

export type AppendMessage = { type: 'ready' } | { type: 'appended'; count: number; seconds: number };
/** The parent's start line: `Date.now()` at which every child starts appending. */
export interface StartLine {
  type: 'go';
  at: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const send = (message: OpenResult | AppendMessage) => new Promise<void>((resolve) => process.send?.(message, () => resolve()));
const text = (i: number) => [{ type: 'text' as const, text: `append ${i}: ${'x'.repeat(100)}` }];

function open(where: Where): Promise<Workspace> {
  return where.store === 'sqlite' ? createWorkspace({ dir: where.dir }) : createWorkspace({ store: postgresStore(where.url, { schema: where.schema }) });
}

async function measureOpen(task: Extract<ChildTask, { task: 'open' }>): Promise<void> {
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = performance.now();
  const ws = await open(task.where);
  const openMs = performance.now() - start;
  gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  const result: OpenResult = { type: 'open', openMs, heapBefore, heapAfter };
  if (task.cold !== undefined) {
    const readStart = performance.now();
    const transcript = await ws.sessions.get(task.cold.sessionId)?.transcript();
    result.coldReadMs = performance.now() - readStart;
    if (transcript?.length !== task.cold.turns) throw new Error(`the cold session read ${transcript?.length} turns, not ${task.cold.turns}`);
  }
  await ws.close();
  await send(result);
}

async function appendLoop(task: Extract<ChildTask, { task: 'append' }>): Promise<void> {
  const ws = await open(task.where);
  const session = await ws.sessions.create({ label: `appender ${process.pid}` });
  for (let i = 0; i < 20; i++) await session.addTurn({ role: 'user', blocks: text(i) }); // warm up
  const go = new Promise<StartLine>((resolve) => process.once('message', (m: StartLine) => resolve(m)));
  await send({ type: 'ready' });
  const { at } = await go;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
  const start = performance.now();
  const end = start + task.seconds * 1000;
  let count = 0;
  while (performance.now() < end) {
    await session.addTurn({ role: 'user', blocks: text(count) });
    if (performance.now() <= end) count++;
  }
  await ws.close();
  await send({ type: 'appended', count, seconds: task.seconds });
}

const task = JSON.parse(process.argv[2] ?? '') as ChildTask;
await (task.task === 'open' ? measureOpen(task) : appendLoop(task));
process.disconnect?.();

/**
 * Golem against LangGraph.js (`npm run bench:peers`): one conversation growing by a user and an
 * assistant message per step, in Golem (SQLite and in memory) and in LangGraph (SqliteSaver and
 * MemorySaver), with step times, bytes per message, forks and loads at 100, 1,000, 2,000 and
 * 10,000 messages. One table, with the ratio LangGraph SqliteSaver / Golem SQLite.
 *
 * Flags: --max-seconds N (per system, default 180: a system still growing then stops at the size it
 * reached), --max-messages N (default 10,000), --max-rss-mb N (default 8,000: the in-memory systems
 * stop when the process grows past it).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createWorkspace, type Session, type Workspace } from '../src/index.js';
import { fmt, log, median, timeEach } from './lib.js';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} wants a positive number`);
  return value;
}
const MAX_SECONDS = flag('max-seconds', 180);
const MAX_MESSAGES = flag('max-messages', 10_000);
const MAX_RSS = flag('max-rss-mb', 8000) * 2 ** 20;
const SIZES = [100, 1000, 2000, 10_000].filter((n) => n <= MAX_MESSAGES);
const BACK = 1000; // the second fork point: this many messages before the latest
const WINDOW = 100; // step times: the steps that bring the conversation from size - WINDOW to size (50 steps)
const SAMPLES = 10; // forks and live loads per size
const REOPENS = 3; // loads after reopening, per size

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Retained memory after a full collection: heap plus external (MemorySaver keeps its checkpoints in Uint8Arrays). */
const retained = (): number => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'golem-peers-'));
  dirs.push(dir);
  return dir;
};
const fileBytes = (path: string): number =>
  ['', '-wal', '-shm'].reduce((sum, suffix) => {
    try {
      return sum + statSync(path + suffix).size;
    } catch {
      return sum;
    }
  }, 0);

// Realistic texts, about 200 characters each, all different.
const topics = [
  'the migration plan',
  'the failing test',
  'the quarterly report',
  'the API rate limits',
  'the onboarding flow',
  'the cache layer',
  'the invoice export',
  'the search ranking',
];
const userText = (step: number): string =>
  `Step ${step}: can you look at ${topics[step % topics.length]} again? I changed the config as you suggested, but the numbers still look off compared with last week. What would you check first, and why?`;
const assistantText = (step: number): string =>
  `Step ${step}: I would start with ${topics[(step + 3) % topics.length]}, since it feeds the numbers you see. Compare last week's inputs with today's, then rerun the job with logging on; a stale setting is the likeliest cause.`;

type Point = unknown;

/** One system under test: the same operations, each in its own words. */
interface System {
  readonly name: string;
  readonly kind: 'disk' | 'memory';
  /** One step: a user message and an assistant message. */
  step(step: number): Promise<void>;
  /** Bytes stored (disk systems); memory systems are measured by the runner. */
  storedBytes(): Promise<number>;
  /** The conversation's latest point, to fork from (not timed: an application has it at hand). */
  point(): Promise<Point>;
  /** A branch at `point`: the branch's head is that point. */
  fork(point: Point): Promise<void>;
  /** The full conversation, as messages; returns their count. */
  load(): Promise<number>;
  /** The same from a fresh open of the store (disk systems). */
  reopenLoad?(): Promise<number>;
  /** After the measures at a size: continue the main conversation. */
  resume?(): Promise<void>;
  /** Notes on the system's setup, checked at the end. */
  notes?(): string[];
  close(): Promise<void>;
}

// ---------- Golem ----------

async function golem(durable: boolean): Promise<System> {
  const dir = durable ? tempDir() : undefined;
  let ws: Workspace = dir ? await createWorkspace({ dir }) : await createWorkspace();
  let session: Session = await ws.sessions.create({ label: 'peers' });
  const sessionId = session.id;
  const reopen = async (): Promise<Session> => {
    ws = await createWorkspace({ dir: dir as string });
    const s = ws.sessions.get(sessionId);
    if (!s) throw new Error('the session is gone after reopening');
    return s;
  };
  return {
    name: durable ? 'Golem (SQLite)' : 'Golem (memory)',
    kind: durable ? 'disk' : 'memory',
    async step(step) {
      await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: userText(step) }] });
      await session.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: assistantText(step) }] });
    },
    storedBytes: async () => (await ws.summary()).bytesOnDisk,
    point: async () => session.head()?.id,
    async fork(point) {
      await ws.sessions.fork(sessionId, point as string);
    },
    load: async () => (await session.transcript()).length,
    ...(durable && {
      async reopenLoad() {
        await ws.close();
        session = await reopen();
        return (await session.transcript()).length;
      },
    }),
    close: () => ws.close(),
  };
}

// ---------- LangGraph ----------

function buildGraph(checkpointer: BaseCheckpointSaver) {
  let step = 0;
  const graph = new StateGraph(MessagesAnnotation)
    // No model: a fixed reply (the text varies with the step, like Golem's).
    .addNode('assistant', () => ({ messages: [new AIMessage(assistantText(step++))] }))
    .addEdge(START, 'assistant')
    .addEdge('assistant', END)
    .compile({ checkpointer });
  return { graph, setStep: (n: number) => void (step = n) };
}

async function langgraph(durable: boolean): Promise<System> {
  const path = durable ? join(tempDir(), 'langgraph.db') : '';
  const db = durable ? new Database(path) : undefined;
  const saver = db ? new SqliteSaver(db) : new MemorySaver();
  const { graph, setStep } = buildGraph(saver);
  const thread: RunnableConfig = { configurable: { thread_id: 'peers' } };
  let next: RunnableConfig = thread; // the config the next step runs from
  let head: RunnableConfig | undefined;
  const messages = (values: unknown): BaseMessage[] => (values as { messages: BaseMessage[] }).messages;
  return {
    name: durable ? 'LangGraph SqliteSaver' : 'LangGraph MemorySaver',
    kind: durable ? 'disk' : 'memory',
    async step(step) {
      setStep(step);
      await graph.invoke({ messages: [new HumanMessage(userText(step))] }, next);
      next = thread;
    },
    storedBytes: async () => fileBytes(path),
    async point() {
      // What a LangGraph user holds for a point of the conversation: its checkpoint's config.
      const tuple = await saver.getTuple(thread);
      if (!tuple) throw new Error('no checkpoint');
      head = tuple.config;
      return tuple.config;
    },
    async fork(point) {
      // Branching from a checkpoint: updateState on its config writes a new checkpoint whose parent it is.
      await graph.updateState(point as RunnableConfig, { messages: [] }, 'assistant');
    },
    load: async () => messages((await graph.getState(thread)).values).length,
    ...(durable && {
      async reopenLoad() {
        const fresh = new Database(path);
        try {
          const { graph: g } = buildGraph(new SqliteSaver(fresh));
          return messages((await g.getState(thread)).values).length;
        } finally {
          fresh.close();
        }
      },
    }),
    async resume() {
      // The forks are newer checkpoints of the same thread: the main line continues from its head.
      if (head) next = head;
    },
    notes() {
      if (!db) return [];
      const checkpoints = (db.prepare('SELECT count(*) AS n FROM checkpoints').get() as { n: number }).n;
      return [
        `SqliteSaver: PRAGMA synchronous = ${String(db.pragma('synchronous', { simple: true }))} (better-sqlite3's default; 1 = NORMAL, no fsync per commit in WAL mode), ${checkpoints.toLocaleString('en')} checkpoint rows at the end (forks included)`,
      ];
    },
    async close() {
      db?.close();
    },
  };
}

// ---------- The runner ----------

interface AtSize {
  step: number;
  bytes: number;
  forkLatest: number;
  forkBack?: number;
  load: number;
  reopenLoad?: number;
}
interface Figures {
  name: string;
  kind: 'disk' | 'memory';
  reached: number;
  seconds: number;
  stopped?: string;
  sizes: Map<number, AtSize>;
  notes: string[];
}

async function run(make: () => Promise<System>): Promise<Figures> {
  // Warm-up on a throwaway conversation (the JIT is per process), so the first sizes are not compile times.
  const warm = await make();
  for (let i = 0; i < 60; i++) await warm.step(i);
  await warm.load();
  await warm.close();

  const base = retained();
  const sys = await make();
  const stepTimes: number[] = []; // by step number: the step that brings the conversation to 2 * (step + 1) messages
  const backPoints = new Map<number, Point>(); // size - BACK -> the point there
  const sizes = new Map<number, AtSize>();
  let messages = 0;
  let stopped: string | undefined;
  const start = performance.now();
  log(`${sys.name}: growing to ${MAX_MESSAGES.toLocaleString('en')} messages...`);
  for (let step = 0; messages < MAX_MESSAGES; step++) {
    const t = process.hrtime.bigint();
    await sys.step(step);
    stepTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
    messages += 2;
    if (SIZES.some((n) => n - BACK === messages)) backPoints.set(messages, await sys.point());
    if (SIZES.includes(messages)) {
      const bytes = sys.kind === 'disk' ? await sys.storedBytes() : retained() - base;
      const latest = await sys.point();
      const back = backPoints.get(messages - BACK);
      const loads = await timeEach(SAMPLES, async () => {
        const n = await sys.load();
        if (n !== messages) throw new Error(`${sys.name} loaded ${n} messages, not ${messages}`);
      });
      const reopen = sys.reopenLoad && (await timeEach(REOPENS, () => sys.reopenLoad?.()));
      const at: AtSize = {
        step: median(stepTimes.slice((messages - WINDOW) / 2, messages / 2)),
        bytes,
        load: median(loads),
        forkLatest: median(await timeEach(SAMPLES, () => sys.fork(latest))),
        ...(back !== undefined && { forkBack: median(await timeEach(SAMPLES, () => sys.fork(back))) }),
        ...(reopen && { reopenLoad: median(reopen) }),
      };
      sizes.set(messages, at);
      await sys.resume?.();
      log(`  ${messages.toLocaleString('en')} messages at ${((performance.now() - start) / 1000).toFixed(1)} s: step ${fmt(at.step)}, load ${fmt(at.load)}`);
    }
    const seconds = (performance.now() - start) / 1000;
    if (messages % 100 === 0 && seconds > 10)
      log(`  ${messages.toLocaleString('en')} messages, ${seconds.toFixed(0)} s, last step ${fmt(stepTimes.at(-1) ?? 0)}`);
    if (seconds > MAX_SECONDS && messages < MAX_MESSAGES) {
      stopped = `time cap (${MAX_SECONDS} s)`;
      break;
    }
    if (sys.kind === 'memory' && process.memoryUsage().rss > MAX_RSS) {
      stopped = `memory cap (${Math.round(MAX_RSS / 2 ** 20)} MB RSS)`;
      break;
    }
  }
  const seconds = (performance.now() - start) / 1000;
  if (stopped) log(`  ${sys.name} stopped at ${messages.toLocaleString('en')} messages: ${stopped}`);
  const notes = sys.notes?.() ?? [];
  await sys.close();
  return { name: sys.name, kind: sys.kind, reached: messages, seconds, ...(stopped && { stopped }), sizes, notes };
}

// ---------- The table ----------

function table(results: Figures[]): void {
  const [golemSql, , lgSql] = results;
  const headers = ['measure', ...results.map((r) => r.name), 'ratio (LangGraph SqliteSaver / Golem SQLite)'];
  const rows: string[][] = [];
  const ratio = (a: number | undefined, b: number | undefined): string =>
    a === undefined || b === undefined || b === 0 ? '' : `${(a / b).toFixed(a / b < 10 ? 2 : 0)}×`;
  const row = (measure: string, size: number, get: (r: Figures) => number | undefined, show: (v: number, r: Figures) => string): void => {
    const values = results.map(get);
    if (values.every((v) => v === undefined)) return;
    const cell = (r: Figures, v: number | undefined): string => (v !== undefined ? show(v, r) : r.reached < size ? 'not reached' : 'n/a');
    // A ratio only between figures at the same size (the systems may stop at different sizes).
    rows.push([measure, ...results.map((r, i) => cell(r, values[i])), size === 0 ? '' : ratio(lgSql && get(lgSql), golemSql && get(golemSql))]);
  };
  const kb = (bytes: number): string => (bytes >= 10_000 ? `${(bytes / 1024).toFixed(0)} KB` : `${Math.round(bytes).toLocaleString('en')} B`);
  rows.push(['messages reached', ...results.map((r) => `${r.reached.toLocaleString('en')}${r.stopped ? ` (${r.stopped})` : ''}`), '']);
  row(
    'time to grow there (measures included)',
    0,
    (r) => r.seconds * 1000,
    (v) => `${(v / 1000).toFixed(1)} s`,
  );
  for (const n of SIZES) {
    const at = (r: Figures) => r.sizes.get(n);
    const size = n.toLocaleString('en');
    row(`step (user + assistant) at ${size} messages`, n, (r) => at(r)?.step, fmt);
    row(
      `bytes per message at ${size}`,
      n,
      (r) => (at(r) ? (at(r) as AtSize).bytes / n : undefined),
      (v, r) => `${kb(v)}${r.kind === 'memory' ? ' (heap)' : ''}`,
    );
    row(`fork at the latest point, ${size} messages`, n, (r) => at(r)?.forkLatest, fmt);
    row(`fork ${BACK.toLocaleString('en')} messages back, ${size} messages`, n, (r) => at(r)?.forkBack, fmt);
    row(`load the conversation, live, ${size} messages`, n, (r) => at(r)?.load, fmt);
    row(`load after reopening the store, ${size} messages`, n, (r) => at(r)?.reopenLoad, fmt);
  }
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(`\nGolem and LangGraph.js, one conversation growing by two messages a step (node ${process.version}, medians)\n`);
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
  console.log(`
- step: median of the ${WINDOW / 2} steps that bring the conversation to each size; Golem: two addTurn calls (SQLite: every commit fsynced); LangGraph: one graph.invoke (the user message in, the node's fixed reply out).
- bytes: disk systems, the database files (db + WAL + shm) over the messages; memory systems, heap + external retained after a full GC, over the messages ("heap").
- fork: median of ${SAMPLES}; Golem: ws.sessions.fork(id, turnId); LangGraph: graph.updateState(checkpointConfig, { messages: [] }, 'assistant'), a new checkpoint whose parent is that point. The point's id/config is fetched beforehand, untimed.
- load: median of ${SAMPLES} (live) and ${REOPENS} (reopened); Golem: session.transcript() (reopened: createWorkspace({ dir }) first); LangGraph: graph.getState(config) (reopened: a new connection, SqliteSaver and compiled graph first).
- time cap ${MAX_SECONDS} s per system (--max-seconds), memory cap ${Math.round(MAX_RSS / 2 ** 20)} MB RSS (--max-rss-mb) of ${Math.round(totalmem() / 2 ** 30)} GB.`);
  for (const r of results) for (const note of r.notes) console.log(`- ${note}`);
}

async function main(): Promise<void> {
  const wall = performance.now();
  const results: Figures[] = [];
  for (const make of [() => golem(true), () => golem(false), () => langgraph(true), () => langgraph(false)]) results.push(await run(make));
  table(results);
  console.log(`\nwall time ${((performance.now() - wall) / 1000).toFixed(0)} s`);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

await main();

/**
 * Load and concurrency (issue 9). Three promises, each checked on state read back:
 *
 * - 1,000 concurrent appends on one session from one process (memory, SQLite): one linear
 *   chain (no turn with two children, so no phantom branch), the head on the last, every
 *   append on the path, and a command log with gapless seqs in the chain's order.
 * - The same from four processes on one PostgreSQL workspace (test/fixtures/pg-racer.ts).
 * - `golem serve`'s server (test/fixtures/load-server.ts, with --expose-gc) under load from
 *   a second process on loopback (test/fixtures/ws-load.ts): 100 WebSocket clients that
 *   apply every STATE_DELTA, some of them coming and going, while the server patches a UI
 *   instance at a steady rate, clients submit its form and chatters send messages its
 *   scripted agent answers (with a `patch_ui_state` call of its own). Every client's final
 *   state must equal the server's, and every socket that left the state client 0 had at
 *   its version; delta latency and the server's heap (after gc: before, after one run,
 *   after a second) are reported. The same on PostgreSQL, with half the clients
 *   reconnecting every 100 ms (where a joining client used to get a snapshot that already
 *   held the delta it was about to receive; see src/serve/ui-stream.ts).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { createWorkspace, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import type { ReliabilityRow } from './lib.js';
import type { LoadServerReply, MemoryFigures } from '../test/fixtures/load-server.js';
import type { LoadClientReport, LoadConfig, LoadReply } from '../test/fixtures/ws-load.js';

const ROOT = join(import.meta.dirname, '..');
const FIXTURES = join(ROOT, 'test', 'fixtures');

export interface LoadOptions {
  scale: 'test' | 'full';
  /** A PostgreSQL server for the four-process race (skipped without one). */
  pgUrl?: string;
}

/** What one race of concurrent appends left on one session, read back from the store. */
export interface ChainFacts {
  store: 'memory' | 'sqlite' | 'postgres';
  /** Appends started, and acknowledged. */
  appends: number;
  acknowledged: number;
  /** Turns of the session read back. */
  turns: number;
  /** Turns with no parent (1 for one chain). */
  roots: number;
  /** The most children any turn has (1 for one chain: no phantom branch). */
  maxChildren: number;
  /** Turns on the head's path (all of them for one chain). */
  pathLength: number;
  /** The head is the turn appended last (highest seq) and has no child. */
  headIsLast: boolean;
  /** Appended texts missing from the path. */
  missing: number;
  /** The log's seqs run 1..n with no gap, as many as the workspace's last seq. */
  logGapless: boolean;
  /** The session's turn:add entries, in log order, are the path's turns in order, each at its own seq. */
  logInChainOrder: boolean;
  /** Adjacent turns on the path appended by different processes: how much the race interleaved (0 in one process). */
  writerChanges: number;
  /** Appends per second while the race ran. */
  perSecond: number;
  /** What went wrong, in words (empty when every fact held). */
  problems: string[];
}

/** What one server run under load left at the clients. */
export interface ServeLoadFacts {
  clients: number;
  /** Clients that connected while the run was going (a snapshot, then deltas), and came and went until its end. */
  lateClients: number;
  /** Sockets they opened in all: each one that left was checked against client 0's state at its version. */
  joins: number;
  /** Clients whose final state deep-equals the server's. */
  equal: number;
  /** STATE_DELTA events the server sent during the run. */
  deltas: number;
  /** Server-side patches, form submissions by clients, and chat runs (each a patch_ui_state call by the agent and a streamed answer). */
  serverPatches: number;
  actions: number;
  runs: number;
  latency: { p50: number; p99: number; max: number; samples: number };
  actionRoundTrip: { p50: number; p99: number };
  memory: MemoryFigures;
  problems: string[];
}

export interface LoadResults {
  rows: ReliabilityRow[];
  chains: ChainFacts[];
  serve: ServeLoadFacts[];
  /** The server's heap after gc: before the first run, after it, after the second. */
  memory: MemoryFigures[];
}

/** The load checks as rows of `npm run reliability`. */
export async function runLoad(options: LoadOptions): Promise<ReliabilityRow[]> {
  return (await runLoadChecks(options)).rows;
}

/**
 * The load checks with the facts behind each row (what test/load.test.ts asserts on). At
 * test scale the PostgreSQL race (waiting on its lock more than working) runs alongside
 * the rest, which only adds to the load; at full scale each check runs alone, so its
 * figures are its own.
 */
export async function runLoadChecks(options: LoadOptions): Promise<LoadResults> {
  const full = options.scale === 'full';
  const pgUrl = options.pgUrl;
  const pgRace = async () => (pgUrl === undefined ? [] : processRace(pgUrl, { processes: 4, each: 250, rounds: full ? 3 : 1 }));
  const alongside = full ? undefined : pgRace();
  alongside?.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile

  const memoryRace: ChainFacts[] = [];
  const sqliteRace: ChainFacts[] = [];
  for (let round = 0; round < (full ? 5 : 1); round++) memoryRace.push(await oneProcessRace('memory', 1_000));
  for (let round = 0; round < (full ? 5 : 1); round++) sqliteRace.push(await oneProcessRace('sqlite', 1_000));
  const postgresRace = full ? await pgRace() : [];

  const serveFacts = await serveLoad({ durationMs: full ? 45_000 : 2_500, runs: 2 });
  let pgServe: ServeLoadFacts[] = [];
  if (pgUrl !== undefined) {
    // On a shared store the index holds a command before its event goes out: clients joining mid-stream must still
    // end where the server is (they did not, before UIStream kept its snapshot to the events sent).
    const schema = `load_${randomBytes(6).toString('hex')}`;
    try {
      pgServe = (await serveLoad({ durationMs: full ? 20_000 : 2_500, runs: 1, lateClients: 50, reconnectMs: 100, postgres: { url: pgUrl, schema } })).runs;
    } finally {
      await dropSchema(pgUrl, schema);
    }
  }
  if (alongside !== undefined) postgresRace.push(...(await alongside));

  const rows = [
    chainRow('1,000 concurrent appends on one session, one process (memory)', memoryRace),
    chainRow('1,000 concurrent appends on one session, one process (SQLite)', sqliteRace),
    ...(pgUrl === undefined ? [] : [chainRow('1,000 appends on one session from 4 processes (PostgreSQL)', postgresRace)]),
    serveRow('100 WebSocket clients, patches + messages', serveFacts.runs, serveFacts.memory),
    ...(pgUrl === undefined ? [] : [serveRow('100 WebSocket clients, 50 coming and going mid-stream (PostgreSQL)', pgServe, [])]),
  ];
  return { rows, chains: [...memoryRace, ...sqliteRace, ...postgresRace], serve: [...serveFacts.runs, ...pgServe], memory: serveFacts.memory };
}

// --- concurrent appends ---

/** `count` appends at once (Promise.all) on a new session of a new workspace; read back (SQLite: reopened from disk). */
export async function oneProcessRace(store: 'memory' | 'sqlite', count: number): Promise<ChainFacts> {
  const dir = store === 'sqlite' ? mkdtempSync(join(tmpdir(), 'golem-load-')) : undefined;
  const open = () => createWorkspace({ env: {}, ...(dir !== undefined && { dir }) });
  let ws = await open();
  try {
    const session = await ws.sessions.create({ label: 'race' });
    const problems: string[] = [];
    const start = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: count }, (_, i) => session.addTurn({ role: 'user', blocks: [{ type: 'text', text: `p0 ${i}` }] })),
    );
    const seconds = (performance.now() - start) / 1000;
    for (const r of results) if (r.status === 'rejected') problems.push(`an append failed: ${String(r.reason)}`);
    if (dir !== undefined) {
      await ws.close();
      ws = await open();
    }
    const acknowledged = results.filter((r) => r.status === 'fulfilled').length;
    return await chainFacts(ws, session.id, { store, appends: count, acknowledged, names: ['p0'], each: count, perSecond: count / seconds, problems });
  } finally {
    await ws.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** `processes` processes append `each` turns at once to one session on a fresh PostgreSQL schema, `rounds` times (a new session each). */
export async function processRace(url: string, options: { processes: number; each: number; rounds: number }): Promise<ChainFacts[]> {
  const schema = `load_${randomBytes(6).toString('hex')}`;
  const open = () => createWorkspace({ env: {}, store: postgresStore(url, { schema }) });
  const facts: ChainFacts[] = [];
  try {
    const ws = await open();
    try {
      for (let round = 0; round < options.rounds; round++) {
        const session = await ws.sessions.create({ label: `race ${round}` });
        const problems: string[] = [];
        const names = Array.from({ length: options.processes }, (_, i) => `p${i}`);
        const racers = names.map((name) => racer([url, schema, session.id, name, String(options.each), '--wait-for-go']));
        // Every process has its workspace open before any appends: the race is between all four.
        await Promise.all(racers.map((r) => r.ready));
        for (const r of racers) r.go();
        const outputs = await Promise.all(racers.map((r) => r.output));
        for (const out of outputs) {
          for (const failure of out.failures) problems.push(`${out.name}: ${failure}`);
          if (out.turns < options.each) problems.push(`${out.name} saw ${out.turns} turns on its path when it finished, fewer than its own ${options.each}`);
        }
        const acknowledged = outputs.reduce((n, out) => n + options.each - out.failures.length, 0);
        // Read back by a process that took no part: a workspace opened on the schema now.
        const reader = await open();
        try {
          const total = options.processes * options.each;
          const perSecond = total / (Math.max(...outputs.map((out) => out.ms)) / 1000);
          facts.push(await chainFacts(reader, session.id, { store: 'postgres', appends: total, acknowledged, names, each: options.each, perSecond, problems }));
        } finally {
          await reader.close();
        }
      }
    } finally {
      await ws.close();
    }
  } finally {
    await dropSchema(url, schema);
  }
  return facts;
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

interface RacerOutput {
  name: string;
  failures: string[];
  turns: number;
  ms: number;
}

/** test/fixtures/pg-racer.ts in a process of its own, held at its start line until `go`. */
function racer(args: string[]): { ready: Promise<void>; go(): void; output: Promise<RacerOutput> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(FIXTURES, 'pg-racer.ts'), ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let ready: () => void = () => undefined;
  const readyPromise = new Promise<void>((resolve) => (ready = resolve));
  child.stdout.on('data', (data: Buffer) => {
    stdout += data.toString();
    if (stdout.startsWith('ready\n')) ready();
  });
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  child.stdin.on('error', () => undefined); // a racer that died early: its exit says why
  const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  const output = new Promise<RacerOutput>((resolve, reject) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      ready(); // a racer that died before its start line must not hold the others
      if (code !== 0) return reject(new Error(`pg-racer ${args[3] ?? ''} exited with ${code}: ${stderr.slice(-2_000)}`));
      resolve(JSON.parse(stdout.slice('ready\n'.length)) as RacerOutput);
    });
  });
  output.catch(() => undefined); // awaited after the start line; a failure before it is reported there, not as unhandled
  return { ready: readyPromise, go: () => child.stdin.end('go\n'), output };
}

/** The facts of the session's turns and the command log, as `ws` reads them back. */
async function chainFacts(
  ws: Workspace,
  sessionId: string,
  race: { store: ChainFacts['store']; appends: number; acknowledged: number; names: string[]; each: number; perSecond: number; problems: string[] },
): Promise<ChainFacts> {
  await ws.manager.load([sessionId]); // a reader that did not append (a fresh process) holds none of its turns until then
  const view = ws.manager.workspace();
  const problems = [...race.problems];
  const turns = [...view.turns.values()].filter((t) => t.sessionId === sessionId);
  const key = (ref: { id: string; version: number }) => `${ref.id}@${ref.version}`;
  const children = new Map<string, number>();
  for (const t of turns) if (t.parent !== null) children.set(key(t.parent), (children.get(key(t.parent)) ?? 0) + 1);
  const roots = turns.filter((t) => t.parent === null).length;
  const maxChildren = Math.max(0, ...children.values());
  const head = view.sessions.get(sessionId)?.head ?? null;
  const last = turns.reduce<(typeof turns)[number] | undefined>((a, t) => (a === undefined || t.seq > a.seq ? t : a), undefined);
  const headIsLast = head !== null && last !== undefined && key(head) === key(last) && !children.has(key(head));
  const path = (await ws.sessions.get(sessionId)?.transcript()) ?? [];
  const onPath = new Set(path.map((t) => (t.blocks[0]?.type === 'text' ? t.blocks[0].text : '')));
  const writers = path.map((t) => (t.blocks[0]?.type === 'text' ? t.blocks[0].text.split(' ')[0] : ''));
  const writerChanges = writers.filter((w, i) => i > 0 && w !== writers[i - 1]).length;
  let missing = 0;
  for (const name of race.names) for (let i = 0; i < race.each; i++) if (!onPath.has(`${name} ${i}`)) missing++;

  const log = await ws.manager.store.commandLog();
  const logGapless = log.length === view.lastSeq && log.every((e, i) => e.seq === i + 1);
  const adds = log.filter((e) => e.type === 'turn:add' && (e.payload as { sessionId?: unknown }).sessionId === sessionId);
  const logInChainOrder =
    adds.length === path.length &&
    adds.every((e, i) => {
      const turn = path[i];
      return turn !== undefined && (e.payload as { turn?: { id?: unknown } }).turn?.id === turn.id && e.seq === turn.seq;
    });

  if (race.acknowledged !== race.appends) problems.push(`${race.appends - race.acknowledged} of ${race.appends} appends were not acknowledged`);
  if (turns.length !== race.appends) problems.push(`the session has ${turns.length} turns, not ${race.appends}`);
  if (roots !== 1) problems.push(`${roots} root turns`);
  if (maxChildren > 1) problems.push(`a turn has ${maxChildren} children: a phantom branch`);
  if (path.length !== race.appends) problems.push(`the head's path has ${path.length} turns, not ${race.appends}: heads were lost`);
  if (!headIsLast) problems.push('the head is not the turn appended last');
  if (missing > 0) problems.push(`${missing} appended turns are not on the path`);
  if (!logGapless) problems.push(`the command log is not seqs 1..${view.lastSeq} without a gap`);
  if (!logInChainOrder) problems.push("the log's turn:add entries are not the chain's turns in order");
  return {
    store: race.store,
    appends: race.appends,
    acknowledged: race.acknowledged,
    turns: turns.length,
    roots,
    maxChildren,
    pathLength: path.length,
    headIsLast,
    missing,
    logGapless,
    logInChainOrder,
    writerChanges,
    perSecond: race.perSecond,
    problems,
  };
}

function chainRow(check: string, facts: ChainFacts[]): ReliabilityRow {
  const rates = facts.map((f) => f.perSecond).filter((r) => Number.isFinite(r));
  const rate = rates.length === 0 ? '' : `, ${Math.round(rates.reduce((a, b) => a + b, 0) / rates.length).toLocaleString('en-US')} appends/s`;
  const chains = facts.filter((f) => f.problems.length === 0).length;
  const changes = facts.some((f) => f.writerChanges > 0) ? `, writers interleaved ${facts.map((f) => f.writerChanges).join(', ')} times along the chain` : '';
  return {
    area: 'load',
    check,
    runs: facts.reduce((n, f) => n + f.appends, 0),
    checked: facts.reduce((n, f) => n + Math.min(f.pathLength, f.appends), 0),
    failures: facts.reduce((n, f) => n + f.problems.length, 0),
    detail: `${chains} of ${facts.length} race${facts.length === 1 ? '' : 's'} one chain, head last, log gapless and in chain order${changes}${rate}${facts
      .flatMap((f) => f.problems)
      .slice(0, 3)
      .map((p) => `; ${p}`)
      .join('')}`,
  };
}

// --- the server under load ---

export interface ServeLoadOptions {
  durationMs: number;
  /** Runs one after another on one server (two: to see whether memory stays flat). */
  runs: number;
  /** Default 100, of which `lateClients` (default a tenth) connect while a run goes on and reconnect every `reconnectMs` (default 500). */
  clients?: number;
  lateClients?: number;
  reconnectMs?: number;
  /** Clients sending chat messages, one run at a time each (default 4). */
  chatters?: number;
  /** The server's workspace on PostgreSQL (default SQLite in a temp folder). */
  postgres?: { url: string; schema: string };
}

/** Runs of the server under load, with the server's heap after gc before them and after each. */
export async function serveLoad(options: ServeLoadOptions): Promise<{ runs: ServeLoadFacts[]; memory: MemoryFigures[] }> {
  const args = options.postgres === undefined ? [] : ['--postgres', options.postgres.url, options.postgres.schema];
  const server = new Child('the load server', join(FIXTURES, 'load-server.ts'), ['--expose-gc'], args);
  try {
    const ready = await server.next<Extract<LoadServerReply, { type: 'ready' }>>('ready', 60_000);
    const memory = [await memoryOf(server)];
    const runs: ServeLoadFacts[] = [];
    for (let i = 0; i < options.runs; i++) {
      const facts = await oneServeRun(server, ready, options);
      memory.push(await memoryOf(server));
      runs.push({ ...facts, memory: memory.at(-1) as MemoryFigures });
    }
    server.send({ type: 'close' });
    await server.exited(30_000);
    return { runs, memory };
  } finally {
    server.kill();
  }
}

async function memoryOf(server: Child): Promise<MemoryFigures> {
  server.send({ type: 'memory' });
  return (await server.next<Extract<LoadServerReply, { type: 'memory' }>>('memory', 30_000)).memory;
}

async function oneServeRun(
  server: Child,
  ready: Extract<LoadServerReply, { type: 'ready' }>,
  options: ServeLoadOptions,
): Promise<Omit<ServeLoadFacts, 'memory'>> {
  const clients = options.clients ?? 100;
  const config: LoadConfig = {
    socketUrl: ready.socketUrl,
    apiUrl: ready.url,
    token: ready.token,
    clients,
    lateClients: options.lateClients ?? Math.round(clients / 10),
    reconnectMs: options.reconnectMs ?? 500,
    actors: 10,
    actorPauseMs: 200,
    chatters: options.chatters ?? 4,
    chatPauseMs: 20,
    durationMs: options.durationMs,
  };
  const load = new Child('the load generator', join(FIXTURES, 'ws-load.ts'), [], [JSON.stringify(config)]);
  try {
    await load.next('connected', 60_000);
    const before = (await stateOf(server)).version;
    server.send({ type: 'start', durationMs: options.durationMs, intervalMs: 10 });
    load.send({ type: 'start' });
    const [ranServer, ranLoad] = await Promise.all([
      server.next<Extract<LoadServerReply, { type: 'ran' }>>('ran', options.durationMs + 60_000),
      load.next<Extract<LoadReply, { type: 'ran' }>>('ran', options.durationMs + 60_000),
    ]);
    const final = await stateOf(server);
    load.send({ type: 'finish', version: final.version });
    const result = await load.next<Extract<LoadReply, { type: 'result' }>>('result', 60_000);
    await load.exited(30_000);

    const problems = [...ranServer.problems, ...ranLoad.problems];
    let equal = 0;
    for (const [i, client] of result.clients.entries()) {
      const name = `client ${i}${client.late ? ' (joined late)' : ''}`;
      for (const p of client.problems) problems.push(`${name}: ${p}`);
      if (client.version !== final.version) problems.push(`${name} is at version ${client.version}, the server at ${final.version}`);
      if (isDeepStrictEqual(client.state, final.state)) equal++;
      else problems.push(`${name}'s final state differs from the server's`);
      if (!client.late && client.runsFinished !== ranLoad.runs) problems.push(`${name} saw ${client.runsFinished} of ${ranLoad.runs} runs finish`);
      if (!client.late && client.messagesEnded < ranLoad.runs)
        problems.push(`${name} saw ${client.messagesEnded} answers end, fewer than the ${ranLoad.runs} runs`);
    }
    // Each chatter's last answered message, as its agent's patch_ui_state call left it on the server.
    for (const [k, n] of ranLoad.lastChats.entries()) {
      const chat = final.state.instances[`chat-${k}`] as { state?: { params?: { n?: unknown } } } | undefined;
      if (n >= 0 && chat?.state?.params?.n !== n)
        problems.push(`chatter ${k}'s last message (${n}) is not on its instance: ${JSON.stringify(chat?.state?.params ?? null)}`);
    }
    if (result.clients.length !== clients) problems.push(`${result.clients.length} of ${clients} clients reported`);
    return {
      clients: result.clients.length,
      lateClients: result.clients.filter((c: LoadClientReport) => c.late).length,
      joins: ranLoad.joins,
      equal,
      deltas: final.version - before,
      serverPatches: ranServer.patches,
      actions: ranLoad.actions,
      runs: ranLoad.runs,
      latency: result.latency,
      actionRoundTrip: result.actionRoundTrip,
      problems,
    };
  } finally {
    load.kill();
  }
}

async function stateOf(server: Child): Promise<Extract<LoadServerReply, { type: 'state' }>> {
  server.send({ type: 'state' });
  return server.next<Extract<LoadServerReply, { type: 'state' }>>('state', 30_000);
}

function serveRow(check: string, runs: ServeLoadFacts[], memory: MemoryFigures[]): ReliabilityRow {
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
  const problems = runs.flatMap((r) => r.problems);
  const latency = runs.at(-1)?.latency;
  const rtt = runs.at(-1)?.actionRoundTrip;
  const traffic = runs.map((r) => `${r.serverPatches} server patches + ${r.actions} form submissions + ${r.runs} chat runs = ${r.deltas} deltas`).join('; ');
  return {
    area: 'load',
    check,
    runs: runs.reduce((n, r) => n + r.clients * r.deltas, 0),
    checked: runs.reduce((n, r) => n + r.clients, 0),
    failures: problems.length,
    detail: [
      `${runs.length} run${runs.length === 1 ? '' : 's'} (${traffic}), every client's final state = the server's in ${runs.map((r) => `${r.equal}/${r.clients}`).join(' and ')}`,
      `${runs.map((r) => r.joins).join(' and ')} sockets opened mid-run by ${runs.map((r) => r.lateClients).join(' and ')} clients coming and going, each checked when it left`,
      latency === undefined
        ? ''
        : `delta latency p50 ${ms(latency.p50)} ms, p99 ${ms(latency.p99)} ms (${latency.samples.toLocaleString('en-US')} deliveries${runs.length > 1 ? ', last run' : ''})`,
      rtt === undefined ? '' : `form submission round trip p50 ${ms(rtt.p50)} ms, p99 ${ms(rtt.p99)} ms`,
      memory.length === 0
        ? ''
        : `server heap after gc ${memory.map((m) => mb(m.heapUsed)).join(' → ')} MiB (before, after run 1, after run 2; RSS ${memory.map((m) => mb(m.rss)).join(' → ')} MiB); ` +
          `less the records it keeps (${memory.map((m) => m.turns).join(' → ')} turns, ${memory.map((m) => mb(m.indexBytes)).join(' → ')} MiB of JSON, ${memory.map((m) => mb(m.indexHeap)).join(' → ')} MiB on the heap): ` +
          `${memory.map((m) => mb(m.heapUsed - m.indexHeap)).join(' → ')} MiB`,
      ...problems.slice(0, 3),
    ]
      .filter((s) => s !== '')
      .join('; '),
  };
}

// --- child processes over IPC ---

/** A TypeScript child process (tsx) that talks over IPC: messages queue until asked for by type. */
class Child {
  readonly #process: ChildProcess;
  readonly #queue: { type: string }[] = [];
  #wake: (() => void) | undefined;
  #stderr = '';
  #exit: number | null | undefined;

  readonly #name: string;

  constructor(name: string, script: string, nodeFlags: string[] = [], args: string[] = []) {
    this.#name = name;
    this.#process = fork(script, args, { cwd: ROOT, execArgv: [...nodeFlags, '--import', 'tsx'], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.#process.stderr?.on('data', (data: Buffer) => {
      this.#stderr = (this.#stderr + data.toString()).slice(-4_000);
    });
    this.#process.on('message', (message) => {
      this.#queue.push(message as { type: string });
      this.#wake?.();
    });
    // 'close', not 'exit': by then every message the child sent has been delivered.
    this.#process.on('close', (code) => {
      this.#exit = code;
      this.#wake?.();
    });
  }

  send(message: object): void {
    this.#process.send(message);
  }

  /** The next message of `type` (earlier ones of other types stay queued). */
  async next<T extends { type: string }>(type: string, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = this.#queue.findIndex((m) => m.type === type);
      if (at !== -1) return this.#queue.splice(at, 1)[0] as T;
      if (this.#exit !== undefined) throw new Error(`${this.#name} exited (${this.#exit}) before sending ${type}: ${this.#stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.#name} sent no ${type} in ${timeoutMs} ms: ${this.#stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  async exited(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#exit === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    if (this.#exit === undefined) throw new Error(`${this.#name} did not exit in ${timeoutMs} ms`);
    if (this.#exit !== 0) throw new Error(`${this.#name} exited with ${this.#exit}: ${this.#stderr}`);
  }

  kill(): void {
    if (this.#exit === undefined) this.#process.kill('SIGKILL');
  }
}

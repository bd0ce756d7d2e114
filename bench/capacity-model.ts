/**
 * The capacity model of docs/scaling.md, from the costs bench/capacity.bench.ts measures: what
 * an active session does per minute (ACTIVITY), how busy a core is planned to be (BUSY), and
 * from those the cores and processes for SESSIONS active sessions, as Markdown.
 */
import { median } from './lib.js';

export const OPERATIONS = ['append', 'heard', 'heard-busy', 'cold-read', 'run-step', 'run', 'ui-patch'] as const;
export type Operation = (typeof OPERATIONS)[number];
export const STORES = ['sqlite', 'postgres'] as const;
export type Store = (typeof STORES)[number];

/** What one operation cost, in µs of CPU. */
export interface Cost {
  /** Node (on SQLite: SQLite's work and its fsyncs too). */
  node: number;
  /** PostgreSQL's backends serving the process (0 on SQLite). */
  backends: number;
  /** PostgreSQL's background processes (WAL writer, checkpointer, background writer), shared with the server's other users. */
  background: number;
  /** Commands (log entries) the operation wrote. */
  commands: number;
  /** How it was sampled. */
  detail: string;
  /** Beside an append: a bare single-row INSERT of the same JSON, the store's floor. */
  floor?: { node: number; backends: number; background: number };
}

/** What one concurrently active session does per minute. Change these and re-run to size another workload. */
export const ACTIVITY = {
  /** A user message every 30 s; each starts a run, which writes it as its input. */
  messagesPerMinute: 2,
  /** Each message starts a run of this many model calls: a tool call each (its result kept), the last one the answer; events kept. */
  stepsPerRun: 4,
  /** Each run ends with this many UI patches. */
  uiPatchesPerRun: 1,
  /** The session is read cold (1,000 turns, by a process that does not hold it) once every 10 minutes. */
  coldReadsPerMinute: 0.1,
};

/** The share of a core planned to be busy: the rest is headroom (LangGraph's autoscaling targets 70 % CPU). */
export const BUSY = 0.7;
export const SESSIONS = [1_000, 10_000, 100_000];
const LANGGRAPH = 'https://docs.langchain.com/langsmith/agent-server-scale';

/** Operations per minute of one active session: the message's append and the run's steps are in the run's cost, measured whole. */
const perMinute: Record<Operation, number> = {
  append: 0,
  heard: 0,
  'heard-busy': 0,
  'run-step': 0,
  run: ACTIVITY.messagesPerMinute,
  'ui-patch': ACTIVITY.messagesPerMinute * ACTIVITY.uiPatchesPerRun,
  'cold-read': ACTIVITY.coldReadsPerMinute,
};

const LABEL: Record<Operation, string> = {
  append: 'append (130-character text turn)',
  heard: "another process's append, heard by an idle process holding other sessions",
  'heard-busy': 'the same, heard by a process busy appending to its own session',
  'cold-read': 'cold read (1,000-turn session)',
  'run-step': 'run step (a model call of a 101-call run)',
  run: `run of ${ACTIVITY.stepsPerRun} model calls, whole`,
  'ui-patch': 'UI patch (a value and a block)',
};

const n = (x: number, digits = 0) => x.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const us = (x: number) => (x >= 1000 ? `${n(x / 1000, 1)} ms` : `${n(x, x < 10 ? 1 : 0)} µs`);
const processes = (x: number) => `${n(Math.ceil(x))} process${Math.ceil(x) === 1 ? '' : 'es'}`;
const cores = (x: number) => n(x, x < 10 ? 2 : x < 100 ? 1 : 0);
const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

/** The medians of the rounds, per store and operation; the rounds' Node figures beside. */
function medians(results: ReadonlyMap<string, readonly Cost[]>): Map<string, Cost & { rounds: number[] }> {
  const out = new Map<string, Cost & { rounds: number[] }>();
  for (const [key, costs] of results) {
    const of = (pick: (c: Cost) => number) => median(costs.map(pick));
    const floors = costs.flatMap((c) => (c.floor !== undefined ? [c.floor] : []));
    out.set(key, {
      node: of((c) => c.node),
      backends: of((c) => c.backends),
      background: of((c) => c.background),
      commands: of((c) => c.commands),
      detail: costs[0]?.detail ?? '',
      rounds: costs.map((c) => c.node),
      ...(floors.length > 0 && {
        floor: {
          node: median(floors.map((f) => f.node)),
          backends: median(floors.map((f) => f.backends)),
          background: median(floors.map((f) => f.background)),
        },
      }),
    });
  }
  return out;
}

/** The Markdown that docs/scaling.md carries between its markers. */
export function capacityReport(results: ReadonlyMap<string, readonly Cost[]>, meta: { rounds: number; machine: string }): string {
  const m = medians(results);
  const cost = (store: Store, operation: Operation) => m.get(`${store} ${operation}`);
  const out: string[] = [];
  out.push(`Measured by \`npm run bench:capacity\` on ${meta.machine}; medians of ${meta.rounds} rounds, each (store, operation) a process of its own.`);

  out.push('\n#### What one operation costs (CPU)\n');
  const measured: string[][] = [];
  for (const operation of OPERATIONS)
    for (const store of STORES) {
      const c = cost(store, operation);
      if (c === undefined) continue;
      const pg = store === 'postgres';
      const where = store === 'sqlite' ? 'SQLite' : 'PostgreSQL';
      const server = (x: { backends: number; background: number }) => (pg ? [us(x.backends), us(x.background)] : ['—', '—']);
      measured.push([
        LABEL[operation],
        where,
        us(c.node),
        ...server(c),
        n(c.commands, c.commands % 1 === 0 ? 0 : 1),
        `${c.rounds.map((r) => us(r)).join(' / ')}; ${c.detail}`,
      ]);
      if (c.floor !== undefined)
        measured.push([
          'floor: a bare single-row INSERT of the same JSON',
          where,
          us(c.floor.node),
          ...server(c.floor),
          '—',
          `the append is ${n(c.node / c.floor.node, 1)}× its Node CPU${pg ? `, ${n(c.backends / c.floor.backends, 1)}× its backend CPU` : ''}`,
        ]);
    }
  out.push(
    table(['operation', 'store', 'Node CPU', 'PostgreSQL backends', 'PostgreSQL background (shared)', 'commands', 'Node CPU each round; sampling'], measured),
  );

  const rate = (x: number | undefined) => (x === undefined || x <= 0 ? '—' : n(1e6 / x));
  const [sqliteAppend, pgAppend, pgStep] = [cost('sqlite', 'append'), cost('postgres', 'append'), cost('postgres', 'run-step')];
  out.push('\n#### Per core\n');
  out.push(
    table(
      ['', 'SQLite: Node (with SQLite)', 'PostgreSQL: Node', 'PostgreSQL: database (backends)'],
      [
        ['appends per second per core', rate(sqliteAppend?.node), rate(pgAppend?.node), rate(pgAppend?.backends)],
        ['run steps per second per core', rate(cost('sqlite', 'run-step')?.node), rate(pgStep?.node), rate(pgStep?.backends)],
        [
          `runs of ${ACTIVITY.stepsPerRun} calls per second per core`,
          rate(cost('sqlite', 'run')?.node),
          rate(cost('postgres', 'run')?.node),
          rate(cost('postgres', 'run')?.backends),
        ],
        [
          'UI patches per second per core',
          rate(cost('sqlite', 'ui-patch')?.node),
          rate(cost('postgres', 'ui-patch')?.node),
          rate(cost('postgres', 'ui-patch')?.backends),
        ],
      ],
    ),
  );

  // µs of CPU per second that one active session asks of a resource.
  const load = (store: Store, pick: (c: Cost) => number) =>
    OPERATIONS.reduce((sum, operation) => sum + (perMinute[operation] * pick(cost(store, operation) ?? zero)) / 60, 0);
  const commands = OPERATIONS.reduce((sum, operation) => sum + (perMinute[operation] * (cost('postgres', operation)?.commands ?? 0)) / 60, 0);
  out.push('\n#### Active sessions\n');
  out.push(
    `The activity model (bench/capacity-model.ts, \`ACTIVITY\`): an active session sends a message every ${n(60 / ACTIVITY.messagesPerMinute)} s; ` +
      `each message starts a run of ${ACTIVITY.stepsPerRun} model calls (${ACTIVITY.stepsPerRun - 1} tool calls, then the answer), which writes the message as its input, ` +
      `and is followed by ${ACTIVITY.uiPatchesPerRun} UI patch (the run's cost is measured whole, from its start to its release); ` +
      `the session is read cold once every ${n(1 / ACTIVITY.coldReadsPerMinute)} minutes. That is ${n(commands * 60, 1)} commands a minute. ` +
      `A core is planned at ${n(BUSY * 100)} % busy; a Node process uses one core.\n`,
  );
  // One workspace for all: each process also hears every other process's commands (heard-busy: processes planned this busy are mostly committing).
  const heard = cost('postgres', 'heard-busy');
  const rows = SESSIONS.map((sessions) => {
    const [pgNode, pgDb, sqliteNode] = [load('postgres', (c) => c.node), load('postgres', (c) => c.backends), load('sqlite', (c) => c.node)].map(
      (perSession) => sessions * perSession,
    ) as [number, number, number];
    const total = sessions * commands;
    let shared = ['—', '—'];
    if (heard !== undefined) {
      // P processes at BUSY: P · BUSY · 1e6 ≥ own work + total · (P − 1) · heard.node.
      const room = BUSY * 1e6 - total * heard.node;
      const p = room > 0 ? Math.max(1, Math.ceil((pgNode - total * heard.node) / room)) : undefined;
      shared =
        p === undefined
          ? ['none suffices: hearing the others fills a process', '—']
          : [`${n(p)}`, cores((pgDb + total * (p - 1) * heard.backends) / 1e6 / BUSY)];
    }
    const [node, db, lite] = [pgNode / 1e6 / BUSY, pgDb / 1e6 / BUSY, sqliteNode / 1e6 / BUSY];
    return [n(sessions), n(total), `${n(Math.ceil(node))} (${cores(node)} cores)`, cores(db), ...shared, `${n(Math.ceil(lite))} (${cores(lite)} cores)`];
  });
  out.push(
    table(
      [
        'active sessions',
        'commands/s',
        'PostgreSQL, a workspace per process: Node processes',
        'database cores',
        'PostgreSQL, one workspace for all: Node processes',
        'database cores',
        'SQLite, a workspace per process: processes',
      ],
      rows,
    ),
  );

  out.push('\n#### Against LangGraph\n');
  const at500 = (c: Cost | undefined) => {
    if (c === undefined) return '—';
    const [node, db] = [(500 * c.node) / 1e6 / BUSY, (500 * c.backends) / 1e6 / BUSY];
    return `${cores(node)} Node cores (${processes(node)}), ${cores(db)} database cores`;
  };
  out.push(
    table(
      ['500 writes/s', 'CPU'],
      [
        [
          `LangGraph Agent Server, low reads / high writes ([published](${LANGGRAPH}))`,
          '6 API servers + 10 queue workers (1 CPU each, limit 2): 16 to 32 cores; PostgreSQL 4 CPU (limit 8)',
        ],
        ['Golem on PostgreSQL, 500 appends/s', at500(pgAppend)],
        ['Golem on PostgreSQL, 500 run steps/s (a step is where LangGraph writes a checkpoint)', at500(pgStep)],
        [`Golem on PostgreSQL, 500 runs/s of ${ACTIVITY.stepsPerRun} calls (a write request that starts a run)`, at500(cost('postgres', 'run'))],
        ['Golem, sessions of the activity model at 500 commands/s', n(500 / commands)],
      ],
    ),
  );
  return out.join('\n');
}

const zero: Cost = { node: 0, backends: 0, background: 0, commands: 0, detail: '' };

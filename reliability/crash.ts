/**
 * The crash harness (issue 9, "Crashes lose nothing"). A child process
 * (test/fixtures/crash-child.ts) dispatches commands on one workspace as fast as it can;
 * this parent kills it with SIGKILL at a random moment (see KillPhase: while it starts or
 * opens the workspace, up to a few hundred ms into its stream of commands with up to four
 * in flight, or right as a commit lands), then opens the workspace afresh and checks it (crash-checks.ts):
 * every acknowledged command in the log with what it claimed, no command half applied,
 * `golem doctor` sound (invariants, reference counts, every counted blob's file, the
 * index equal to the store) once the orphan blob files a kill may leave are collected.
 * The first child creates the workspace (and is killed while it does, or soon after); each
 * next child carries on with the same, growing workspace. A follower workspace, open in
 * this process from the first kill on, must catch up to the same records.
 *
 * The child is bundled once with esbuild (a node process then starts in a third of the
 * time `--import tsx` takes); GOLEM_CRASH_CHILD=tsx runs it through tsx instead.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { watch } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Esbuild from 'esbuild';
import { createWorkspace, type Workspace, type WorkspaceView } from '../src/index.js';
import { CrashChecker, type Ack } from './crash-checks.js';
import type { ReliabilityRow } from './lib.js';

export interface CrashOptions {
  store: 'sqlite' | 'postgres';
  /** How many children to kill. */
  kills: number;
  /** The PostgreSQL server (default GOLEM_TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test); a fresh schema is made and dropped. */
  pgUrl?: string;
  /** Called after each kill is checked, with the number checked so far. */
  onProgress?: (n: number) => void;
}

/**
 * When a child is killed: while it creates the workspace (the first kill of a run), while node starts, while it
 * opens the workspace, at a random moment while it dispatches, the moment one of its first acknowledgements is read
 * (the next command is then often mid-commit), or the moment the store shows one of its commits (SQLite: its
 * write-ahead log written; PostgreSQL: the commit's notification), often before the child has finished the command.
 */
export type KillPhase = 'create' | 'startup' | 'open' | 'stream' | 'ack' | 'commit';

/** Everything one run found; `runCrash` sums it up as a row. */
export interface CrashReport {
  store: 'sqlite' | 'postgres';
  kills: number;
  /** Acknowledged commands looked up in the log afterwards, with their claims. */
  checked: number;
  /** How many checks failed in all. */
  failureCount: number;
  /** The first failures, for debugging (each names its kill and the child's seed). */
  failures: string[];
  orphansCollected: number;
  /** Blob writes kills cut short (`.tmp-*` files), collected by doctor's repair. */
  partialWritesCollected: number;
  /** Temporary blob files still there at the end (the repair missed them: a failure). */
  tempFilesLeft: number;
  /** Commands the children committed in all, and those committed but never acknowledged (in flight at the kill). */
  committed: number;
  inFlight: number;
  /** Kills after which the child had acknowledged something; kills that caught a command committed but unacknowledged. */
  killsAfterAcks: number;
  killsWithInFlight: number;
  /** Kills per phase, and of those the kills that caught a command in flight. */
  phases: Record<KillPhase, number>;
  inFlightByPhase: Record<KillPhase, number>;
  /** Medians, in ms: a child's life (told to go, or spawned, to killed), its start-up (spawn to its code loaded), its opening of the workspace. */
  medianLifeMs: number;
  medianLoadMs: number;
  medianOpenMs: number;
  /** How the child was started. */
  launcher: 'bundle' | 'tsx';
  elapsedMs: number;
}

const CHILD_ACTOR = 'crash-child';
const KEEP_FAILURES = 50;
/** A stream kill lands this long at most after the first acknowledgement. */
const STREAM_MS = 400;
/** A 'create' kill lands this long at most after the child starts creating the workspace. */
const CREATE_MS = 500;
/** An 'ack' kill lands on one of the first this many acknowledgements. */
const ACK_KILL_MAX = 20;
/** A child that makes no progress this long is killed and counted as a failure. */
const STUCK_MS = 30_000;

/** Runs the harness and returns its row for `npm run reliability`. Failures are counted in the row; the first are in its detail. */
export async function runCrash(options: CrashOptions): Promise<ReliabilityRow[]> {
  return [crashRow(await crashRun(options))];
}

/** A run's report as a row of the reliability table. */
export function crashRow(r: CrashReport): ReliabilityRow {
  const name = r.store === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const detail = [
    `${r.orphansCollected} orphan blob ${r.store === 'sqlite' ? 'files' : 'rows'} collected`,
    ...(r.store === 'sqlite' ? [`${r.partialWritesCollected} partial blob writes collected`] : []),
    ...(r.tempFilesLeft > 0 ? [`${r.tempFilesLeft} temporary blob files left`] : []),
    `median child life ${Math.round(r.medianLifeMs)} ms (started ahead in ${Math.round(r.medianLoadMs)} ms, ${r.launcher}; opening ${Math.round(r.medianOpenMs)} ms)`,
    `${r.committed} commands committed, ${r.inFlight} of them in flight at ${r.killsWithInFlight} kills`,
    `kills while creating/starting/opening/dispatching/on an acknowledgement/on a commit ${r.phases.create}/${r.phases.startup}/${r.phases.open}/${r.phases.stream}/${r.phases.ack}/${r.phases.commit}`,
    ...(r.failureCount > 0 ? [`first failures: ${r.failures.slice(0, 3).join(' | ')}`] : []),
  ].join(', ');
  return { area: 'crash', check: `SIGKILL during dispatch (${name})`, runs: r.kills, checked: r.checked, failures: r.failureCount, detail };
}

/** Runs the harness: `kills` children, each killed and checked after. */
export async function crashRun(options: CrashOptions): Promise<CrashReport> {
  const began = performance.now();
  const launcher = await childLauncher();
  const target = await prepare(options);
  const checker = new CrashChecker(CHILD_ACTOR);
  const report: CrashReport = {
    store: options.store,
    kills: 0,
    checked: 0,
    failureCount: 0,
    failures: [],
    orphansCollected: 0,
    partialWritesCollected: 0,
    tempFilesLeft: 0,
    committed: 0,
    inFlight: 0,
    killsAfterAcks: 0,
    killsWithInFlight: 0,
    phases: { create: 0, startup: 0, open: 0, stream: 0, ack: 0, commit: 0 },
    inFlightByPhase: { create: 0, startup: 0, open: 0, stream: 0, ack: 0, commit: 0 },
    medianLifeMs: 0,
    medianLoadMs: 0,
    medianOpenMs: 0,
    launcher: launcher.how,
    elapsedMs: 0,
  };
  const failed = (messages: readonly string[]) => {
    report.failureCount += messages.length;
    report.failures.push(...messages.slice(0, Math.max(0, KEEP_FAILURES - report.failures.length)));
  };
  const lives: number[] = [];
  const loads: number[] = [];
  const opens: number[] = [];
  let follower: Workspace | undefined;
  let next: { label: string; child: Child } | undefined;
  let unsubscribe: (() => void) | undefined;
  try {
    let current: Child | undefined;
    const nextChild = (phase: KillPhase): { label: string; child: Child } => {
      const seed = randomBytes(4).readUInt32LE(0);
      const concurrency = Math.random() < 0.25 ? 1 : Math.random() < 0.33 ? 2 : 4;
      const env = { GOLEM_CRASH_SEED: String(seed), GOLEM_CRASH_CONCURRENCY: String(concurrency) };
      // A child to be killed while it starts is started then; the others load while the last kill is checked.
      return { label: `${phase}, seed ${seed}, ${concurrency} in flight`, child: startChild(launcher, target.argv, env, phase !== 'startup') };
    };
    const pickPhase = (): KillPhase => {
      const roll = Math.random();
      return roll < 0.1 ? 'startup' : roll < 0.2 ? 'open' : roll < 0.5 ? 'stream' : roll < 0.7 ? 'ack' : 'commit';
    };
    // The first child creates the workspace, and is killed while it does (or soon after).
    let phase: KillPhase = 'create';
    next = nextChild(phase);
    for (let n = 1; n <= options.kills; n++) {
      const { child, label: about } = next ?? nextChild(phase);
      next = undefined;
      const label = `kill ${n} (${about})`;
      // A child to be killed while it starts is not waited for (the kill's clock runs from its spawn).
      if (phase !== 'startup') await child.loaded;
      current = child;
      const running = child.run(phase, { loadMs: median(loads) || 500, openMs: median(opens) || 30 });
      const thisPhase = phase;
      // The next child loads its code while this one runs and is checked. The last few kills of a run in which none has yet
      // caught a command committed but not acknowledged are aimed at one (a 'commit' kill), so every run covers that case.
      phase = n >= options.kills - 5 && report.killsWithInFlight === 0 ? 'commit' : pickPhase();
      if (n < options.kills && phase !== 'startup') next = nextChild(phase);
      const run = await running;
      report.kills++;
      report.phases[thisPhase]++;
      lives.push(run.lifeMs);
      if (run.loadMs !== undefined) loads.push(run.loadMs);
      if (run.openMs !== undefined) opens.push(run.openMs);
      if (run.acks.length > 0) report.killsAfterAcks++;
      if (run.signal !== 'SIGKILL')
        failed([`${label}: the child ended by itself (exit ${String(run.code)}, signal ${String(run.signal)}): ${run.stderr.slice(-2000)}`]);
      if (run.stuck) failed([`${label}: the child made no progress for ${STUCK_MS} ms`]);
      failed(run.errors.map((e) => `${label}: the child failed: ${e}`));

      if (follower === undefined) {
        // Open from the first kill on: it follows the children's commits; a 'commit' kill follows one of them at once.
        follower = await target.open();
        unsubscribe = target.watchCommits(follower, () => current?.committed());
      }
      const ws = await target.open();
      try {
        const check = await checker.afterKill(ws, run.acks, label);
        report.checked += check.checked;
        report.orphansCollected += check.orphansCollected;
        report.partialWritesCollected += check.partialWritesCollected;
        report.committed += check.committed;
        report.inFlight += check.inFlight;
        if (check.inFlight > 0) {
          report.killsWithInFlight++;
          report.inFlightByPhase[thisPhase]++;
        }
        failed(check.failures);
        // The follower, open all along, caught up to what a fresh open reads.
        await follower.manager.refresh();
        failed(recordsDiff(follower.manager.workspace(), ws.manager.workspace()).map((d) => `${label}: FOLLOWER_DRIFT ${d}`));
      } finally {
        await ws.close();
      }
      options.onProgress?.(n);
    }
    const ws = await target.open();
    try {
      failed(await checker.finalCheck(ws));
    } finally {
      await ws.close();
    }
    report.tempFilesLeft = await target.tempFiles();
    if (report.tempFilesLeft > 0) failed([`${report.tempFilesLeft} temporary blob files left after the last repair`]);
  } finally {
    unsubscribe?.();
    next?.child.kill();
    await follower?.close();
    await target.dispose();
    await launcher.dispose();
  }
  report.medianLifeMs = median(lives);
  report.medianLoadMs = median(loads);
  report.medianOpenMs = median(opens);
  report.elapsedMs = performance.now() - began;
  return report;
}

interface Launcher {
  how: 'bundle' | 'tsx';
  command: string;
  args: string[];
  dispose(): Promise<void>;
}

/** The child as one bundled file (under node_modules/.cache, so better-sqlite3 and pg resolve), or through tsx. */
async function childLauncher(): Promise<Launcher> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const entry = join(root, 'test', 'fixtures', 'crash-child.ts');
  const tsx: Launcher = { how: 'tsx', command: process.execPath, args: ['--import', 'tsx', entry], dispose: async () => undefined };
  if (process.env.GOLEM_CRASH_CHILD === 'tsx') return tsx;
  let esbuild: typeof Esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return tsx;
  }
  const cache = join(root, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(cache, 'golem-crash-'));
  const outfile = join(dir, 'crash-child.mjs');
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3', 'pg', 'playwright-core'],
    // Bundled CommonJS modules call require: give the ES module one.
    banner: { js: "import { createRequire as __golemRequire } from 'node:module'; const require = __golemRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  return { how: 'bundle', command: process.execPath, args: [outfile], dispose: () => rm(dir, { recursive: true, force: true }) };
}

interface Target {
  /** The child's arguments: where the workspace is. */
  argv: string[];
  /** Opens the workspace (creating it the first time). */
  open(): Promise<Workspace>;
  /** Temporary blob files left behind. */
  tempFiles(): Promise<number>;
  /** Calls `listener` as commits land in the store (as near the moment as the store shows it); returns the unsubscribe. */
  watchCommits(ws: Workspace, listener: () => void): () => void;
  dispose(): Promise<void>;
}

async function prepare(options: CrashOptions): Promise<Target> {
  if (options.store === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'golem-crash-'));
    return {
      argv: ['sqlite', dir],
      open: () => createWorkspace({ dir, actor: 'crash-harness' }),
      tempFiles: async () => (await readdir(join(dir, 'blobs')).catch(() => [] as string[])).filter((name) => name.startsWith('.tmp-')).length,
      // A commit appends its frames to the write-ahead log (which stays while the follower holds the database open).
      watchCommits: (_ws, listener) => {
        const watcher = watch(join(dir, 'workspace.db-wal'), listener);
        return () => watcher.close();
      },
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const url = options.pgUrl ?? process.env.GOLEM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `crash_${randomBytes(6).toString('hex')}`;
  const env = { GOLEM_DATABASE_URL: url, GOLEM_DATABASE_SCHEMA: schema };
  return {
    argv: ['postgres', url, schema],
    open: () => createWorkspace({ env, actor: 'crash-harness' }),
    tempFiles: async () => 0,
    // Each commit notifies the listeners when (and only when) it lands.
    watchCommits: (ws, listener) => ws.manager.store.subscribe?.((seq) => void (Number.isNaN(seq) || listener())) ?? (() => undefined),
    dispose: async () => {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        // Large objects are not dropped with the schema: unlink the blobs' first.
        const blobs = await client.query(`SELECT to_regclass('"${schema}".blobs') AS t`);
        if ((blobs.rows[0] as { t: string | null } | undefined)?.t != null) await client.query(`SELECT lo_unlink(oid) FROM "${schema}".blobs`);
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

interface ChildRun {
  acks: Ack[];
  errors: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stuck: boolean;
  stderr: string;
  /** Spawn to its code loaded; opening the workspace to ready; told to go (or spawned) to its end. */
  loadMs?: number;
  openMs?: number;
  lifeMs: number;
}

interface Child {
  /** Resolves once the child's code is loaded (or it ended). */
  loaded: Promise<void>;
  /** Lets it open the workspace and dispatch, kills it in `phase` at a random moment, and resolves with all it wrote. */
  run(phase: KillPhase, typical: { loadMs: number; openMs: number }): Promise<ChildRun>;
  kill(): void;
  /** The store told of a commit (any process's: only the child writes meanwhile). */
  committed(): void;
}

/**
 * Starts a child. With `wait`, it loads its code and waits for `run` before it opens the workspace (so it can be
 * started while the last kill is checked); without, it goes on at once and `run` kills it while it starts.
 */
function startChild(launcher: Launcher, argv: readonly string[], env: Record<string, string>, wait: boolean): Child {
  const spawned = performance.now();
  const child = spawn(launcher.command, [...launcher.args, ...argv], {
    env: { ...process.env, ...env, GOLEM_CRASH_WAIT: wait ? '1' : '0' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const run: ChildRun = { acks: [], errors: [], code: null, signal: null, stuck: false, stderr: '', lifeMs: 0 };
  let phase: KillPhase | undefined;
  let typical = { loadMs: 0, openMs: 0 };
  let went = spawned;
  let openingAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let killAtAck = 0;
  let watchdog: NodeJS.Timeout | undefined;
  const kill = () => void child.kill('SIGKILL');
  const killIn = (ms: number) => (timer ??= setTimeout(kill, ms));
  let onLoaded = () => {};
  const loaded = new Promise<void>((resolve) => (onLoaded = resolve));
  const closed = new Promise<ChildRun>((resolve) => {
    child.on('error', (error) => {
      run.errors.push(`could not start: ${error.message}`);
      onLoaded();
      resolve(run);
    });
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      clearTimeout(timer);
      run.lifeMs = performance.now() - went;
      run.code = code;
      run.signal = signal;
      onLoaded();
      resolve(run);
    });
  });

  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    // A last line cut short by the kill was never written whole: it acknowledges nothing.
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let message: { kind?: unknown } & Record<string, unknown>;
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        run.errors.push(`an unreadable line: ${text.slice(0, 200)}`);
        continue;
      }
      const now = performance.now();
      if (message.kind === 'loaded') {
        run.loadMs = now - spawned;
        onLoaded();
      } else if (message.kind === 'opening') {
        openingAt = now;
        if (phase === 'open') killIn(Math.random() * typical.openMs);
        if (phase === 'create') killIn(Math.random() * CREATE_MS);
      } else if (message.kind === 'ready') {
        if (openingAt !== undefined) run.openMs = now - openingAt;
      } else if (message.kind === 'ack' && Array.isArray(message.ids)) {
        run.acks.push(message as unknown as Ack);
        if (run.acks.length === 1 && phase === 'stream') killIn(Math.random() * STREAM_MS);
        if (run.acks.length === killAtAck && phase === 'ack') kill();
      } else if (message.kind === 'error') {
        run.errors.push(`${String(message.code)} in op ${String(message.op)}: ${String(message.message)}`);
      }
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => void (run.stderr = (run.stderr + chunk).slice(-8000)));
  child.stdin.on('error', () => undefined); // the child may be gone before it reads

  let commits = 0;
  return {
    loaded,
    kill,
    committed() {
      if (phase === 'commit' && ++commits === killAtAck) kill();
    },
    run(killPhase, times) {
      phase = killPhase;
      typical = times;
      killAtAck = 1 + Math.floor(Math.random() * ACK_KILL_MAX);
      watchdog = setTimeout(() => {
        run.stuck = true;
        kill();
      }, STUCK_MS);
      if (killPhase === 'startup') killIn(Math.random() * (times.loadMs + times.openMs));
      if (wait) {
        went = performance.now();
        child.stdin.write('go\n');
      }
      return closed;
    },
  };
}

/** Records that differ between two indexes ("collection/key"), and their last seqs. */
function recordsDiff(a: WorkspaceView, b: WorkspaceView): string[] {
  const out: string[] = [];
  if (a.lastSeq !== b.lastSeq) out.push(`lastSeq ${a.lastSeq} against ${b.lastSeq}`);
  const left = new Map<string, string>();
  for (const r of a.records()) left.set(`${r.collection}/${r.key}`, JSON.stringify(r.value));
  for (const r of b.records()) {
    const id = `${r.collection}/${r.key}`;
    if (left.get(id) !== JSON.stringify(r.value)) out.push(id);
    left.delete(id);
  }
  out.push(...left.keys());
  return out;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

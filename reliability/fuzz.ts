/**
 * `npm run fuzz` (issue 9, "Hostile input"): property tests with fast-check at every
 * boundary where outside data comes in (commands, content blocks, `patch_ui_state` input,
 * model envelopes, environment updates, WebSocket messages), millions of cases in all.
 * Each target's promise: no crash, no unhandled rejection, no partial write, every
 * refusal a typed error. `runFuzz` runs them at a scale (`npm test` runs it small, in
 * test/fuzz.test.ts); as a script it prints the table and exits 1 on any failure.
 *
 *   npm run fuzz                          # about 2,000,000 cases
 *   npm run fuzz -- --cases 200000        # or FUZZ_CASES=200000
 *   npm run fuzz -- --seed 42 --only commands,ws-socket
 */
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { printRows, type ReliabilityRow } from './lib.js';
import { commandsTarget } from './fuzz-commands.js';
import { mcpServerTarget } from './fuzz-mcp.js';
import { Tally, type FuzzTarget } from './fuzz-kit.js';
import { regexTarget } from './fuzz-regex.js';
import { socketParseTarget, socketTarget, uiActionTarget } from './fuzz-socket.js';
import { contentBlocksTarget, environmentTarget, envelopesTarget, uiEngineTarget, uiWorkspaceTarget } from './fuzz-targets.js';

export { Tally, type FuzzTarget } from './fuzz-kit.js';

/** Every boundary, in the order they run (the pure ones first). */
export const FUZZ_TARGETS: readonly FuzzTarget[] = [
  contentBlocksTarget,
  envelopesTarget,
  uiEngineTarget,
  socketParseTarget,
  uiWorkspaceTarget,
  uiActionTarget,
  environmentTarget,
  commandsTarget,
  mcpServerTarget,
  socketTarget,
  regexTarget,
];

/** Cases in all at scale 1. */
export const casesAtScale1 = (targets: readonly FuzzTarget[] = FUZZ_TARGETS) => targets.reduce((sum, t) => sum + t.runs, 0);

export interface FuzzOptions {
  /** Each target runs `runs × scale` cases, rounded up. */
  scale: number;
  /** Default: every target. */
  targets?: readonly FuzzTarget[];
  /** fast-check's seed (default: a random one, printed in a failing row's detail). */
  seed?: number;
  /** Called with each row as its target finishes (the script prints progress). */
  onRow?: (row: ReliabilityRow, ms: number) => void;
}

/** Runs every target and returns one row per target. */
export async function runFuzz(options: FuzzOptions): Promise<ReliabilityRow[]> {
  const rows: ReliabilityRow[] = [];
  for (const target of options.targets ?? FUZZ_TARGETS) {
    const started = performance.now();
    const row = await runTarget(target, options.scale, options.seed ?? Date.now() ^ (Math.random() * 0x1_0000_0000));
    options.onRow?.(row, performance.now() - started);
    rows.push(row);
  }
  return rows;
}

const PROTOTYPES = [Object.prototype, Array.prototype];

async function runTarget(target: FuzzTarget, scale: number, seed: number): Promise<ReliabilityRow> {
  const tally = new Tally();
  // What escapes every check (a rejection nobody awaited, an exception thrown from a callback) is a failure too.
  let escaped = 0;
  let escapedFirst: string | undefined;
  const onEscape = (error: unknown) => {
    escaped++;
    escapedFirst ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  };
  process.on('unhandledRejection', onEscape);
  process.on('uncaughtException', onEscape);
  let harness: string | undefined;
  const prototypes = PROTOTYPES.map((p) => Object.getOwnPropertyNames(p).length);
  const numRuns = Math.max(1, Math.ceil(target.runs * scale));
  try {
    await target.setup?.();
    const details = await fc.check(target.property(tally), { numRuns, seed, endOnFailure: true });
    if (details.failed)
      harness = `the property itself failed: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`;
    // Let a rejection left behind by the last case surface before the listeners go.
    await new Promise((resolve) => setTimeout(resolve, 20));
  } catch (error) {
    harness = `the target could not run: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await target.teardown?.().catch((error: unknown) => (harness ??= `teardown failed: ${error instanceof Error ? error.message : String(error)}`));
    process.off('unhandledRejection', onEscape);
    process.off('uncaughtException', onEscape);
  }
  // Input that reaches Object.prototype (a "__proto__" key written through) changes every object after it.
  const polluted = PROTOTYPES.flatMap((p, i) => (Object.getOwnPropertyNames(p).length === prototypes[i] ? [] : [p === Object.prototype ? 'Object' : 'Array']));
  if (polluted.length > 0)
    harness ??= `${polluted.join(' and ')}.prototype were polluted: ${Object.getOwnPropertyNames(Object.prototype).slice(-5).join(', ')}`;
  const failures = tally.failures + escaped + (harness === undefined ? 0 : 1);
  const codes = [...tally.rejected.entries()].sort((a, b) => b[1] - a[1]);
  const refused = codes.reduce((sum, [, n]) => sum + n, 0);
  const shown = codes.slice(0, 6).map(([code, n]) => `${code}×${n.toLocaleString('en-US')}`);
  if (codes.length > 6) shown.push(`${codes.length - 6} more`);
  const detail = [
    `${tally.accepted.toLocaleString('en-US')} accepted; ${refused.toLocaleString('en-US')} rejected with typed codes${shown.length > 0 ? `: ${shown.join(', ')}` : ''}`,
    ...(tally.first === undefined ? [] : [`FIRST FAILURE: ${tally.first}`]),
    ...(escaped === 0 ? [] : [`${escaped} unhandled (first: ${escapedFirst})`]),
    ...(harness === undefined ? [] : [harness]),
    ...(failures === 0 ? [] : [`seed ${seed}`]),
  ].join('; ');
  return { area: 'fuzz', check: target.check, runs: numRuns, checked: tally.checked, failures, detail: detail.replace(/\|/g, '\\|').replace(/\n/g, ' ') };
}

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

async function main(): Promise<void> {
  const total = Number(argument('cases') ?? process.env.FUZZ_CASES ?? 2_000_000);
  const seedText = argument('seed') ?? process.env.FUZZ_SEED;
  const only = argument('only')?.split(',');
  const targets = only === undefined ? FUZZ_TARGETS : FUZZ_TARGETS.filter((t) => only.includes(t.name));
  if (!Number.isFinite(total) || total <= 0 || targets.length === 0) {
    console.error(`usage: npm run fuzz -- [--cases N] [--seed S] [--only ${FUZZ_TARGETS.map((t) => t.name).join(',')}]`);
    process.exit(2);
  }
  const scale = total / casesAtScale1(targets);
  const started = performance.now();
  const rows = await runFuzz({
    scale,
    targets,
    ...(seedText !== undefined && { seed: Number(seedText) }),
    onRow: (row, ms) => console.error(`${row.check}: ${row.runs.toLocaleString('en-US')} cases in ${(ms / 1000).toFixed(1)} s, ${row.failures} failures`),
  });
  const seconds = (performance.now() - started) / 1000;
  printRows(rows);
  const cases = rows.reduce((sum, r) => sum + r.runs, 0);
  const failures = rows.reduce((sum, r) => sum + r.failures, 0);
  console.log(`\n${cases.toLocaleString('en-US')} cases in ${seconds.toFixed(0)} s; ${failures} failures`);
  process.exit(failures === 0 ? 0 : 1);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();

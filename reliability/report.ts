/**
 * `npm run reliability`: runs every reliability check at full size and prints one table:
 * kills survived and acknowledged commands checked (SQLite and PostgreSQL), fuzz cases run
 * at every boundary, and the load held (dispatch races, 100 WebSocket clients). Exits 1
 * when any check failed.
 *
 *   npm run reliability                  # the full run (about half an hour on 2 cores)
 *   npm run reliability -- --quick       # a few minutes: fewer kills and cases, a shorter load
 *   npm run reliability -- --only crash,load
 *
 * PostgreSQL: GOLEM_TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test.
 */
import { runCrash } from './crash.js';
import { casesAtScale1, runFuzz } from './fuzz.js';
import { printRows, type ReliabilityRow } from './lib.js';
import { runLoad } from './load.js';

const quick = process.argv.includes('--quick');
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt === -1 ? undefined : new Set((process.argv[onlyAt + 1] ?? '').split(','));
const pgUrl = process.env.GOLEM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const kills = quick ? 30 : 200;
const fuzzCases = quick ? 200_000 : 2_000_000;

const steps: { area: string; run: () => Promise<ReliabilityRow[]> }[] = [
  { area: 'crash', run: () => runCrash({ store: 'sqlite', kills, onProgress: progress('SQLite kills', kills) }) },
  { area: 'crash', run: () => runCrash({ store: 'postgres', kills, pgUrl, onProgress: progress('PostgreSQL kills', kills) }) },
  {
    area: 'fuzz',
    run: () =>
      runFuzz({
        scale: fuzzCases / casesAtScale1(),
        onRow: (row, ms) => console.error(`fuzz ${row.check}: ${row.runs.toLocaleString('en-US')} cases, ${(ms / 1000).toFixed(0)} s`),
      }),
  },
  { area: 'load', run: () => runLoad({ scale: quick ? 'test' : 'full', pgUrl }) },
];

function progress(what: string, total: number): (n: number) => void {
  return (n) => {
    if (n % 25 === 0 || n === total) console.error(`${what}: ${n}/${total}`);
  };
}

const rows: ReliabilityRow[] = [];
const started = performance.now();
for (const step of steps) {
  if (only !== undefined && !only.has(step.area)) continue;
  const at = performance.now();
  try {
    rows.push(...(await step.run()));
  } catch (error) {
    rows.push({
      area: step.area,
      check: 'the check itself',
      runs: 0,
      checked: 0,
      failures: 1,
      detail: `could not run: ${error instanceof Error ? error.message : String(error)}`.replace(/\|/g, '\\|'),
    });
  }
  console.error(`${step.area}: ${((performance.now() - at) / 1000).toFixed(0)} s`);
}

console.log('');
printRows(rows);
const sum = (area: string, field: 'runs' | 'checked') => rows.filter((r) => r.area === area).reduce((n, r) => n + r[field], 0);
const failures = rows.reduce((n, r) => n + r.failures, 0);
console.log(
  `\n${sum('crash', 'runs').toLocaleString('en-US')} kills survived with ${sum('crash', 'checked').toLocaleString('en-US')} acknowledged commands checked; ` +
    `${sum('fuzz', 'runs').toLocaleString('en-US')} fuzz cases; ${failures} failures; ${((performance.now() - started) / 60_000).toFixed(1)} min.`,
);
process.exit(failures === 0 ? 0 : 1);

/** What the benchmarks share: medians, timing and the results table. */

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The milliseconds each of `samples` calls took. */
export async function timeEach(samples: number, fn: (i: number) => unknown): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}

/** The same for calls too fast to time one by one: the median of `samples` batches of `batch` calls, per call. */
export function timeBatched(samples: number, batch: number, fn: (i: number) => unknown): number {
  const times: number[] = [];
  for (let s = 0; s < samples; s++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn(s * batch + i);
    times.push(Number(process.hrtime.bigint() - start) / 1e6 / batch);
  }
  return median(times);
}

export const fmt = (ms: number): string =>
  ms < 0.001 ? `${(ms * 1e6).toFixed(0)} ns` : ms < 1 ? `${(ms * 1000).toFixed(ms < 0.01 ? 2 : 0)} µs` : `${ms.toFixed(2)} ms`;

export interface Row {
  measure: string;
  value: string;
  target: string;
  ok?: boolean;
}

/** Prints rows as a Markdown table with an ok column. */
export function printTable(
  title: string,
  rows: readonly Row[],
  notes: readonly string[] = [],
  headers: readonly [string, string, string] = ['measure', 'median', 'target'],
): void {
  const widths = [
    Math.max(headers[0].length, ...rows.map((r) => r.measure.length)),
    Math.max(headers[1].length, ...rows.map((r) => r.value.length)),
    Math.max(headers[2].length, ...rows.map((r) => r.target.length)),
  ];
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(`\n${title}\n`);
  for (const note of notes) console.log(`${note}\n`);
  console.log(line([...headers]) + ' ok |');
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|----|`);
  for (const r of rows) console.log(`${line([r.measure, r.value, r.target])} ${r.ok === undefined ? '  ' : r.ok ? '✓ ' : '✗ '} |`);
}

/** Progress, on stderr (the table goes to stdout). */
export const log = (text: string): void => void process.stderr.write(`${text}\n`);

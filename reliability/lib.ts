/**
 * What the reliability checks share: one row of `npm run reliability`'s table. Each check
 * (crash, fuzz, load, limits) is a module exporting an async function that runs it and
 * returns its rows; the same functions run, with smaller counts, inside `npm test`.
 */

export interface ReliabilityRow {
  /** 'crash', 'fuzz', 'load' or 'limits'. */
  area: string;
  /** What ran, in a few words: "SIGKILL during dispatch (SQLite)", "patch_ui_state input". */
  check: string;
  /** How many times it ran: kills, fuzz cases, clients × messages. */
  runs: number;
  /** How many things were checked after it: acknowledged commands, deltas, states compared. */
  checked: number;
  /** How many checks failed (lost commands, broken invariants, untyped errors): 0 when the promise held. */
  failures: number;
  /** The figures worth reading: p99 latency, memory before and after, orphan files collected. */
  detail: string;
}

/** Prints rows as a Markdown table. */
export function printRows(rows: ReliabilityRow[]): void {
  const header = ['area', 'check', 'runs', 'checked', 'failures', 'detail'];
  const cells = rows.map((r) => [r.area, r.check, r.runs.toLocaleString('en-US'), r.checked.toLocaleString('en-US'), String(r.failures), r.detail]);
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const row of cells) console.log(`| ${row.join(' | ')} |`);
}

/**
 * A line diff of two short texts (an MCP tool's input schema before and now), as the lines of
 * a unified diff without headers: `- ` taken away, `+ ` added, two spaces kept. Longest common
 * subsequence; past `MAX_LINES` a side, everything before is taken away and everything now added.
 */
const MAX_LINES = 2000;

export function lineDiff(before: string, now: string): string {
  const a = before.split('\n');
  const b = now.split('\n');
  if (a.length > MAX_LINES || b.length > MAX_LINES) return [...a.map((l) => `- ${l}`), ...b.map((l) => `+ ${l}`)].join('\n');
  // common[i][j]: the longest common subsequence of a[i..] and b[j..].
  const common = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push(`  ${a[i++]}`);
      j++;
    } else if (j < b.length && (i === a.length || common[i]![j + 1]! >= common[i + 1]![j]!)) lines.push(`+ ${b[j++]}`);
    else lines.push(`- ${a[i++]}`);
  }
  return lines.join('\n');
}

/** `value` as indented JSON with its object keys sorted, so two versions line up. */
export function sortedJson(value: unknown): string {
  return (
    JSON.stringify(
      value,
      (_key, v: unknown) =>
        typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v,
      2,
    ) ?? 'null'
  );
}

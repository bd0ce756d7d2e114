/**
 * One line of help for a mistyped command line: what was wrong, the nearest right word, and
 * where the full help is (not the parser's raw message followed by the whole usage).
 */

/** The candidate closest to `word` (at most two edits away, or a third of its length), if any. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(1, Math.min(2, Math.floor(word.length / 3)));
  return bestDistance <= allowed ? best : undefined;
}

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number) => d[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(a.length, b.length);
}

const MORE = 'golem --help for all';

/**
 * The line for an error of `util.parseArgs`: an unknown option (with the nearest known one),
 * a missing value, or a value given to a switch; other errors keep their message.
 */
export function optionError(error: unknown, options: Readonly<Record<string, { type: 'string' | 'boolean'; short?: string }>>): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  const given = /'(-[^' ]+)/.exec(text)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const names = Object.keys(options);
    const guess = nearest(given.replace(/^-+/, '').split('=')[0] ?? '', names);
    return `unknown option ${given}${guess === undefined ? '' : ` (did you mean --${guess}?)`}; ${MORE}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const name = given.replace(/^-+/, '');
    if (options[name]?.type === 'boolean') return `option ${given} takes no value; ${MORE}`;
    return `option ${given} needs a value (${given} <value>); ${MORE}`;
  }
  return `${text}; ${MORE}`;
}

/** The line for a command golem does not have, with the nearest one it has. */
export function commandError(words: readonly string[], commands: readonly string[]): string {
  const word = words[0] ?? '';
  const guess = commands.includes(word) ? undefined : nearest(word, commands);
  return `unknown command "${words.join(' ')}"${guess === undefined ? '' : ` (did you mean ${guess}?)`}; ${MORE}`;
}

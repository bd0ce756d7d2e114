/**
 * Options read the way GNU getopt (and git's parse-options) read them: short options clustered
 * (`-rf`, `-oL`, `-I{}`), a value attached or in the next word, and a long option given as any
 * prefix of its name (`--recur` is `--recursive`), so a rule names an option once and an
 * abbreviation cannot slip past it.
 */
import type { ShellWord } from './shell-words.js';

/** How a program takes its options: the short letters and the long names that take a value. */
export interface OptionSpec {
  /** Short options that take a value (attached, `-n5`, or the next word, `-n 5`). */
  short?: string;
  /** Long options that take a value (`--name=v` or `--name v`), matched by prefix. */
  long?: readonly string[];
}

/**
 * The long option among `names` that `word` spells, by any prefix of it as getopt takes it
 * (`--har` is `--hard`); undefined when it spells none or is exactly one of `others` (options
 * whose names are prefixes of one in `names`, as `--text` is of `--textconv`).
 */
export function longOption(word: string, names: readonly string[], others: readonly string[] = []): string | undefined {
  if (!word.startsWith('--') || word.length < 3) return undefined;
  const given = word.slice(2).split('=')[0] ?? '';
  if (given === '' || others.includes(given)) return undefined;
  return names.includes(given) ? given : names.find((name) => name.startsWith(given));
}

/** The value of a long option in `--name=value` form, or undefined. */
export function attachedValue(word: string): string | undefined {
  const equals = word.indexOf('=');
  return word.startsWith('--') && equals > 0 ? word.slice(equals + 1) : undefined;
}

/** Whether `word` is a cluster of short options holding `letter` (`-rf` holds `r`), stopping at a letter that takes a value. */
export function hasShort(word: string, letter: string, takesValue = ''): boolean {
  if (!/^-[^-]/.test(word)) return false;
  for (const c of word.slice(1)) {
    if (c === letter) return true;
    if (takesValue.includes(c)) return false;
  }
  return false;
}

/** One option read: its name (a letter, or a long name as given) and its value when it takes one. */
export interface ReadOption {
  name: string;
  value: ShellWord | undefined;
}

/**
 * Reads the options at the front of `args`: the options found, and the index of the first
 * operand (after `--` when it ends them). A lone `-` is an operand.
 */
export function readOptions(args: readonly ShellWord[], spec: OptionSpec): { options: ReadOption[]; operand: number } {
  const options: ReadOption[] = [];
  let at = 0;
  for (; at < args.length; at++) {
    const word = args[at];
    const w = word?.text ?? '';
    if (word === undefined || w === '--') return { options, operand: at + 1 };
    if (!w.startsWith('-') || w === '-') break;
    if (w.startsWith('--')) {
      const attached = attachedValue(w);
      const name = longOption(w, spec.long ?? []) ?? w.slice(2).split('=')[0] ?? '';
      const value = attached !== undefined ? { ...word, text: attached } : (spec.long ?? []).includes(name) ? args[++at] : undefined;
      options.push({ name, value });
      continue;
    }
    for (let i = 1; i < w.length; i++) {
      const c = w[i] ?? '';
      if (!(spec.short ?? '').includes(c)) {
        options.push({ name: c, value: undefined });
        continue;
      }
      options.push({ name: c, value: i + 1 < w.length ? { ...word, text: w.slice(i + 1) } : args[++at] });
      break;
    }
  }
  return { options, operand: at };
}

/** Options anywhere among `args`, as GNU getopt permutes them (`sed d -i f`): the options and the operands, in order. */
export function readPermutedOptions(args: readonly ShellWord[], spec: OptionSpec): { options: ReadOption[]; operands: ShellWord[] } {
  const options: ReadOption[] = [];
  const operands: ShellWord[] = [];
  for (let at = 0; at < args.length; at++) {
    const word = args[at];
    if (word === undefined) continue;
    if (word.text === '--') {
      operands.push(...args.slice(at + 1));
      break;
    }
    if (!word.text.startsWith('-') || word.text === '-') {
      operands.push(word);
      continue;
    }
    const read = readOptions([word], spec).options;
    const last = read.at(-1);
    const takesValue = last !== undefined && (last.name.length === 1 ? (spec.short ?? '').includes(last.name) : (spec.long ?? []).includes(last.name));
    if (last !== undefined && last.value === undefined && takesValue) last.value = args[++at];
    options.push(...read);
  }
  return { options, operands };
}

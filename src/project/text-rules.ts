/**
 * Programs that read text and print it, whose options or scripts can still write a file or run
 * a program: sed, awk, sort, uniq, tee, tree, date, rg.
 */
import { attachedValue, hasShort, longOption, readOptions, readPermutedOptions } from './command-options.js';
import { atLeastMedium, medium, READS, unknown, worst, type Judge, type Verdict } from './command-verdict.js';
import type { ShellWord } from './shell-words.js';

/** A text program judged; undefined when `name` is not one. */
export function judgeTextTool(name: string, args: ShellWord[], judge: Judge): Verdict | undefined {
  const words = args.map((a) => a.text);
  const dynamic = args.some((a) => a.dynamic);
  switch (name) {
    case 'sed':
      return dynamic ? unknown('sed with arguments known only when it runs') : sedCommand(args);
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
      return dynamic ? unknown('awk with arguments known only when it runs') : awkCommand(args);
    case 'sort':
      if (dynamic) return unknown('sort with options known only when it runs');
      return words.some((w) => hasShort(w, 'o', 'ktST') || longOption(w, ['output', 'compress-program']) !== undefined)
        ? medium('sort writes a file or runs a program (-o, --compress-program)')
        : READS;
    case 'uniq': {
      const { operand } = readOptions(args, { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars'] });
      const output = args[operand + 1];
      return output === undefined ? READS : medium(`writes its output to ${output.text} (uniq)`);
    }
    case 'tee':
      return words.every((w) => w.startsWith('-')) ? READS : medium('writes files (tee)');
    case 'tree':
      return words.some((w) => hasShort(w, 'o', 'LPIH')) ? medium('writes a file (tree -o)') : READS;
    case 'date': {
      const { options, operands } = readPermutedOptions(args, { short: 'dfrs', long: ['date', 'file', 'reference', 'set'] });
      const sets = options.some((o) => o.name === 's' || o.name === 'set') || operands.some((o) => !o.text.startsWith('+'));
      return sets ? medium('sets the clock (date -s, date MMDDhhmm)') : READS;
    }
    case 'timedatectl':
      return words.some((w) => w.startsWith('set-')) ? medium(`sets the clock (timedatectl ${words.find((w) => w.startsWith('set-')) ?? ''})`) : READS;
    case 'hwclock':
      return words.every((w) => /^(?:-r|--show|--get|-V|--version|-h|--help|--verbose|-v)$/.test(w)) ? READS : medium('sets the clock (hwclock)');
    case 'rg':
      return rgCommand(args, judge);
  }
  return undefined;
}

/** sed reads unless it edits in place, reads a script file, or its script can write (w) or run (e) something. */
function sedCommand(args: ShellWord[]): Verdict {
  const { options, operands } = readPermutedOptions(args, { short: 'efl', long: ['expression', 'file', 'line-length'] });
  if (options.some((o) => o.name === 'i' || longOption(`--${o.name}`, ['in-place']) !== undefined)) return medium('edits files in place (sed -i)');
  if (options.some((o) => o.name === 'f' || o.name === 'file')) return medium('runs a sed script from a file');
  const scripts = options.flatMap((o) => ((o.name === 'e' || o.name === 'expression') && o.value !== undefined ? [o.value.text] : []));
  if (scripts.length === 0) scripts.push(operands[0]?.text ?? '');
  const address = String.raw`(?:\d+|\$|\/(?:[^/\\]|\\.)*\/)(?:,(?:\d+|\$|\/(?:[^/\\]|\\.)*\/))?`;
  const command = new RegExp(String.raw`^\s*(?:${address})?\s*!?\s*(?:[pdqQn=]|s\/(?:[^/\\]|\\.)*\/(?:[^/\\]|\\.)*\/[gpiIm0-9]*)?\s*$`);
  const safe = scripts.every((script) => script.split(/[;\n]/).every((part) => command.test(part)));
  return safe ? READS : medium('its sed script may write files or run commands (w, e)');
}

/** awk reads unless its program comes from a file (-f, -E, --include, --load) or can run a command or write (system, |, >, getline). */
function awkCommand(args: ShellWord[]): Verdict {
  const { options, operand } = readOptions(args, {
    short: 'FvfEeilW',
    long: ['field-separator', 'assign', 'file', 'exec', 'source', 'include', 'load'],
  });
  const fromFile = (o: { name: string; value: ShellWord | undefined }) =>
    ['f', 'E', 'i', 'l', 'file', 'exec', 'include', 'load'].includes(o.name) || (o.name === 'W' && /^e/.test(o.value?.text ?? '')); // mawk -W exec
  if (options.some(fromFile)) {
    return medium('runs an awk program from a file');
  }
  const programs = options.flatMap((o) => ((o.name === 'e' || o.name === 'source') && o.value !== undefined ? [o.value.text] : []));
  if (programs.length === 0) programs.push(args[operand]?.text ?? '');
  // system(), getline (from a command), print > file, print | command, @indirect calls; a > in a pattern (NR > 1) only compares
  const runs = /system|getline|@|\bprintf?\b[^;{}]*[>|]/;
  return programs.every((p) => !runs.test(p)) ? READS : medium('its awk program may run commands or write files');
}

function rgCommand(args: ShellWord[], judge: Judge): Verdict {
  if (args.some((a) => a.dynamic)) return unknown('rg with arguments known only when it runs (--pre runs a program)');
  const verdicts: Verdict[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]?.text ?? '';
    const program = w === '--pre' ? args[i + 1]?.text : w.startsWith('--pre=') ? attachedValue(w) : undefined;
    if (program !== undefined) verdicts.push(atLeastMedium(`runs ${program} on each file searched (rg --pre)`, judge.line(program)));
  }
  return worst(verdicts);
}

/**
 * An action call as the terminal shows it: a line with its name, its arguments as short
 * JSON and its mark, and under it a short summary of how it went: a command's exit code
 * and last lines of output, a file edit's lines added and removed, a failure's reason.
 * Outputs are told apart by their shape (a command's `exitCode`, an edit's
 * `replacements`, a write's `bytes`), as any action returning that shape is shown alike.
 */
import type { JsonObject, JsonValue } from '../core/blocks.js';
import { sanitize } from './ansi.js';
import type { Screen } from './screen.js';
import { cutTo, displayWidth } from './text-width.js';

/** How many of a command's last lines of output are shown under it. */
const COMMAND_LINES = 3;

/** A call's input as arguments: an object's values, each short JSON. */
export function formatArgs(input: JsonValue): string {
  if (isObject(input))
    return Object.values(input)
      .map((v) => shortJson(v))
      .join(', ');
  return shortJson(input);
}

function shortJson(value: JsonValue, max = 40): string {
  if (typeof value === 'string') return JSON.stringify(displayWidth(value) > max ? cutTo(value, max - 2) : value);
  return cutTo(JSON.stringify(value), max);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A failed action's output, shortened to its first line (a command: how it ended, and its last line). */
export function summarizeOutput(output: JsonValue): string {
  if (isObject(output) && 'exitCode' in output) {
    const [ended, ...lines] = commandOutcome(output, 1);
    const last = lines.at(-1)?.trim() ?? '';
    return last === '' ? (ended ?? '') : `${ended}: ${last}`;
  }
  return reasonOf(output);
}

function reasonOf(output: JsonValue): string {
  let text: string;
  if (typeof output === 'string') text = output;
  else if (isObject(output) && typeof output.error === 'string') text = output.error;
  else if (isObject(output) && typeof output.message === 'string') text = output.message;
  else text = output === null ? '' : JSON.stringify(output);
  return sanitize(text).trim().split('\n')[0] ?? '';
}

/** A command's end (`exit 1`, `timed out`) and its last `count` lines of output. */
function commandOutcome(output: JsonObject, count: number): string[] {
  const text = typeof output.output === 'string' ? sanitize(output.output).replace(/\s+$/, '') : '';
  const lines = text === '' ? [] : text.split('\n').slice(-count);
  const ended = output.timedOut === true ? 'timed out' : `exit ${typeof output.exitCode === 'number' ? output.exitCode : '?'}`;
  return [lines.length === 0 ? `${ended} (no output)` : ended, ...lines.map((l) => l.replace(/\t/g, '  '))];
}

/** One line of a call's outcome, and whether it tells of a failure (painted red). */
export interface OutcomeLine {
  text: string;
  failed: boolean;
}

/** What to say under a call about how it went: nothing when its output tells nothing short. */
export function callOutcome(input: JsonValue, output: JsonValue, ok: boolean): OutcomeLine[] {
  // A change staged for review wraps the action's own output.
  if (isObject(output) && typeof output.staged === 'boolean' && output.result !== undefined) {
    if (output.staged === false) return [{ text: 'no change: the file already holds this', failed: false }];
    const [first, ...rest] = callOutcome(input, output.result, ok);
    return [{ text: `${first === undefined ? '' : `${first.text} · `}staged for review`, failed: false }, ...rest];
  }
  if (isObject(output) && 'exitCode' in output) {
    const [ended = '', ...lines] = commandOutcome(output, COMMAND_LINES);
    return [{ text: ended, failed: !ok }, ...lines.map((text) => ({ text, failed: false }))];
  }
  if (!ok) return [{ text: reasonOf(output), failed: true }];
  if (
    isObject(output) &&
    typeof output.replacements === 'number' &&
    isObject(input) &&
    typeof input.old_string === 'string' &&
    typeof input.new_string === 'string'
  ) {
    const { added, removed } = lineChanges(input.old_string, input.new_string);
    return [{ text: `+${added * output.replacements} -${removed * output.replacements}`, failed: false }];
  }
  if (isObject(output) && typeof output.bytes === 'number' && isObject(input) && typeof input.content === 'string') {
    const lines = countLines(input.content);
    return [{ text: output.created === true ? `+${lines} (new file)` : `${lines} line${lines === 1 ? '' : 's'} written`, failed: false }];
  }
  return [];
}

/** The lines drawn for a call, at most `width` columns each: the call and its mark, then its outcome. */
export function drawCall(screen: Screen, call: { name: string; input: JsonValue; ok: boolean; output: JsonValue }, width: number): string[] {
  // The name is the model's (an unknown action keeps what it wrote) or an MCP server's: no control codes reach the terminal.
  const head = cutTo(`${sanitize(call.name)}(${formatArgs(call.input)})`, Math.max(4, width - 2));
  const lines = [`${screen.paint('dim', head)} ${screen.mark(call.ok)}`];
  for (const [i, line] of callOutcome(call.input, call.output, call.ok).entries()) {
    if (line.text === '') continue;
    const prefix = i === 0 ? '  └ ' : '    ';
    lines.push(screen.paint('dim', prefix) + screen.paint(line.failed ? 'red' : 'dim', cutTo(line.text, Math.max(4, width - prefix.length))));
  }
  return lines;
}

function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Lines added and removed going from `before` to `after` (a longest common subsequence of lines). */
export function lineChanges(before: string, after: string): { added: number; removed: number } {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length * b.length > 250_000) return { added: b.length, removed: a.length };
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const line of a) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 0; j < b.length; j++) row[j + 1] = line === b[j] ? (previous[j] ?? 0) + 1 : Math.max(previous[j + 1] ?? 0, row[j] ?? 0);
    previous = row;
  }
  const common = previous[b.length] ?? 0;
  return { added: b.length - common, removed: a.length - common };
}

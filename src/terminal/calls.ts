/**
 * An action call as the terminal shows it: its arguments as short JSON, and a failed
 * call's output in one line.
 */
import type { JsonValue } from '../core/blocks.js';
import { sanitize } from './ansi.js';
import { cutTo, displayWidth } from './text-width.js';

/** A call's input as arguments: an object's values, each short JSON. */
export function formatArgs(input: JsonValue): string {
  if (input !== null && typeof input === 'object' && !Array.isArray(input))
    return Object.values(input)
      .map((v) => shortJson(v))
      .join(', ');
  return shortJson(input);
}

function shortJson(value: JsonValue, max = 40): string {
  if (typeof value === 'string') return JSON.stringify(displayWidth(value) > max ? cutTo(value, max - 2) : value);
  return cutTo(JSON.stringify(value), max);
}

/** A failed action's output, shortened to its first line. */
export function summarizeOutput(output: JsonValue): string {
  let text: string;
  const command = output !== null && typeof output === 'object' && !Array.isArray(output) && 'exitCode' in output ? output : undefined;
  if (command !== undefined) {
    // A command: how it ended, and its last line of output.
    const last = typeof command.output === 'string' ? (sanitize(command.output).trimEnd().split('\n').at(-1) ?? '') : '';
    const ended = command.timedOut === true ? 'timed out' : `exit ${typeof command.exitCode === 'number' ? command.exitCode : '?'}`;
    return last === '' ? ended : `${ended}: ${last.trim()}`;
  }
  if (typeof output === 'string') text = output;
  else if (output !== null && typeof output === 'object' && !Array.isArray(output) && typeof output.error === 'string') text = output.error;
  else if (output !== null && typeof output === 'object' && !Array.isArray(output) && typeof output.message === 'string') text = output.message;
  else text = output === null ? '' : JSON.stringify(output);
  return sanitize(text).trim().split('\n')[0] ?? '';
}

/**
 * How a tool call reads on the page: its one-line summary and status, and its output in the
 * shape its action returns (a command's exit code and output, a file edit's diff). Results
 * are model-facing text, often JSON: parsed safely here, shown as is when they are not.
 */

import { showBidiControls } from '../../src/core/text.js';

export type ToolStatus = 'running' | 'ok' | 'staged' | 'failed' | 'stopped' | 'unanswered';

export interface ToolResultText {
  text: string;
  isError: boolean;
}

/** What the result says, read for showing. */
export type ToolOutput =
  | { kind: 'none' }
  | { kind: 'command'; exitCode: number | null; output: string; timedOut: boolean }
  | { kind: 'staged'; note: string }
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; text: string };

const STOPPED = 'Not run: the user stopped the run.';

export function statusOf(result: ToolResultText | null, running: boolean): ToolStatus {
  if (result === null) return running ? 'running' : 'unanswered';
  if (result.text === STOPPED) return 'stopped';
  if (result.isError) return 'failed';
  return outputOf(result).kind === 'staged' ? 'staged' : 'ok';
}

/** A streamed result (its event says nothing of failure): failed when it reads as a failure does. */
export function streamedResult(name: string, text: string): ToolResultText {
  const out = outputOf({ text, isError: false });
  const failed =
    (out.kind === 'command' && (out.exitCode !== 0 || out.timedOut)) ||
    text.startsWith(`${name} failed:`) ||
    text.startsWith('Not run:') ||
    text.startsWith('Unknown action');
  return { text, isError: failed };
}

/** The call's arguments as an object, whether given parsed or as (streamed) JSON text. */
export function argsOf(input: unknown): Record<string, unknown> | null {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      return null;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Pretty-printed arguments, whole, their bidirectional controls shown by their codes. */
export function prettyArgs(input: unknown): string {
  if (input === undefined || input === '') return '';
  const args = typeof input === 'string' ? (argsOf(input) ?? input) : input;
  if (typeof args === 'string') return showBidiControls(args);
  try {
    return showBidiControls(JSON.stringify(args, null, 2) ?? '');
  } catch {
    return '(the arguments cannot be shown)';
  }
}

/**
 * What the summary line shows after the action's name: the command, the file, or the arguments
 * in short, their bidirectional controls shown by their codes (a command reads as it runs).
 */
export function gist(input: unknown): string {
  return showBidiControls(gistOf(input));
}

function gistOf(input: unknown): string {
  const args = argsOf(input);
  if (args === null) return typeof input === 'string' ? input : '';
  const first = ['command', 'path', 'pattern', 'query', 'url', 'task', 'instanceId', 'newInstanceId'].find((k) => typeof args[k] === 'string');
  if (first !== undefined) return oneLine(args[first] as string);
  const compact = JSON.stringify(args);
  return compact === '{}' ? '' : compact;
}

export function outputOf(result: ToolResultText | null): ToolOutput {
  if (result === null || result.text === '') return { kind: 'none' };
  const json = parseJson(result.text);
  if (json !== undefined && typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    if ('exitCode' in o && typeof o.output === 'string')
      return { kind: 'command', exitCode: typeof o.exitCode === 'number' ? o.exitCode : null, output: o.output, timedOut: o.timedOut === true };
    if (o.staged === true && typeof o.note === 'string') return { kind: 'staged', note: o.note };
  }
  if (json !== undefined && typeof json === 'object' && json !== null) return { kind: 'json', value: json };
  return { kind: 'text', text: result.text };
}

/** Why a failed call failed, in a line: a command's exit code, else the result's first line. */
export function reasonOf(name: string, result: ToolResultText | null): string {
  if (result === null) return '';
  const out = outputOf(result);
  if (out.kind === 'command') return out.timedOut ? 'timed out' : `exit ${out.exitCode ?? '?'}`;
  const text = result.text.startsWith(`${name} failed: `) ? result.text.slice(name.length + 9) : result.text;
  return oneLine(text);
}

/**
 * A file change the call asks for, as a unified diff: edit_file's old and new text, or
 * write_file's whole new content (read from the arguments' shape). Null for other calls.
 */
export function diffOf(input: unknown): string | null {
  const args = argsOf(input);
  if (args === null || typeof args.path !== 'string') return null;
  const lines = (text: string, mark: string) =>
    text === ''
      ? []
      : text
          .replace(/\n$/, '')
          .split('\n')
          .map((l) => `${mark}${l}`);
  if (typeof args.old_string === 'string' && typeof args.new_string === 'string') {
    const old = lines(args.old_string, '-');
    const now = lines(args.new_string, '+');
    return [`--- ${args.path}`, `+++ ${args.path}`, `@@ -${old.length} +${now.length} @@`, ...old, ...now].join('\n');
  }
  if (typeof args.content === 'string') {
    const now = lines(args.content, '+');
    return [`+++ ${args.path}`, `@@ ${now.length} line${now.length === 1 ? '' : 's'} @@`, ...now].join('\n');
  }
  return null;
}

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

function oneLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

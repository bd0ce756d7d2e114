/**
 * A message a page sends on `golem serve`'s socket, read: one JSON object whose `type` the
 * server takes (SNAPSHOT_REQUEST, UI_ACTION). Pure and total: whatever arrives (any bytes,
 * any JSON, `null`), the answer is the message or a refusal with its code, never a throw.
 */
import type { RawData } from 'ws';
import { parseJsonText } from './json-body.js';

/** What a page may send; a UI_ACTION's fields are checked by `applyUiAction`. */
export type ClientMessage = { type: 'SNAPSHOT_REQUEST' } | { type: 'UI_ACTION'; instanceId?: unknown; actionId?: unknown; values?: unknown; count?: unknown };

/** The codes a refused message is answered with (in a RUN_ERROR). */
export type ClientMessageCode = 'INVALID_MESSAGE' | 'UNKNOWN_MESSAGE';

export type ClientMessageReading = { ok: true; message: ClientMessage } | { ok: false; code: ClientMessageCode; message: string };

/** Reads one frame's data (text or binary, read as UTF-8). */
export function readClientMessage(data: RawData | string): ClientMessageReading {
  const read = parseJsonText(typeof data === 'string' ? data : textOf(data));
  if (!read.ok) return { ok: false, code: 'INVALID_MESSAGE', message: `a message is one JSON object; this one ${read.problem}` };
  const value = read.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, code: 'INVALID_MESSAGE', message: 'a message is one JSON object' };
  const message = value as { type?: unknown };
  if (message.type === 'SNAPSHOT_REQUEST' || message.type === 'UI_ACTION') return { ok: true, message: message as ClientMessage };
  // Named without echoing a value of any size or depth back.
  const type =
    typeof message.type === 'string'
      ? JSON.stringify(message.type.slice(0, 100))
      : message.type === undefined
        ? 'undefined'
        : `of type ${message.type === null ? 'null' : typeof message.type}`;
  return { ok: false, code: 'UNKNOWN_MESSAGE', message: `unknown message type ${type}; this server takes SNAPSHOT_REQUEST and UI_ACTION` };
}

function textOf(data: RawData): string {
  return (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(new Uint8Array(data))).toString('utf8');
}

/**
 * A request's JSON body, read once with a size limit (the declared length is looked at
 * first, then the bytes as they come, so a body without a length cannot run over either):
 * INVALID_ARGUMENT when it is too large, not JSON, or nested deeper than 256 levels. And what
 * is read from it, checked with a schema: INVALID_ARGUMENT naming the path of each problem.
 */
import type { z } from 'zod';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';

/** The most bytes a JSON body may have (1 MiB). */
export const MAX_BODY = 1024 * 1024;

/**
 * The most bytes a body carrying a conversation's messages may have (8 MiB): AG-UI's
 * RunAgentInput and the AI SDK's chat request, whose messages may carry images, and whose
 * client may send the whole thread each time.
 */
export const MAX_MESSAGES_BODY = 8 * 1024 * 1024;

export async function readJsonBody(request: Request, maxBytes: number = MAX_BODY): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw new GolemError('INVALID_ARGUMENT', `the request body is ${declared} bytes; at most ${maxBytes}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader: ReadableStreamDefaultReader<Uint8Array> = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new GolemError('INVALID_ARGUMENT', `the request body is over ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  if (text.trim() === '') return {};
  const read = parseJsonText(text);
  if (!read.ok) {
    // The limit is named only where it is what the body broke.
    const details = read.reason === 'depth' ? { details: { maxDepth: MAX_JSON_DEPTH } } : {};
    throw new GolemError('INVALID_ARGUMENT', `the request body ${read.problem}`, details);
  }
  return read.value;
}

/** JSON text read, or what is wrong with it: its syntax (`is not JSON`) or its depth (`nests deeper than 256 levels`). */
export type JsonTextReading = { ok: true; value: unknown } | { ok: false; reason: 'syntax' | 'depth'; problem: string };

/**
 * JSON text from a client (a request body, a socket message), parsed and refused when it nests
 * deeper than 256 levels: the one place the server reads a client's JSON, so no route hands a
 * value deeper than the stack to a validator, a serializer or the prompt. Never throws.
 */
export function parseJsonText(text: string): JsonTextReading {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, reason: 'syntax', problem: 'is not JSON' };
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return { ok: false, reason: 'depth', problem: `nests deeper than ${MAX_JSON_DEPTH} levels (the limit)` };
  return { ok: true, value };
}

/** Where a value sits in a request, and what a problem at its root is called. */
export interface InputPlace {
  /** The value's path in the body (default: the body itself). */
  at?: readonly (string | number)[];
  /** What a problem with no path names (default `(body)`). */
  root?: string;
  /** Put before the problems (`not a RunAgentInput: `). */
  prefix?: string;
}

/** Zod's issues as one INVALID_ARGUMENT: `path: message` each, the path under `place.at`, joined with `; `. */
export function invalidInput(issues: readonly { path: readonly PropertyKey[]; message: string }[], place: InputPlace = {}): GolemError {
  const problems = issues.map((issue) => `${[...(place.at ?? []), ...issue.path].map(String).join('.') || (place.root ?? '(body)')}: ${issue.message}`);
  return new GolemError('INVALID_ARGUMENT', `${place.prefix ?? ''}${problems.join('; ')}`);
}

/** `value` checked with `schema`, or INVALID_ARGUMENT naming the path of each problem (see `invalidInput`). */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, place: InputPlace = {}): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalidInput(parsed.error.issues, place);
}

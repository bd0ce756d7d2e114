/**
 * A run's events as they are kept in the store (issue 36): `run_event` records, one a batch,
 * each the session's own (it loads, and is evicted, with the session's turns, and a write of
 * one conflicts only with commands on that session). Records are keyed `<runId>:<chunk>`,
 * chunks numbered from 0 without gaps, so a follower reads a run's next batch with one lookup.
 *
 * What is kept is what the events say and the records do not: a step's turn and an outcome's
 * last turn are kept as references to the turns the run wrote; a worker is named by its id
 * after its start; a batch's streamed text runs of one worker are one string, with the lengths
 * of their parts, so every entry keeps its own seq at a few bytes a delta.
 */
import { z } from 'zod';
import type { JsonValue } from '../core/blocks.js';
import { defineCommand, fail, Id, type ReducerContext, type Write } from '../core/index.js';
import { GolemError, type ErrorCode } from '../core/errors.js';
import type { Turn, TurnRef } from '../core/records.js';
import type { WorkerInfo } from '../action/approval.js';
import type { ApprovalRecord } from './agent-records.js';
import type { RunLogBatch, RunLogEntry, SeqEntry } from './run-log.js';
import type { WorkerOutcome } from './worker/outcome.js';

export const RunEventChunk = z.strictObject({
  runId: z.string().min(1),
  sessionId: Id,
  /** The chunk's place among the run's, from 0. */
  chunk: z.number().int().nonnegative(),
  /** The seq of its first entry. */
  first: z.number().int().positive(),
  /** How many entries it holds (a text item holds as many as its `lengths`). */
  count: z.number().int().positive(),
  items: z.array(z.record(z.string(), z.unknown())),
});
export type RunEventChunk = z.infer<typeof RunEventChunk>;

/** The key of a run's `chunk`th batch. */
export const chunkKey = (runId: string, chunk: number) => `${runId}:${String(chunk).padStart(6, '0')}`;

/** The payload that keeps a batch (`run:events`, and the last one with `run:release`). */
export const ChunkPayload = z.strictObject({
  chunk: z.number().int().nonnegative(),
  first: z.number().int().positive(),
  count: z.number().int().positive(),
  items: z.array(z.record(z.string(), z.unknown())),
});
export type ChunkPayload = z.infer<typeof ChunkPayload>;

/**
 * The write that keeps a chunk, under the first number from its own that the run has not used:
 * a holder that took the run over before the last chunk of the one before reached it (they
 * wrote as one) keeps its events after it, and its release is never refused for them.
 */
export function chunkWrite(ctx: ReducerContext, runId: string, sessionId: string, chunk: ChunkPayload): Write & { op: 'put' } {
  const events = ctx.index.collection('run_event');
  let n = chunk.chunk;
  while (events.has(chunkKey(runId, n))) n++;
  const value: RunEventChunk = { runId, sessionId, ...chunk, chunk: n };
  return { op: 'put', collection: 'run_event', key: chunkKey(runId, n), value };
}

/** Keeps a batch of a run's events: only its holder may (LEASE_LOST otherwise: another process took it over). */
export const runEvents = defineCommand({
  type: 'run:events',
  description: "Keeps a batch of a run's events, for any process to follow.",
  payload: z.strictObject({ sessionId: Id, runId: z.string().min(1), holder: z.string().min(1), events: ChunkPayload }),
  reduce(payload, ctx) {
    const lease = ctx.index.collection('run').get(payload.sessionId);
    if (lease === undefined || lease.holder !== payload.holder || lease.runId !== payload.runId)
      throw fail('LEASE_LOST', `run ${payload.runId} is no longer held here; its events are the new holder's to keep`, { runId: payload.runId });
    const write = chunkWrite(ctx, payload.runId, payload.sessionId, payload.events);
    return { writes: [write], result: { chunk: (write.value as RunEventChunk).chunk } };
  },
});

type Item = Record<string, unknown>;

/** What an outcome keeps: its last turn as a reference, its error as code and message. */
type KeptOutcome = Omit<WorkerOutcome, 'turn' | 'error'> & { turn?: TurnRef; error?: { code: string; message: string } };

/** A batch as the items of a chunk (`chunk`: its place among the run's); the root worker (the run's session) goes unnamed. */
export function encodeBatch(batch: RunLogBatch, chunk: number, sessionId: string): ChunkPayload {
  const items: Item[] = [];
  let last: Item | undefined;
  for (const entry of batch.entries) {
    const item = encodeEntry(entry);
    if (item.worker === sessionId) delete item.worker;
    // A worker's streamed text, delta after delta: one item, its parts' lengths kept.
    if (item.type === 'text' && last?.type === 'text' && last.worker === item.worker) {
      const lengths = (last.lengths as number[] | undefined) ?? [(last.text as string).length];
      last.text = (last.text as string) + (item.text as string);
      last.lengths = [...lengths, (item.text as string).length];
      continue;
    }
    items.push(item);
    last = item;
  }
  return { chunk, first: batch.first, count: batch.entries.length, items };
}

function encodeEntry(entry: RunLogEntry): Item {
  switch (entry.type) {
    case 'client-call':
      return { type: 'client-call', call: entry.call as unknown as JsonValue };
    case 'approval':
      return { type: 'approval', approvalId: entry.approvalId };
    case 'end': {
      const { end } = entry;
      if (end.error !== undefined) return { type: 'end', error: { code: end.error.code, message: end.error.message } };
      const { turn, error, ...rest } = end.outcome;
      const outcome: KeptOutcome = {
        ...rest,
        ...(turn !== undefined && { turn: { id: turn.id, version: turn.version } }),
        ...(error !== undefined && { error: { code: error.code, message: error.message } }),
      };
      return { type: 'end', outcome };
    }
    case 'event': {
      const { event } = entry;
      switch (event.type) {
        case 'worker-start':
          return { type: 'start', worker: event.worker, parent: event.parent, ...(event.batch !== undefined && { batch: event.batch }) };
        case 'text-delta':
          return { type: 'text', worker: event.worker.id, text: event.text };
        case 'answer':
          return { type: 'answer', worker: event.worker.id, turn: { id: event.turnId, version: event.version } };
        case 'step':
          return {
            type: 'step',
            worker: event.worker.id,
            step: event.step,
            turn: { id: event.turn.id, version: event.turn.version },
            requested: event.requested,
          };
        case 'action':
          return {
            type: 'action',
            worker: event.worker.id,
            ...(event.callId !== undefined && { callId: event.callId }),
            name: event.name,
            input: event.input,
            ok: event.ok,
            output: event.output,
          };
        case 'worker-end':
          return { type: 'worker-end', worker: event.worker.id, status: event.status, text: event.text };
      }
    }
  }
}

/** What decoding needs: the workers started so far (filled as it goes), and the turns the events refer to. */
export interface DecodeContext {
  /** The run's session: its worker is the root. */
  sessionId: string;
  workers: Map<string, WorkerInfo>;
  /** The turn of `ref` (undefined when it is not kept any more: the entry is then left out). */
  turn(ref: TurnRef): Turn | undefined;
}

/** A chunk's entries, each with its seq; those whose turn is gone are left out (their seq with them). */
export function decodeChunk(chunk: RunEventChunk, ctx: DecodeContext): SeqEntry[] {
  const out: SeqEntry[] = [];
  let seq = chunk.first;
  for (const item of chunk.items) {
    if (item.type === 'text') {
      const worker = workerOf(ctx, item.worker);
      const text = item.text as string;
      const lengths = (item.lengths as number[] | undefined) ?? [text.length];
      let at = 0;
      for (const length of lengths) {
        out.push({ seq: seq++, entry: { type: 'event', event: { type: 'text-delta', worker, text: text.slice(at, at + length) } } });
        at += length;
      }
      continue;
    }
    const entry = decodeItem(item, ctx);
    if (entry !== undefined) out.push({ seq, entry });
    seq++;
  }
  return out;
}

function decodeItem(item: Item, ctx: DecodeContext): RunLogEntry | undefined {
  const ref = item.turn as TurnRef | undefined;
  switch (item.type) {
    case 'client-call':
      return { type: 'client-call', call: item.call as { callId: string; name: string; input: unknown } };
    case 'approval':
      return { type: 'approval', approvalId: item.approvalId as string };
    case 'end': {
      const error = item.error as { code: string; message: string } | undefined;
      if (item.outcome === undefined) return { type: 'end', end: { error: errorOf(error ?? { code: 'INTERNAL', message: 'the run ended' }) } };
      const { turn, error: failure, ...rest } = item.outcome as KeptOutcome;
      const outcome: WorkerOutcome = {
        ...rest,
        turn: turn === undefined ? undefined : ctx.turn(turn),
        ...(failure !== undefined && { error: errorOf(failure) }),
        ...(rest.approval !== undefined && { approval: rest.approval as ApprovalRecord }),
      };
      return { type: 'end', end: { outcome } };
    }
    case 'start': {
      const worker = item.worker as WorkerInfo;
      ctx.workers.set(worker.id, worker);
      const batch = item.batch as { index: number; size: number } | undefined;
      return { type: 'event', event: { type: 'worker-start', worker, parent: item.parent as WorkerInfo | null, ...(batch !== undefined && { batch }) } };
    }
    case 'answer':
      return { type: 'event', event: { type: 'answer', worker: workerOf(ctx, item.worker), turnId: (ref as TurnRef).id, version: (ref as TurnRef).version } };
    case 'step': {
      const turn = ctx.turn(ref as TurnRef);
      if (turn === undefined) return undefined;
      return {
        type: 'event',
        event: { type: 'step', worker: workerOf(ctx, item.worker), step: item.step as number, turn, requested: item.requested as number },
      };
    }
    case 'action':
      return {
        type: 'event',
        event: {
          type: 'action',
          worker: workerOf(ctx, item.worker),
          ...(typeof item.callId === 'string' && { callId: item.callId }),
          name: item.name as string,
          input: item.input as JsonValue,
          ok: item.ok as boolean,
          output: item.output as JsonValue,
        },
      };
    case 'worker-end':
      return {
        type: 'event',
        event: {
          type: 'worker-end',
          worker: workerOf(ctx, item.worker),
          status: item.status as 'done' | 'question' | 'failed' | 'waiting',
          text: item.text as string,
        },
      };
    default:
      return undefined;
  }
}

/** A worker by its id: as its start said, else as little as is known (a take-over's follower may not have seen its start). */
function workerOf(ctx: DecodeContext, named: unknown): WorkerInfo {
  const id = typeof named === 'string' ? named : ctx.sessionId;
  return ctx.workers.get(id) ?? { id, depth: id === ctx.sessionId ? 0 : 1, task: '' };
}

export function errorOf(failure: { code: string; message: string }): GolemError {
  return new GolemError(failure.code as ErrorCode, failure.message);
}

/** The chunks a run has kept, in order (the session's records must be loaded). */
export function* chunksOf(view: { collection(name: 'run_event'): ReadonlyMap<string, RunEventChunk> }, runId: string, from = 0): Generator<RunEventChunk> {
  const events = view.collection('run_event');
  for (let n = from; ; n++) {
    const chunk = events.get(chunkKey(runId, n));
    if (chunk === undefined) return;
    yield chunk;
  }
}

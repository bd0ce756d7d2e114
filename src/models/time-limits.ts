/**
 * Time limits on a model call. A provider that stops sending, or an answer that never
 * ends, must not hold a run (and its session) forever: the call is cancelled and fails
 * with MODEL_TIMEOUT, whatever the adapter does with its signal.
 */
import { GolemError } from '../core/errors.js';
import type { StreamPart } from './model-adapter.js';

export interface ModelTimeLimits {
  /** The longest wait for the next part of the stream, first part included (default 120 s: a reasoning model can think quietly for a while). */
  idleTimeoutMs?: number;
  /** The longest a whole call may take (default 15 min). */
  timeoutMs?: number;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
export const DEFAULT_TIMEOUT_MS = 15 * 60_000;

/**
 * Streams what `start` streams, cancelling it (through the signal it is given) and failing
 * with MODEL_TIMEOUT when a limit passes, or with MODEL_ABORTED as soon as `signal` aborts.
 */
export async function* withTimeLimits(
  start: (signal: AbortSignal) => AsyncIterable<StreamPart>,
  limits: ModelTimeLimits & { signal?: AbortSignal },
): AsyncGenerator<StreamPart> {
  const idleMs = checked('idleTimeoutMs', limits.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
  const totalMs = checked('timeoutMs', limits.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const outer = limits.signal;
  const controller = new AbortController();
  // One promise settles when a limit passes or the caller aborts; each part races it (timers re-armed, not re-made).
  let stop: (why: 'idle' | 'total' | 'aborted') => void = () => undefined;
  const stopped = new Promise<'idle' | 'total' | 'aborted'>((resolve) => (stop = resolve));
  const onAbort = () => {
    controller.abort(outer?.reason);
    stop('aborted');
  };
  if (outer?.aborted === true) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  // The idle limit counts only while waiting for the model, not while the caller handles a part.
  let waiting = false;
  const idle = setTimeout(() => (waiting ? stop('idle') : idle.refresh()), idleMs);
  const total = setTimeout(() => stop('total'), totalMs);
  // A caller that drops the stream without closing it must not keep the process alive for the limits' sake.
  idle.unref();
  total.unref();
  const iterator = start(controller.signal)[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      idle.refresh(); // the wait for the next part starts now
      waiting = true;
      const next = iterator.next();
      next.catch(() => undefined); // when a limit wins the race, the adapter's late failure is nobody's to hear
      const first = await Promise.race([next, stopped]);
      waiting = false;
      if (first === 'aborted') throw new GolemError('MODEL_ABORTED', 'the model call was cancelled');
      if (first === 'idle' || first === 'total') {
        controller.abort(new Error('time limit'));
        throw first === 'idle'
          ? new GolemError('MODEL_TIMEOUT', `the model sent nothing for ${idleMs} ms, so the call was cancelled (idleTimeoutMs)`, {
              details: { idleTimeoutMs: idleMs },
            })
          : new GolemError('MODEL_TIMEOUT', `the model call took longer than ${totalMs} ms, so it was cancelled (timeoutMs)`, {
              details: { timeoutMs: totalMs },
            });
      }
      if (first.done === true) {
        finished = true;
        return;
      }
      yield first.value;
    }
  } finally {
    clearTimeout(idle);
    clearTimeout(total);
    outer?.removeEventListener('abort', onAbort);
    // Left early (a limit, a cancellation, or the consumer stopped): let the adapter close its stream, without waiting on it.
    if (!finished) iterator.return?.()?.catch(() => undefined);
  }
}

function checked(name: string, ms: number): number {
  // Node's timers take at most 2^31 - 1 ms (about 24.8 days); a longer one would fire at once.
  if (!(ms > 0) || ms > 2_147_483_647) throw new GolemError('INVALID_ARGUMENT', `${name} must be a number of milliseconds from 1 to 2147483647, not ${ms}`);
  return ms;
}

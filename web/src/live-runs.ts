/**
 * What the runs stream before the session's turns are read again: text messages and tool
 * calls, by run. Message and tool call ids are `<runId>:…`, which ties each event to its run
 * and so to the session (RUN_STARTED's threadId).
 */
import type { SocketEvent } from './types.js';

/** `endedAt`: when its TEXT_MESSAGE_END or TOOL_CALL_RESULT came (by then the session has it as a turn). */
export type LiveItem =
  | { kind: 'text'; id: string; text: string; endedAt: number | null }
  | { kind: 'tool'; id: string; name: string; args: string; result: string | null; endedAt: number | null };

export interface LiveRun {
  runId: string;
  threadId: string;
  items: LiveItem[];
  startedAt: number;
  /** When RUN_FINISHED came; null while it runs. */
  finishedAt: number | null;
}

export type LiveRuns = Record<string, LiveRun>;

export function runIdOf(id: string): string {
  const colon = id.indexOf(':');
  return colon === -1 ? id : id.slice(0, colon);
}

export function startRun(runs: LiveRuns, runId: string, threadId: string): LiveRuns {
  if (runs[runId] !== undefined) return runs;
  return { ...runs, [runId]: { runId, threadId, items: [], startedAt: Date.now(), finishedAt: null } };
}

export function finishRun(runs: LiveRuns, runId: string): LiveRuns {
  const run = runs[runId];
  return run === undefined ? runs : { ...runs, [runId]: { ...run, finishedAt: run.finishedAt ?? Date.now() } };
}

/** Drops the runs of a thread for which `drop` is true. */
export function dropRuns(runs: LiveRuns, threadId: string, drop: (run: LiveRun) => boolean): LiveRuns {
  const out: LiveRuns = {};
  for (const [id, run] of Object.entries(runs)) if (run.threadId !== threadId || !drop(run)) out[id] = run;
  return out;
}

/** Drops the items of a thread's runs that ended before `before`: a read begun after that holds them as turns. */
export function dropEnded(runs: LiveRuns, threadId: string, before: number): LiveRuns {
  const out: LiveRuns = {};
  for (const [id, run] of Object.entries(runs)) {
    out[id] = run.threadId !== threadId ? run : { ...run, items: run.items.filter((i) => i.endedAt === null || i.endedAt > before) };
  }
  return out;
}

/** Applies a TEXT_MESSAGE_* / TOOL_CALL_* event to its run; events of unknown runs are ignored. */
export function applyRunEvent(runs: LiveRuns, event: SocketEvent): LiveRuns {
  // TOOL_CALL_RESULT carries a messageId of its own: a tool call's events go by toolCallId.
  const id = 'toolCallId' in event ? event.toolCallId : 'messageId' in event ? event.messageId : null;
  if (id === null) return runs;
  const run = runs[runIdOf(id)];
  if (run === undefined) return runs;
  const items = run.items;
  let next: LiveItem[] | null = null;
  switch (event.type) {
    case 'TEXT_MESSAGE_START':
      if (!items.some((i) => i.id === id)) next = [...items, { kind: 'text', id, text: '', endedAt: null }];
      break;
    case 'TEXT_MESSAGE_CONTENT': {
      const known = items.some((i) => i.id === id);
      const base: LiveItem[] = known ? items : [...items, { kind: 'text', id, text: '', endedAt: null }];
      next = base.map((i) => (i.id === id && i.kind === 'text' ? { ...i, text: i.text + event.delta } : i));
      break;
    }
    case 'TOOL_CALL_START':
      next = [...items, { kind: 'tool', id, name: event.toolCallName, args: '', result: null, endedAt: null }];
      break;
    case 'TOOL_CALL_ARGS':
      next = items.map((i) => (i.id === id && i.kind === 'tool' ? { ...i, args: i.args + event.delta } : i));
      break;
    case 'TEXT_MESSAGE_END':
      next = items.map((i) => (i.id === id ? { ...i, endedAt: Date.now() } : i));
      break;
    case 'TOOL_CALL_RESULT':
      next = items.map((i) => (i.id === id && i.kind === 'tool' ? { ...i, result: event.content, endedAt: Date.now() } : i));
      break;
    default:
      break;
  }
  return next === null ? runs : { ...runs, [run.runId]: { ...run, items: next } };
}

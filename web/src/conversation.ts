/**
 * A session's path as the chat shows it: each tool call beside its result (recorded in a
 * later turn), result turns folded into their calls, system turns as notices, what each
 * answer replies to (to regenerate it), the session's tokens and cost, and how it ended.
 */
import type { TurnView } from '../../src/serve/api-types.js';
import type { ToolResultText } from './tool-view.js';
import type { UIInstance } from './types.js';

export type Entry =
  | { type: 'turn'; turn: TurnView; results: ReadonlyMap<string, ToolResultText>; replyTo: TurnView | null }
  | { type: 'notice'; turn: TurnView }
  /** Results whose calls are not on the path (they are shown on their own). */
  | { type: 'results'; turn: TurnView; results: { callId: string; text: string; isError: boolean }[] };

/** How the path ends when no answer follows the last message (and no run is going). */
export interface Unanswered {
  status: 'stopped' | 'unanswered';
  /** The message to ask again (its text sent as a new version of it). */
  retry: TurnView | null;
}

export interface Totals {
  inputTokens: number;
  outputTokens: number;
  /** Null when no answer has a known price. */
  cost: number | null;
  answers: number;
}

export interface Conversation {
  entries: Entry[];
  totals: Totals;
  unanswered: Unanswered | null;
}

/** `stoppedAt`: the last turn's id when this page's user stopped the run (nothing on record says a run was stopped before it answered). */
export function conversationOf(turns: readonly TurnView[], running: boolean, stoppedAt: string | null = null): Conversation {
  const results = new Map<string, ToolResultText>();
  const calls = new Set<string>();
  for (const turn of turns) {
    for (const r of turn.toolResults) results.set(r.callId, { text: r.text, isError: r.isError });
    for (const c of turn.toolCalls) calls.add(c.callId);
  }
  const entries: Entry[] = [];
  const totals: Totals = { inputTokens: 0, outputTokens: 0, cost: null, answers: 0 };
  let asked: TurnView | null = null;
  for (const turn of turns) {
    if (turn.usage !== null) {
      totals.inputTokens += turn.usage.inputTokens;
      totals.outputTokens += turn.usage.outputTokens;
      if (turn.usage.cost !== null) totals.cost = (totals.cost ?? 0) + turn.usage.cost;
      totals.answers++;
    }
    if (turn.kind === 'notice') {
      entries.push({ type: 'notice', turn });
      continue;
    }
    if (turn.kind === 'results') {
      const orphans = turn.toolResults.filter((r) => !calls.has(r.callId));
      // Results the agent wrote as text (text mode) have no calls to sit under: shown as they are.
      if (orphans.length > 0 || (turn.toolResults.length === 0 && turn.text !== '')) entries.push({ type: 'results', turn, results: orphans });
      continue;
    }
    if (turn.role === 'user') asked = turn;
    entries.push({ type: 'turn', turn, results, replyTo: null });
  }
  // An answer is regenerated from its last turn (the one before the next message, or the path's end).
  let next: TurnView | undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as Entry;
    if (entry.type !== 'turn') continue;
    if (entry.turn.role === 'assistant' && (next === undefined || next.role === 'user')) entries[i] = { ...entry, replyTo: askedBefore(entries, i) };
    next = entry.turn;
  }
  return { entries, totals, unanswered: running ? null : unansweredOf(turns, asked, stoppedAt) };
}

function askedBefore(entries: readonly Entry[], at: number): TurnView | null {
  for (let i = at - 1; i >= 0; i--) {
    const entry = entries[i] as Entry;
    if (entry.type === 'turn' && entry.turn.role === 'user') return entry.turn;
  }
  return null;
}

function unansweredOf(turns: readonly TurnView[], asked: TurnView | null, stoppedAt: string | null): Unanswered | null {
  const last = turns.at(-1);
  if (last === undefined || last.kind === 'notice' || last.role === 'assistant') return null;
  if (last.kind === 'results') {
    const stopped = last.toolResults.some((r) => r.text === 'Not run: the user stopped the run.');
    return { status: stopped ? 'stopped' : 'unanswered', retry: asked };
  }
  return { status: last.id === stoppedAt ? 'stopped' : 'unanswered', retry: last };
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** "1.2K tokens · $0.0042": an answer's or a session's use. */
export function usageText(inputTokens: number, outputTokens: number, cost: number | null): string {
  const tokens = `${compact.format(inputTokens + outputTokens)} tokens`;
  return cost === null ? tokens : `${tokens} · ${costText(cost)}`;
}

export function costText(cost: number): string {
  return `$${cost === 0 ? '0' : cost < 0.01 ? cost.toFixed(4) : cost.toFixed(2)}`;
}

/** A click on a model-built UI, in the form's words: its name, and each value under its field's label (an option's label for its value). */
export interface UiActionView {
  action: string;
  form: string;
  values: { label: string; value: string }[];
}

export function uiActionView(action: NonNullable<TurnView['uiAction']>, instance: UIInstance | undefined): UiActionView {
  const fields = new Map((instance?.blocks ?? []).flatMap((b) => b.props?.fields ?? []).map((f) => [f.key, f]));
  const values = Object.entries(action.values)
    .filter(([, v]) => v !== '' && v !== null && v !== undefined)
    .map(([key, v]) => {
      const field = fields.get(key);
      const option = field?.options?.find((o) => o.value === v);
      const value = option !== undefined ? option.label : typeof v === 'boolean' ? (v ? 'yes' : 'no') : typeof v === 'string' ? v : JSON.stringify(v);
      return { label: field?.label ?? key, value };
    });
  return { action: action.label, form: instance?.meta.pageKey ?? action.instanceId, values };
}

/** The same in a line: "Clicked Sign up on signup: Name: Ada, Age: 36". */
export function uiActionText(view: UiActionView): string {
  return `Clicked ${view.action} on ${view.form}${view.values.length === 0 ? '' : `: ${view.values.map((v) => `${v.label}: ${v.value}`).join(', ')}`}`;
}

/**
 * The model-built UIs on the page: the socket's store of instances, what the user typed and
 * not yet sent, which instance is sending an action, and the refusals. An instance is answered
 * when a state event touches it (or after SENDING_TIMEOUT, an action that changes nothing);
 * from then on it is sent, no longer live, until the model changes it again.
 */
import { useRef, useState } from 'preact/hooks';
import { BLOCK_DATA_KEYS, countToSend, showsCountInput } from './block-data.js';
import { collectValues, dropCovered, fieldProblems, INPUT_TYPES, namedField, type InstanceEdits, type RawEdit } from './form-values.js';
import type { ReconnectingSocket } from './socket.js';
import type { SocketEvent, UIAction, UIInstance, UiCatalog } from './types.js';
import { inputTypes } from './ui-context.js';
import { emptyStore, type StoreUpdate, type UiStore } from './ui-store.js';
import type { Notify } from './use-session.js';

/** How long an action shows "sending…" when no state event answers it (an action without fields changes nothing). */
const SENDING_TIMEOUT = 8000;

export interface Forms {
  ui: UiStore;
  edits: Record<string, InstanceEdits>;
  /** The count inputs' text as typed (a block with showCountInput), by instance: sent with the next action. */
  counts: Record<string, string>;
  sending: Record<string, boolean>;
  /** Instances whose action the user sent and the model has not changed since. */
  sent: Record<string, boolean>;
  errors: Record<string, string>;
  /** Why the last click was not sent, by instance and field key (shown under each field). */
  fieldErrors: Record<string, Record<string, string>>;
  /** The field to bring into view and focus (the first one a click was stopped by), counted so the same field can be asked for again. */
  reveal: Reveal | null;
  /** The store as of now (socket handlers run between renders). */
  current: () => UiStore;
  /** After a state event: instances that were sending are answered; drop the edits the server now holds. */
  settle: (update: StoreUpdate) => void;
  /** A RUN_ERROR that refuses the last UI_ACTION: shown on its instance; false if it is not one. */
  refused: (event: Extract<SocketEvent, { type: 'RUN_ERROR' }>) => boolean;
  editField: (instanceId: string, key: string, value: RawEdit) => void;
  editCount: (instanceId: string, text: string) => void;
  runAction: (instanceId: string, actionId: string) => void;
}

/** A field a card opens its dialog or tab for, and focuses. */
export interface Reveal {
  instanceId: string;
  key: string;
  seq: number;
}

export function useForms(socket: { readonly current: ReconnectingSocket | null }, notify: Notify, catalog: UiCatalog): Forms {
  const [ui, setUi] = useState<UiStore>(emptyStore);
  const [edits, setEdits] = useState<Record<string, InstanceEdits>>({});
  const [counts, setCounts] = useState<Record<string, string>>({});
  const [sending, setSending] = useState<Record<string, boolean>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [fieldErrors, setFieldErrors] = useState<Record<string, Record<string, string>>>({});
  const [reveal, setReveal] = useState<Reveal | null>(null);
  /** Each sent instance as it was once the click was applied (JSON): a change since is the model's. Kept for reloads. */
  const [sentAs, setSentAs] = useState<Record<string, string>>(readSent);
  const uiRef = useRef(ui);
  const sendingRef = useRef(new Set<string>());
  /** Instances whose last click runs a handler (the server changes the state; no agent is asked). */
  const handlingRef = useRef(new Set<string>());
  /** The instance of the last UI_ACTION not yet answered: a RUN_ERROR then is its refusal. */
  const pendingAction = useRef<string | null>(null);

  const showSending = () => setSending(Object.fromEntries([...sendingRef.current].map((id) => [id, true])));
  const stopSending = (id: string) => {
    sendingRef.current.delete(id);
    showSending();
  };
  const clearError = (id: string) =>
    setErrors((prev) => {
      if (prev[id] === undefined) return prev;
      const next = { ...prev };
      delete next[id];
      return next;
    });

  const markSent = (ids: readonly string[], store: UiStore) =>
    setSentAs((prev) => {
      const next: Record<string, string> = {};
      // What the model changed since is live again: forgotten.
      for (const [id, as] of Object.entries(prev)) if (JSON.stringify(store.state.instances[id] ?? null) === as) next[id] = as;
      for (const id of ids) next[id] = JSON.stringify(store.state.instances[id] ?? null);
      keepSent(next);
      return next;
    });

  /** The edits and counts the server now holds are its own again. */
  const dropHeld = (ids: readonly string[], store: UiStore) => {
    setEdits((prev) => {
      const next = { ...prev };
      for (const id of ids) {
        const rest = dropCovered(store.state.instances[id], prev[id]);
        if (rest === undefined) delete next[id];
        else next[id] = rest;
      }
      return next;
    });
    setCounts((prev) => {
      const next = { ...prev };
      for (const id of ids) if (Object.hasOwn(store.state.instances[id]?.state?.runtime ?? {}, BLOCK_DATA_KEYS.showCountInput)) delete next[id];
      return next;
    });
  };

  const settle = (update: StoreUpdate) => {
    uiRef.current = update.store;
    setUi(update.store);
    if (update.resync) socket.current?.send({ type: 'SNAPSHOT_REQUEST' });
    // A click a handler answered: the instance stays live (the agent was not asked).
    const handledIds = update.touchedIds.filter((id) => handlingRef.current.has(id) && !sendingRef.current.has(id));
    const answeredIds = update.touchedIds.filter((id) => sendingRef.current.has(id));
    for (const id of [...handledIds, ...answeredIds]) {
      handlingRef.current.delete(id);
      sendingRef.current.delete(id);
      if (pendingAction.current === id) pendingAction.current = null;
    }
    if (handledIds.length + answeredIds.length === 0) return;
    if (answeredIds.length > 0) {
      showSending();
      markSent(answeredIds, update.store);
    }
    dropHeld([...handledIds, ...answeredIds], update.store);
  };

  const refused = (event: Extract<SocketEvent, { type: 'RUN_ERROR' }>) => {
    const instanceId = pendingAction.current;
    // A refused UI_ACTION's RUN_ERROR names no run; a run's does.
    if (instanceId === null || event.runId !== undefined) return false;
    // The UI_ACTION was refused: nothing of it was applied. What the user typed stays, to be corrected and sent again
    // (the snapshot that follows is the server's state, under the edits; no longer this click's answer).
    pendingAction.current = null;
    handlingRef.current.delete(instanceId);
    stopSending(instanceId);
    setErrors((prev) => ({ ...prev, [instanceId]: `${event.code ?? 'REFUSED'}: ${event.message}` }));
    const instance = uiRef.current.state.instances[instanceId];
    const named = instance === undefined ? undefined : namedField(instance, event.code, event.message);
    if (named !== undefined) {
      setFieldErrors((prev) => ({ ...prev, [instanceId]: { ...prev[instanceId], [named.key]: sentence(named.problem) } }));
      setReveal((prev) => ({ instanceId, key: named.key, seq: (prev?.seq ?? 0) + 1 }));
    }
    notify(event.message, 'error', event.code);
    return true;
  };

  const editField = (instanceId: string, key: string, value: RawEdit) => {
    setEdits((prev) => ({ ...prev, [instanceId]: { ...prev[instanceId], [key]: value } }));
    clearError(instanceId);
    // The field's error goes once it is changed; the next click checks it again.
    setFieldErrors((prev) => {
      if (prev[instanceId]?.[key] === undefined) return prev;
      const rest = { ...prev[instanceId] };
      delete rest[key];
      return { ...prev, [instanceId]: rest };
    });
  };

  const editCount = (instanceId: string, text: string) => {
    setCounts((prev) => ({ ...prev, [instanceId]: text }));
    clearError(instanceId);
  };

  const runAction = (instanceId: string, actionId: string) => {
    const instance = uiRef.current.state.instances[instanceId];
    if (instance === undefined) return;
    const action = findAction(instance, actionId);
    if (action === undefined) return;
    const isInput = inputTypes(catalog, INPUT_TYPES);
    // The fields' rules, as the server checks them again: a click that breaks one is not sent.
    const problems = fieldProblems(instance, edits[instanceId], isInput, action.validate !== false);
    setFieldErrors((prev) => ({ ...prev, [instanceId]: Object.fromEntries(Object.entries(problems).map(([key, p]) => [key, sentence(p)])) }));
    const wrong = Object.keys(problems).length;
    const first = Object.keys(problems)[0];
    if (first !== undefined) {
      // The first field to change is brought into view (its dialog reopened, its tab chosen) and focused.
      setReveal((prev) => ({ instanceId, key: first, seq: (prev?.seq ?? 0) + 1 }));
      setErrors((prev) => ({
        ...prev,
        [instanceId]: wrong === 1 ? 'One field needs a change: see the note under it.' : `${wrong} fields need a change: see the notes under them.`,
      }));
      return;
    }
    const values = collectValues(instance, edits[instanceId], isInput);
    const typed = counts[instanceId];
    const count = countToSend(instance, typed);
    // A count typed that is no whole number is not sent as nothing: the user is told.
    if (count === undefined && typed !== undefined && typed.trim() !== '' && showsCountInput(instance)) {
      setErrors((prev) => ({ ...prev, [instanceId]: 'The count is a whole number, 0 or more.' }));
      return;
    }
    if (socket.current?.send({ type: 'UI_ACTION', instanceId, actionId, values, ...(count !== undefined && { count }) }) !== true) {
      notify('Not connected: the action was not sent.', 'error');
      return;
    }
    pendingAction.current = instanceId;
    clearError(instanceId);
    if (action.handler !== undefined) {
      handlingRef.current.add(instanceId);
      setTimeout(() => {
        handlingRef.current.delete(instanceId);
        if (pendingAction.current === instanceId) pendingAction.current = null;
      }, SENDING_TIMEOUT);
      return;
    }
    sendingRef.current.add(instanceId);
    setSending((prev) => ({ ...prev, [instanceId]: true }));
    setTimeout(() => {
      if (!sendingRef.current.has(instanceId)) return;
      if (pendingAction.current === instanceId) pendingAction.current = null;
      stopSending(instanceId);
      markSent([instanceId], uiRef.current);
    }, SENDING_TIMEOUT);
  };

  const sent = Object.fromEntries(
    Object.entries(sentAs).flatMap(([id, as]) => {
      const instance = ui.state.instances[id];
      return instance !== undefined && JSON.stringify(instance) === as ? [[id, true]] : [];
    }),
  );

  return { ui, edits, counts, sending, sent, errors, fieldErrors, reveal, current: () => uiRef.current, settle, refused, editField, editCount, runAction };
}

/** An action of the instance or of one of its blocks. */
function findAction(instance: UIInstance, actionId: string): UIAction | undefined {
  return [...(instance.actions ?? []), ...(instance.blocks ?? []).flatMap((block) => block.props?.actions ?? [])].find((a) => a.id === actionId);
}

/** A rule's words ("at least 3") as a note under a field ("At least 3."). */
const sentence = (problem: string) => `${problem.charAt(0).toUpperCase()}${problem.slice(1)}${/[.!?]$/.test(problem) ? '' : '.'}`;

const SENT_KEY = 'golem.sent';

function readSent(): Record<string, string> {
  try {
    const kept = JSON.parse(sessionStorage.getItem(SENT_KEY) ?? '{}') as unknown;
    if (kept === null || typeof kept !== 'object' || Array.isArray(kept)) return {};
    return Object.fromEntries(Object.entries(kept).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

function keepSent(sent: Record<string, string>): void {
  try {
    sessionStorage.setItem(SENT_KEY, JSON.stringify(sent));
  } catch {
    // Full or refused: a reload shows these forms live again, as the model left them.
  }
}

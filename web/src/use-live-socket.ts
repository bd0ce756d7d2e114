/**
 * The page's socket: what each event changes (the UI store, what runs stream, the worker tree's
 * live state, notices), and what is read again after it or after a reconnect.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { applyRunEvent, finishRun, startRun } from './live-runs.js';
import { ReconnectingSocket, socketUrl, type ConnectionState } from './socket.js';
import type { SocketEvent } from './types.js';
import { applyDelta, applySnapshot, newInstances, type StoreUpdate } from './ui-store.js';
import type { Forms } from './use-forms.js';
import type { SessionState } from './use-session.js';

export interface LiveSocketHandlers {
  /** A diff the agent asked to show (golem.diff). */
  onDiff: (shown: { title: string; diff: string }) => void;
}

export function useLiveSocket(
  token: string,
  socketRef: { current: ReconnectingSocket | null },
  session: SessionState,
  forms: Forms,
  handlers: LiveSocketHandlers,
): ConnectionState {
  const [connection, setConnection] = useState<ConnectionState>('connecting');
  const { openRef, setLive, loadState, loadDetail, notify } = session;

  const onRunError = (event: Extract<SocketEvent, { type: 'RUN_ERROR' }>) => {
    if (forms.refused(event)) return;
    notify(event.message, 'error', event.code);
    if (event.runId !== undefined) setLive((runs) => finishRun(runs, event.runId as string));
    // Which run failed the event may not say: read again what is running.
    void loadState();
    void loadDetail();
  };

  const onCustom = (event: Extract<SocketEvent, { type: 'CUSTOM' }>) => {
    switch (event.name) {
      case 'golem.changed': {
        const topics = event.value.topics ?? [];
        if (topics.some((t) => t === 'sessions' || t === 'approvals' || t === 'clearance')) void loadState();
        const open = openRef.current;
        if (open !== null && (event.value.sessionIds ?? []).includes(open)) void loadDetail();
        break;
      }
      case 'golem.status':
        notify(event.value.text, event.value.level);
        break;
      case 'golem.progress': {
        const value = event.value;
        session.setProgress((prev) => ({ ...prev, [value.id]: value }));
        break;
      }
      case 'golem.worker': {
        // Times on the server's clock, moved onto this browser's (their clocks may differ).
        const skew = Date.now() - ((event as { timestamp?: number }).timestamp ?? Date.now());
        const value = { ...event.value, startedAt: event.value.startedAt + skew, endedAt: event.value.endedAt === null ? null : event.value.endedAt + skew };
        session.setWorkerStates((prev) => ({ ...prev, [value.id]: value }));
        break;
      }
      case 'golem.diff':
        handlers.onDiff(event.value);
        break;
      case 'golem.clearance-result':
        notify(event.value.message, event.value.ok ? 'info' : 'error');
        void loadState();
        break;
    }
  };

  /** A new instance is shown once the open session's detail names it as its own: read it again. */
  const settle = (update: StoreUpdate) => {
    const added = newInstances(forms.current(), update);
    forms.settle(update);
    if (added.length > 0 && openRef.current !== null) void loadDetail();
  };

  const onEvent = (event: SocketEvent) => {
    switch (event.type) {
      case 'STATE_SNAPSHOT':
        settle(applySnapshot(forms.current(), event.snapshot ?? { instances: {} }, event.metadata?.version ?? 0));
        break;
      case 'STATE_DELTA':
        settle(applyDelta(forms.current(), event.delta ?? [], event.metadata?.version ?? -1));
        break;
      case 'RUN_STARTED':
        setLive((runs) => startRun(runs, event.runId, event.threadId));
        if (event.threadId === openRef.current) void loadDetail();
        void loadState();
        break;
      case 'RUN_FINISHED':
        setLive((runs) => finishRun(runs, event.runId));
        if (event.threadId === openRef.current) void loadDetail();
        void loadState();
        break;
      case 'RUN_ERROR':
        onRunError(event);
        break;
      case 'TEXT_MESSAGE_START':
      case 'TEXT_MESSAGE_CONTENT':
      case 'TOOL_CALL_START':
      case 'TOOL_CALL_ARGS':
      case 'TOOL_CALL_END':
        setLive((runs) => applyRunEvent(runs, event));
        break;
      case 'TEXT_MESSAGE_END':
      case 'TOOL_CALL_RESULT':
        // The session has it as a turn now: a read shows it there, and the streamed copy goes.
        setLive((runs) => applyRunEvent(runs, event));
        void loadDetail();
        break;
      case 'CUSTOM':
        onCustom(event);
        break;
      default:
        break;
    }
  };
  const onEventRef = useRef(onEvent);
  onEventRef.current = onEvent;

  useEffect(() => {
    let reconnecting = false;
    const socket = new ReconnectingSocket(
      socketUrl(token),
      (event) => onEventRef.current(event),
      (state) => {
        setConnection(state);
        if (state === 'closed') {
          reconnecting = true;
          // A socket refused for a stale token (the server restarted) says nothing; the API says 401, which shows the token screen.
          if (navigator.onLine) void loadState();
        }
        // Whatever changed while the socket was down, read it again.
        if (state === 'open' && reconnecting) {
          void loadState();
          void loadDetail();
        }
      },
    );
    socketRef.current = socket;
    return () => socket.close();
  }, [token, loadState, loadDetail, socketRef]);

  return connection;
}

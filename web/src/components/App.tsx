import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ApprovalAnswerBody, ClearanceDecisionBody, ServeState, SessionDetail, WorkerState } from '../../../src/serve/api-types.js';
import { Api, ApiError } from '../api.js';
import { forgetToken, takeToken } from '../auth.js';
import { coalesce } from '../coalesce.js';
import { collectValues, dropCovered, type InstanceEdits, type RawEdit } from '../form-values.js';
import { applyRunEvent, dropEnded, dropRuns, finishRun, startRun, type LiveItem, type LiveRuns } from '../live-runs.js';
import { ReconnectingSocket, socketUrl, type ConnectionState } from '../socket.js';
import type { SocketEvent } from '../types.js';
import { applyDelta, applySnapshot, emptyStore, type StoreUpdate, type UiStore } from '../ui-store.js';
import { ApprovalDialog } from './ApprovalDialog.js';
import { Chat } from './Chat.js';
import { ClearancePanel } from './ClearancePanel.js';
import { DiffNotice } from './DiffNotice.js';
import { SessionList } from './SessionList.js';
import { ConnectionBadge, StatusLine, type Notice } from './StatusLine.js';
import { UiInstances } from './UiInstances.js';
import { WorkerTree, type ProgressValue } from './WorkerTree.js';

const SESSION_KEY = 'golem.session';
/** How long an action shows "sending…" when no state event answers it (an action without fields changes nothing). */
const SENDING_TIMEOUT = 8000;

export function App() {
  const [token] = useState(takeToken);
  const [unauthorized, setUnauthorized] = useState(false);
  const onUnauthorized = useCallback(() => {
    forgetToken();
    setUnauthorized(true);
  }, []);
  if (token === null || unauthorized) {
    return (
      <div class="gate">
        <div class="gate-card">
          <h1>Golem</h1>
          <p data-testid="status-line" class="status-line level-warning">
            {unauthorized ? 'The server refused the token. ' : ''}Open the address golem serve printed; it carries the token.
          </p>
        </div>
      </div>
    );
  }
  return <Workspace token={token} onUnauthorized={onUnauthorized} />;
}

function Workspace({ token, onUnauthorized }: { token: string; onUnauthorized: () => void }) {
  const [serve, setServe] = useState<ServeState | null>(null);
  const [openId, setOpenId] = useState<string | null>(() => sessionStorage.getItem(SESSION_KEY));
  const [detail, setDetail] = useState<SessionDetail | null>(null);
  const [loadingDetail, setLoadingDetail] = useState(false);
  const [live, setLive] = useState<LiveRuns>({});
  const [progress, setProgress] = useState<Record<string, ProgressValue>>({});
  const [workerStates, setWorkerStates] = useState<Record<string, WorkerState>>({});
  const [connection, setConnection] = useState<ConnectionState>('connecting');
  const [notice, setNotice] = useState<Notice | null>(null);
  const [ui, setUi] = useState<UiStore>(emptyStore);
  const [edits, setEdits] = useState<Record<string, InstanceEdits>>({});
  const [sending, setSending] = useState<Record<string, boolean>>({});
  const [uiErrors, setUiErrors] = useState<Record<string, string>>({});
  const [shownDiff, setShownDiff] = useState<{ title: string; diff: string } | null>(null);
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());

  // What socket handlers and async reads need now, not as of the render that made them.
  const openRef = useRef(openId);
  const serveRef = useRef(serve);
  serveRef.current = serve;
  const uiRef = useRef(ui);
  const sendingRef = useRef(new Set<string>());
  /** The instance of the last UI_ACTION not yet answered: a RUN_ERROR then is its refusal. */
  const pendingAction = useRef<string | null>(null);
  const socketRef = useRef<ReconnectingSocket | null>(null);

  const { api, notify, fail, loadState, loadDetail, open } = useMemo(() => {
    const api = new Api(token, onUnauthorized);
    const notify = (text: string, level: Notice['level'], code?: string) => setNotice(code === undefined ? { text, level } : { text, level, code });
    const fail = (error: unknown) => {
      if (error instanceof ApiError) {
        if (error.status !== 401) notify(error.message, 'error', error.code);
      } else notify(error instanceof Error ? error.message : String(error), 'error');
    };
    const loadState = coalesce(async () => {
      try {
        setServe(await api.state());
      } catch (error) {
        fail(error);
      }
    });
    const loadDetail = coalesce(async () => {
      const id = openRef.current;
      if (id === null) return setDetail(null);
      const began = Date.now();
      setLoadingDetail(true);
      try {
        const read = await api.session(id);
        if (openRef.current !== id) return;
        setDetail(read);
        // The read now holds what these runs streamed (or they stopped without saying so).
        setLive((runs) =>
          dropEnded(
            dropRuns(runs, id, (run) => (run.finishedAt !== null && run.finishedAt <= began) || (!read.running && run.startedAt < began)),
            id,
            began,
          ),
        );
      } catch (error) {
        if (openRef.current !== id) return;
        if (error instanceof ApiError && error.status === 404) {
          notify(`The session ${id} is not there any more.`, 'warning', error.code);
          open(serveRef.current?.sessions.find((s) => s.id !== id)?.id ?? null);
        } else fail(error);
      } finally {
        setLoadingDetail(false);
      }
    });
    function open(id: string | null) {
      openRef.current = id;
      setOpenId(id);
      if (id === null) sessionStorage.removeItem(SESSION_KEY);
      else sessionStorage.setItem(SESSION_KEY, id);
      setDetail(null);
      setProgress({});
      setWorkerStates({});
      void loadDetail();
    }
    return { api, notify, fail, loadState, loadDetail, open };
  }, [token, onUnauthorized]);
  const loadWorker = useCallback((id: string) => api.session(id), [api]);

  // Information fades; errors stay until dismissed or replaced.
  useEffect(() => {
    if (notice?.level !== 'info') return;
    const timer = setTimeout(() => setNotice(null), 6000);
    return () => clearTimeout(timer);
  }, [notice]);

  useEffect(() => {
    void loadState();
    void loadDetail();
  }, [loadState, loadDetail]);

  // With no session chosen, open the most recent.
  useEffect(() => {
    const first = serve?.sessions[0];
    if (openRef.current === null && first !== undefined) open(first.id);
  }, [serve, open]);

  /** After a state event: instances that were sending are answered; drop the edits the server now holds. */
  const settle = (update: StoreUpdate) => {
    uiRef.current = update.store;
    setUi(update.store);
    if (update.resync) socketRef.current?.send({ type: 'SNAPSHOT_REQUEST' });
    const answeredIds = update.touchedIds.filter((id) => sendingRef.current.has(id));
    if (answeredIds.length === 0) return;
    for (const id of answeredIds) {
      sendingRef.current.delete(id);
      if (pendingAction.current === id) pendingAction.current = null;
    }
    setSending(Object.fromEntries([...sendingRef.current].map((id) => [id, true])));
    setEdits((prev) => {
      const next = { ...prev };
      for (const id of answeredIds) {
        const rest = dropCovered(update.store.state.instances[id], prev[id]);
        if (rest === undefined) delete next[id];
        else next[id] = rest;
      }
      return next;
    });
  };

  const stopSending = (id: string) => {
    sendingRef.current.delete(id);
    setSending(Object.fromEntries([...sendingRef.current].map((i) => [i, true])));
  };

  const onRunError = (event: Extract<SocketEvent, { type: 'RUN_ERROR' }>) => {
    const refused = pendingAction.current;
    // A refused UI_ACTION's RUN_ERROR names no run; a run's does.
    if (refused !== null && event.runId === undefined) {
      // The UI_ACTION was refused: a snapshot follows and resets the values.
      pendingAction.current = null;
      stopSending(refused);
      setEdits((prev) => {
        const next = { ...prev };
        delete next[refused];
        return next;
      });
      setUiErrors((prev) => ({ ...prev, [refused]: `${event.code ?? 'REFUSED'}: ${event.message}` }));
      notify(event.message, 'error', event.code);
      return;
    }
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
        setProgress((prev) => ({ ...prev, [value.id]: value }));
        break;
      }
      case 'golem.worker': {
        // Times on the server's clock, moved onto this browser's (their clocks may differ).
        const skew = Date.now() - ((event as { timestamp?: number }).timestamp ?? Date.now());
        const value = { ...event.value, startedAt: event.value.startedAt + skew, endedAt: event.value.endedAt === null ? null : event.value.endedAt + skew };
        setWorkerStates((prev) => ({ ...prev, [value.id]: value }));
        break;
      }
      case 'golem.diff':
        setShownDiff(event.value);
        break;
      case 'golem.clearance-result':
        notify(event.value.message, event.value.ok ? 'info' : 'error');
        void loadState();
        break;
    }
  };

  const onEvent = (event: SocketEvent) => {
    switch (event.type) {
      case 'STATE_SNAPSHOT':
        settle(applySnapshot(uiRef.current, event.snapshot ?? { instances: {} }, event.metadata?.version ?? 0));
        break;
      case 'STATE_DELTA':
        settle(applyDelta(uiRef.current, event.delta ?? [], event.metadata?.version ?? -1));
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
  }, [token, loadState, loadDetail]);

  // Chat actions.
  const withOpen = async <T,>(work: (id: string) => Promise<T>): Promise<T | null> => {
    const id = openRef.current;
    if (id === null) return null;
    try {
      return await work(id);
    } catch (error) {
      fail(error);
      return null;
    }
  };
  const send = async (text: string) => {
    try {
      let id = openRef.current;
      // No session yet: the first message starts one.
      if (id === null) {
        id = (await api.createSession()).id;
        open(id);
      }
      const { runId } = await api.send(id, text);
      setNotice((n) => (n?.level === 'error' ? n : null)); // "Stopped." and the like were about the run before
      setLive((runs) => startRun(runs, runId, id));
      return true;
    } catch (error) {
      fail(error);
      return false;
    } finally {
      void loadDetail();
      void loadState();
    }
  };
  const stop = () =>
    void withOpen(async (id) => {
      const { stopped } = await api.stop(id);
      if (!stopped) notify('Nothing was running.', 'info');
      void loadDetail();
      void loadState();
    });
  const edit = async (turnId: string, text: string) => {
    const done = await withOpen(async (id) => {
      const { runId } = await api.edit(id, turnId, text);
      if (runId !== null) setLive((runs) => startRun(runs, runId, id));
      return true;
    });
    void loadDetail();
    return done === true;
  };
  const fork = (turnId: string) =>
    void withOpen(async (id) => {
      const created = await api.fork(id, turnId);
      open(created.id);
      void loadState();
      notify(`Forked into a new session (${created.label ?? 'Untitled'}).`, 'info');
    });
  const switchVersion = (turnId: string, direction: 'left' | 'right') =>
    void withOpen(async (id) => {
      await api.switchVersion(id, turnId, direction);
      void loadDetail();
    });
  const newSession = async () => {
    try {
      const created = await api.createSession();
      open(created.id);
      void loadState();
    } catch (error) {
      fail(error);
    }
  };

  // Model-built UIs.
  const editField = (instanceId: string, key: string, value: RawEdit) => {
    setEdits((prev) => ({ ...prev, [instanceId]: { ...prev[instanceId], [key]: value } }));
    setUiErrors((prev) => {
      if (prev[instanceId] === undefined) return prev;
      const next = { ...prev };
      delete next[instanceId];
      return next;
    });
  };
  const runAction = (instanceId: string, actionId: string) => {
    const instance = uiRef.current.state.instances[instanceId];
    if (instance === undefined) return;
    const values = collectValues(instance, edits[instanceId]);
    if (socketRef.current?.send({ type: 'UI_ACTION', instanceId, actionId, values }) !== true) {
      notify('Not connected: the action was not sent.', 'error');
      return;
    }
    pendingAction.current = instanceId;
    sendingRef.current.add(instanceId);
    setSending((prev) => ({ ...prev, [instanceId]: true }));
    setUiErrors((prev) => {
      const next = { ...prev };
      delete next[instanceId];
      return next;
    });
    setTimeout(() => {
      if (!sendingRef.current.has(instanceId)) return;
      if (pendingAction.current === instanceId) pendingAction.current = null;
      stopSending(instanceId);
    }, SENDING_TIMEOUT);
  };

  // Approvals and clearance.
  const approval = serve?.approvals.find((a) => !answered.has(a.id));
  const answer = async (body: ApprovalAnswerBody) => {
    if (approval === undefined) return;
    const id = approval.id;
    try {
      await api.answer(id, body);
      setAnswered((prev) => new Set(prev).add(id));
    } catch (error) {
      // Answered in another tab first: that answer stands, and this dialog goes.
      if (error instanceof ApiError && (error.status === 404 || error.code === 'APPROVAL_ANSWERED')) {
        setAnswered((prev) => new Set(prev).add(id));
        notify('Another tab answered this approval first.', 'info');
      } else fail(error);
    }
    void loadState();
  };
  const loadDiff = async (id: string) => {
    try {
      return (await api.clearanceDiff(id)).diff;
    } catch (error) {
      fail(error);
      return null;
    }
  };
  const decide = async (id: string, action: ClearanceDecisionBody['action']) => {
    try {
      const { message } = await api.decide(id, action);
      notify(message, 'info');
    } catch (error) {
      fail(error);
    }
    void loadState();
  };

  const openRuns = Object.values(live)
    .filter((run) => run.threadId === openId)
    .sort((a, b) => a.startedAt - b.startedAt);
  const running = (detail?.running ?? false) || (openId !== null && (serve?.running.includes(openId) ?? false)) || openRuns.some((r) => r.finishedAt === null);
  const streaming: LiveItem[] | null = openRuns.length > 0 ? openRuns.flatMap((r) => r.items) : running ? [] : null;
  const openSummary = serve?.sessions.find((s) => s.id === openId);
  const sessionLabel = detail?.session.label ?? openSummary?.label ?? 'Untitled';

  return (
    <div class="app">
      <header class="topbar" inert={approval !== undefined}>
        <span class="brand">Golem</span>
        <span class="muted small model">
          {serve === null ? '' : serve.model === null ? 'no model (read-only)' : `${serve.model.provider} · ${serve.model.modelId}`}
        </span>
        <span class="spacer" />
        <ConnectionBadge state={connection} />
      </header>
      <aside class="sidebar" aria-label="Sessions and workers" inert={approval !== undefined}>
        <SessionList sessions={serve?.sessions ?? []} openId={openId} running={serve?.running ?? []} onOpen={open} onNew={() => void newSession()} />
        {openId !== null && detail !== null && (
          <WorkerTree
            sessionId={openId}
            label={sessionLabel}
            running={running}
            workers={detail.workers}
            progress={progress}
            live={workerStates}
            loadSession={loadWorker}
          />
        )}
      </aside>
      <Chat
        detail={detail}
        loading={loadingDetail || (openId !== null && detail === null)}
        canCompose={serve !== null}
        streaming={streaming}
        running={running}
        disabledNote={serve !== null && serve.model === null ? 'No model: start golem serve with --model' : null}
        onSend={send}
        onStop={stop}
        onEdit={edit}
        onFork={fork}
        onSwitch={switchVersion}
        inert={approval !== undefined}
      />
      <aside class="side-panel" aria-label="Model-built UIs and clearance" inert={approval !== undefined}>
        {shownDiff !== null && <DiffNotice title={shownDiff.title} diff={shownDiff.diff} onClose={() => setShownDiff(null)} />}
        <UiInstances
          instances={ui.state.instances}
          hidden={detail?.otherUiInstances ?? []}
          touched={ui.touched}
          edits={edits}
          sending={sending}
          errors={uiErrors}
          onEdit={editField}
          onAction={runAction}
        />
        <ClearancePanel items={serve?.clearance ?? []} loadDiff={loadDiff} decide={decide} />
      </aside>
      <StatusLine notice={notice} onDismiss={() => setNotice(null)} />
      {approval !== undefined && <ApprovalDialog approval={approval} onAnswer={answer} />}
    </div>
  );
}

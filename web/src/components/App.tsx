import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ApprovalAnswerBody, ClearanceDecisionBody, MergeBody, TaskDecisionBody } from '../../../src/serve/api-types.js';
import { ApiError } from '../api.js';
import { imageLoader } from '../block-data.js';
import { plainText } from '../markdown.js';
import { forgetToken, takeToken } from '../auth.js';
import type { LiveItem } from '../live-runs.js';
import type { ReconnectingSocket } from '../socket.js';
import { shownInstances } from '../ui-store.js';
import { chatActions } from '../use-chat-actions.js';
import { UiContext } from '../ui-context.js';
import { useForms } from '../use-forms.js';
import { useUiCatalog } from '../use-ui-catalog.js';
import { useLiveSocket } from '../use-live-socket.js';
import { useEscapeToStop } from '../use-escape.js';
import { useSession } from '../use-session.js';
import { ApprovalDialog } from './ApprovalDialog.js';
import { Chat } from './Chat.js';
import { ClearancePanel } from './ClearancePanel.js';
import { CompareView } from './CompareView.js';
import { DiffNotice } from './DiffNotice.js';
import { PanelTabs, type Pane } from './PanelTabs.js';
import { SessionList } from './SessionList.js';
import { ConnectionBadge, StatusLine } from './StatusLine.js';
import { ThemeToggle } from './ThemeToggle.js';
import { UiInstances } from './UiInstances.js';
import { WorkerTree } from './WorkerTree.js';
import { PlansContext, TasksPanel, type PlansServices } from './PlanView.js';

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
  const session = useSession(token, onUnauthorized);
  const { api, serve, openId, detail, loadingDetail, live, progress, workerStates, notice, setNotice, notify, fail, loadState, open } = session;
  const socketRef = useRef<ReconnectingSocket | null>(null);
  const catalog = useUiCatalog(api);
  const forms = useForms(socketRef, notify, catalog);
  const [shownDiff, setShownDiff] = useState<{ title: string; diff: string } | null>(null);
  const [comparing, setComparing] = useState(false);
  const compare = useCallback((a: string, b: string) => api.compare(a, b), [api]);
  const merge = async (into: string, body: MergeBody) => {
    await api.merge(into, body);
    notify('Merged: the branch is in the conversation now.', 'info');
  };
  const connection = useLiveSocket(token, socketRef, session, forms, { onDiff: setShownDiff });
  const { send, unsend, stop, edit, fork, switchVersion, newSession } = chatActions(session);
  const loadWorker = useCallback((id: string) => api.session(id), [api]);
  const loadImage = useMemo(() => imageLoader((instanceId, sha256) => api.uiImage(instanceId, sha256)), [api]);
  const uiServices = useMemo(
    () => ({
      catalog,
      loadImage,
      upload: (instanceId: string, key: string, file: File) => api.uploadUiFile(instanceId, key, file),
      discard: (instanceId: string, sha256: string) => api.discardUiFile(instanceId, sha256),
    }),
    [catalog, loadImage, api],
  );
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  /** The pane a phone shows (one at a time); wider screens show them all. */
  const [pane, setPane] = useState<Pane>('chat');
  const openSession = (id: string) => {
    open(id);
    setPane('chat');
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
  // The open session's plans; a decision on one is read back with the session (its golem.changed).
  const plans: PlansServices = {
    tasks: detail?.tasks ?? [],
    decide: async (taskId: string, body: TaskDecisionBody) => {
      try {
        await api.decideTask(taskId, body);
      } catch (error) {
        fail(error);
      }
    },
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
  // A label is the first message's words: shown without its markdown marks wherever it names the conversation.
  const sessionLabel = plainText(detail?.session.label ?? openSummary?.label ?? 'Untitled');
  // The tab and the history's entries name the conversation.
  const title = openId === null ? 'Golem' : `${sessionLabel} · Golem`;
  useEffect(() => {
    document.title = title;
  }, [title]);
  useEscapeToStop(running && approval === undefined, stop);
  const formIds = shownInstances(forms.ui, detail?.uiInstances ?? []);
  const clearance = serve?.clearance ?? [];
  const runningWorkers = detail?.workers.filter((w) => (workerStates[w.id]?.status ?? w.status) === 'running').length ?? 0;

  return (
    <PlansContext.Provider value={plans}>
      <div class="app" data-pane={pane} data-wide-ui={formIds.some((id) => ['row', 'grid'].includes(forms.ui.state.instances[id]?.layout?.type ?? ''))}>
        <header class="topbar" inert={approval !== undefined}>
          <span class="brand">Golem</span>
          <span class="muted small model">
            {serve === null ? '' : serve.model === null ? 'no model (read-only)' : `${serve.model.provider} · ${serve.model.modelId}`}
          </span>
          <span class="spacer" />
          <ThemeToggle />
          <ConnectionBadge state={connection} />
        </header>
        <PanelTabs
          pane={pane}
          onPane={setPane}
          counts={{ forms: formIds.length, clearance: clearance.length, workers: runningWorkers }}
          attention={{ clearance: clearance.length > 0 }}
          inert={approval !== undefined}
        />
        <aside class="sidebar" aria-label="Sessions and workers" inert={approval !== undefined}>
          <SessionList
            sessions={serve?.sessions ?? []}
            openId={openId}
            running={serve?.running ?? []}
            onOpen={openSession}
            onNew={() => void newSession().then(() => setPane('chat'))}
            onCompare={() => setComparing(true)}
          />
          {(openId === null || detail === null) && <p class="muted small workers-none">Open a session: its workers show here.</p>}
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
          {openId !== null && detail !== null && <TasksPanel />}
        </aside>
        <Chat
          detail={detail}
          loading={loadingDetail || (openId !== null && detail === null)}
          canCompose={serve !== null}
          streaming={streaming}
          running={running}
          disabledNote={serve !== null && serve.model === null ? 'No model: start golem serve with --model' : null}
          onSend={send}
          onUnsend={unsend}
          onStop={stop}
          onEdit={edit}
          onFork={fork}
          onSwitch={switchVersion}
          instances={forms.ui.state.instances}
          commands={serve?.commands ?? []}
          inert={approval !== undefined}
        />
        {/* Focusable: it scrolls, and a sent form may hold nothing else a keyboard can reach. */}
        <aside class="side-panel" aria-label="Model-built UIs and clearance" inert={approval !== undefined} tabIndex={0}>
          {shownDiff !== null && <DiffNotice title={shownDiff.title} diff={shownDiff.diff} onClose={() => setShownDiff(null)} />}
          <ClearancePanel items={clearance} loadDiff={loadDiff} decide={decide} />
          <UiContext.Provider value={uiServices}>
            <UiInstances
              instances={forms.ui.state.instances}
              shown={formIds}
              touched={forms.ui.touched}
              edits={forms.edits}
              fieldErrors={forms.fieldErrors}
              reveal={forms.reveal}
              counts={forms.counts}
              sending={forms.sending}
              sent={forms.sent}
              errors={forms.errors}
              onEdit={forms.editField}
              onCount={forms.editCount}
              onAction={forms.runAction}
              loadImage={loadImage}
            />
          </UiContext.Provider>
        </aside>
        <StatusLine notice={notice} onDismiss={() => setNotice(null)} />
        {/* An approval comes first: the Compare dialog steps aside (it opens again once answered). */}
        {comparing && approval === undefined && (
          <CompareView
            sessions={serve?.sessions ?? []}
            first={openId}
            compare={compare}
            merge={merge}
            canSummarize={serve?.model != null}
            onClose={() => setComparing(false)}
          />
        )}
        {approval !== undefined && <ApprovalDialog approval={approval} onAnswer={answer} />}
      </div>
    </PlansContext.Provider>
  );
}

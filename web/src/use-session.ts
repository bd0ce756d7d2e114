/**
 * What the page reads from the server: its state (sessions, approvals, clearance, the model),
 * the open session's detail, what its runs stream meanwhile, and the notice in the status line.
 * Reads are coalesced: one in flight, and one more after it if asked meanwhile.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ServeState, SessionDetail, WorkerState } from '../../src/serve/api-types.js';
import { Api, ApiError } from './api.js';
import { coalesce } from './coalesce.js';
import { dropEnded, dropRuns, type LiveRuns } from './live-runs.js';
import type { Notice } from './components/StatusLine.js';
import type { ProgressValue } from './components/WorkerTree.js';
import { sessionInUrl, showSessionInUrl } from './session-url.js';

export type Notify = (text: string, level: Notice['level'], code?: string) => void;
type Setter<T> = (update: T | ((prev: T) => T)) => void;

export interface SessionState {
  api: Api;
  serve: ServeState | null;
  openId: string | null;
  /** The open session's id as of now (socket handlers and async reads run between renders). */
  openRef: { readonly current: string | null };
  detail: SessionDetail | null;
  loadingDetail: boolean;
  live: LiveRuns;
  setLive: Setter<LiveRuns>;
  progress: Record<string, ProgressValue>;
  setProgress: Setter<Record<string, ProgressValue>>;
  workerStates: Record<string, WorkerState>;
  setWorkerStates: Setter<Record<string, WorkerState>>;
  notice: Notice | null;
  setNotice: Setter<Notice | null>;
  notify: Notify;
  /** Shows an error the API gave (a 401 shows the token screen instead). */
  fail: (error: unknown) => void;
  loadState: () => Promise<void>;
  loadDetail: () => Promise<void>;
  /** Opens a session; `history`: 'push' when the user chose it (the default), 'replace' when the page did, 'none' when the address already says it. */
  open: (id: string | null, history?: 'push' | 'replace' | 'none') => void;
}

export function useSession(token: string, onUnauthorized: () => void): SessionState {
  const [serve, setServe] = useState<ServeState | null>(null);
  const [openId, setOpenId] = useState<string | null>(sessionInUrl);
  const [detail, setDetail] = useState<SessionDetail | null>(null);
  const [loadingDetail, setLoadingDetail] = useState(false);
  const [live, setLive] = useState<LiveRuns>({});
  const [progress, setProgress] = useState<Record<string, ProgressValue>>({});
  const [workerStates, setWorkerStates] = useState<Record<string, WorkerState>>({});
  const [notice, setNotice] = useState<Notice | null>(null);
  const openRef = useRef(openId);
  const serveRef = useRef(serve);
  serveRef.current = serve;

  const { api, notify, fail, loadState, loadDetail, open } = useMemo(() => {
    const api = new Api(token, onUnauthorized);
    const notify: Notify = (text, level, code) => setNotice(code === undefined ? { text, level } : { text, level, code });
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
          open(serveRef.current?.sessions.find((s) => s.id !== id)?.id ?? null, 'replace');
        } else fail(error);
      } finally {
        setLoadingDetail(false);
      }
    });
    function open(id: string | null, history: 'push' | 'replace' | 'none' = 'push') {
      // The open one again: read it, without blanking the chat meanwhile.
      if (id !== null && id === openRef.current) return void loadDetail();
      if (history !== 'none') showSessionInUrl(id, history);
      openRef.current = id;
      setOpenId(id);
      setDetail(null);
      setProgress({});
      setWorkerStates({});
      void loadDetail();
    }
    return { api, notify, fail, loadState, loadDetail, open };
  }, [token, onUnauthorized]);

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
    if (openRef.current === null && first !== undefined) open(first.id, 'replace');
  }, [serve, open]);

  // Back and forward: the session the address names now.
  useEffect(() => {
    const follow = () => {
      const id = sessionInUrl();
      if (id !== openRef.current) open(id ?? serveRef.current?.sessions[0]?.id ?? null, id === null ? 'replace' : 'none');
    };
    window.addEventListener('popstate', follow);
    return () => window.removeEventListener('popstate', follow);
  }, [open]);

  return {
    api,
    serve,
    openId,
    openRef,
    detail,
    loadingDetail,
    live,
    setLive,
    progress,
    setProgress,
    workerStates,
    setWorkerStates,
    notice,
    setNotice,
    notify,
    fail,
    loadState,
    loadDetail,
    open,
  };
}

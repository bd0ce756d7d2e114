/** What the user does to the open conversation: send (or queue, or steer), stop, edit, fork, switch versions, start another. */
import type { SendMessageBody } from '../../src/serve/api-types.js';
import { ApiError } from './api.js';
import { startRun } from './live-runs.js';
import type { SessionState } from './use-session.js';

export interface ChatActions {
  /** A message; during a run, `policy` says what becomes of it (queued for the run's end, or read before its next step). */
  send: (text: string, policy?: SendMessageBody['policy']) => Promise<boolean>;
  /** Takes back a message waiting for the open session's run. */
  unsend: (messageId: string) => void;
  stop: () => void;
  edit: (turnId: string, text: string) => Promise<boolean>;
  fork: (turnId: string) => void;
  switchVersion: (turnId: string, direction: 'left' | 'right') => void;
  newSession: () => Promise<void>;
}

export function chatActions(session: SessionState): ChatActions {
  const { api, openRef, open, fail, notify, setLive, setNotice, loadDetail, loadState } = session;
  const withOpen = async <T>(work: (id: string) => Promise<T>): Promise<T | null> => {
    const id = openRef.current;
    if (id === null) return null;
    try {
      return await work(id);
    } catch (error) {
      fail(error);
      return null;
    }
  };
  return {
    async send(text, policy) {
      try {
        let id = openRef.current;
        // No session yet: the first message starts one.
        if (id === null) {
          id = (await api.createSession()).id;
          open(id);
        }
        const sent = await api.send(id, text, policy);
        // Queued for the run that holds the session: the read below lists it under the composer.
        if (sent.queued !== undefined) return true;
        setNotice((n) => (n?.level === 'error' ? n : null)); // "Stopped." and the like were about the run before
        setLive((runs) => startRun(runs, sent.runId, id));
        return true;
      } catch (error) {
        fail(error);
        return false;
      } finally {
        void loadDetail();
        void loadState();
      }
    },
    unsend: (messageId) =>
      void withOpen(async (id) => {
        try {
          await api.unsend(id, messageId);
        } catch (error) {
          // Delivered (or taken back in another tab) meanwhile: the read below shows where it went.
          if (!(error instanceof ApiError && error.code === 'MESSAGE_NOT_FOUND')) throw error;
          notify('That message was no longer waiting: it was sent to the agent, or taken back elsewhere.', 'info');
        } finally {
          void loadDetail();
        }
      }),
    stop: () =>
      void withOpen(async (id) => {
        const { stopped } = await api.stop(id);
        if (!stopped) notify('Nothing was running.', 'info');
        void loadDetail();
        void loadState();
      }),
    async edit(turnId, text) {
      const done = await withOpen(async (id) => {
        const { runId } = await api.edit(id, turnId, text);
        if (runId !== null) setLive((runs) => startRun(runs, runId, id));
        return true;
      });
      void loadDetail();
      return done === true;
    },
    fork: (turnId) =>
      void withOpen(async (id) => {
        const created = await api.fork(id, turnId);
        open(created.id);
        void loadState();
        notify(`Forked into a new session (${created.label ?? 'Untitled'}).`, 'info');
      }),
    switchVersion: (turnId, direction) =>
      void withOpen(async (id) => {
        await api.switchVersion(id, turnId, direction);
        void loadDetail();
      }),
    async newSession() {
      try {
        const created = await api.createSession();
        open(created.id);
        void loadState();
      } catch (error) {
        fail(error);
      }
    },
  };
}

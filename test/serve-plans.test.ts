/**
 * A plan proposed in a `golem serve` run, decided on the page's Plans panel (`POST /api/tasks/:id`):
 * the run waiting in memory for the plan's approval takes the decision and goes on with the plan
 * as the user left it (before, the decision was recorded and the run waited on, forever).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { serve } from '../src/serve/index.js';
import type { ServeState, SessionSummary } from '../src/serve/api-types.js';
import { scriptedModel } from '../src/test/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('never came');
}

describe('golem serve: plans decided on the page', () => {
  for (const decision of ['accept', 'decline'] as const) {
    it(`a run waiting on its plan goes on once the page's Plans panel says ${decision}`, async () => {
      const ws = await createWorkspace();
      cleanups.push(() => ws.close());
      const told: string[] = [];
      const model = scriptedModel([
        { toolCalls: [{ name: 'propose_plan', input: { title: 'Ship the fix', steps: ['Fix it', 'Test it'] } }] },
        (prompt) => {
          const last = prompt.messages.at(-1);
          told.push(JSON.stringify(last?.content));
          return { text: 'Understood.' };
        },
      ]);
      const server = await serve(ws, { page: false, agent: { model, plans: true } });
      cleanups.push(() => server.close());
      const api = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> => {
        const res = await fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        return { status: res.status, json: (await res.json()) as T };
      };
      const session = (await api<SessionSummary>('POST', '/api/sessions', {})).json;
      await api('POST', `/api/sessions/${session.id}/messages`, { text: 'fix the bug' });
      // The plan waits like an approval (type 'plan'), its task proposed.
      const approval = await until(async () => (await api<ServeState>('GET', '/api/state')).json.approvals[0]);
      expect(approval).toMatchObject({ type: 'plan' });
      const [task] = ws.tasks.list({ sessionId: session.id });
      expect(task).toMatchObject({ status: 'proposed', title: 'Ship the fix' });
      const body = decision === 'accept' ? { action: 'accept', steps: ['Fix it', 'Test it', 'Tell the team'] } : { action: 'decline', reason: 'not now' };
      expect(await api('POST', `/api/tasks/${task!.id}`, body)).toMatchObject({ status: 200 });
      await server.settled(session.id);
      expect(model.calls).toHaveLength(2);
      expect((await api<ServeState>('GET', '/api/state')).json.approvals).toEqual([]);
      const after = ws.tasks.get(task!.id);
      if (decision === 'accept') {
        expect(after).toMatchObject({ status: 'accepted', steps: [{ text: 'Fix it' }, { text: 'Test it' }, { text: 'Tell the team' }] });
        expect(told[0]).toContain('Tell the team');
      } else {
        expect(after).toMatchObject({ status: 'declined', reason: 'not now' });
        expect(told[0]).toContain('not now');
      }
    });
  }
});

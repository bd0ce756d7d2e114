/**
 * What the AG-UI tests share: a `golem serve` with the scripted model (closed after each
 * test), a stock HttpAgent on its route recording the events it accepted, a raw POST for
 * what HttpAgent would never send, and a refused run's error without HttpAgent's console line.
 */
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { afterEach, vi } from 'vitest';
import { createWorkspace, type Workspace } from '../src/index.js';
import { serve, type GolemServer, type ServeOptions } from '../src/serve/index.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';

export function aguiHarness() {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function started(script: ScriptStep[], options: Partial<ServeOptions['agent']> = {}): Promise<{ ws: Workspace; server: GolemServer }> {
    const ws = await createWorkspace();
    const server = await serve(ws, { page: false, agent: { model: scriptedModel(script), ...options } });
    cleanups.push(() => ws.close());
    cleanups.push(() => server.close());
    return { ws, server };
  }

  /** A stock HttpAgent on the server's AG-UI route, recording every event it accepted. */
  function agentOf(server: GolemServer, threadId: string): { agent: HttpAgent; events: BaseEvent[] } {
    const agent = new HttpAgent({ url: `${server.url}/api/agui`, headers: { authorization: `Bearer ${server.token}` }, threadId });
    const events: BaseEvent[] = [];
    agent.subscribe({ onEvent: ({ event }) => void events.push(event) });
    return { agent, events };
  }

  const say = (agent: HttpAgent, text: string) => agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });

  /** POSTs a raw body to the route: for what HttpAgent would never send. */
  async function post(server: GolemServer, body: unknown): Promise<{ status: number; json: { error?: { code: string; message: string } } }> {
    const res = await fetch(`${server.url}/api/agui`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as { error?: { code: string; message: string } } };
  }

  /** What a run HttpAgent refused ends with (its error), without the line it writes to the console. */
  async function refused(run: Promise<unknown>): Promise<unknown> {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      return await run.then(
        () => new Error('the run was not refused'),
        (error: unknown) => error,
      );
    } finally {
      quiet.mockRestore();
    }
  }

  const texts = (messages: Message[]) => messages.map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : ''}`);

  return { started, agentOf, say, post, refused, texts, cleanups };
}

/**
 * golem serve's runs take the messages sent to their session meanwhile (issue 36): a queued
 * one starts the next run when the run ends, a steering one is read before the next model
 * call, and an interrupting one stops the run and starts the next with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkspace, defineAction, type Action, type Prompt, type Workspace } from '../src/index.js';
import { createGolemHandler, type GolemHandler } from '../src/serve/index.js';
import { RunService } from '../src/agent/index.js';
import { until } from './helpers-chat.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

const text = (t: string) => ({ blocks: [{ type: 'text' as const, text: t }] });
const said = (prompt: Prompt) =>
  prompt.messages.flatMap((m) => (m.role === 'user' ? [m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join(' | ')] : []));

async function started(
  script: ScriptStep[],
  actions: Action[] = [],
): Promise<{ ws: Workspace; golem: GolemHandler; send: (sessionId: string, text: string) => Promise<void> }> {
  const ws = await createWorkspace();
  const golem = await createGolemHandler(ws, { agent: { model: scriptedModel(script), actions }, auth: false });
  cleanups.push(
    () => ws.close(),
    () => golem.close(),
  );
  const send = async (sessionId: string, message: string) => {
    const res = await golem.fetch(
      new Request(`http://app.test/api/sessions/${sessionId}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: message }),
      }),
    );
    expect(res.status).toBeLessThan(300);
  };
  return { ws, golem, send };
}

describe("golem serve's runs and their inbox", () => {
  it('delivers what was queued to a run that does not deliver it (golem ask, MCP): the next run starts on this server', async () => {
    const ws = await createWorkspace();
    const golem = await createGolemHandler(ws, { agent: { model: scriptedModel([{ text: 'Answered the queued one.' }]), lease: { ttlMs: 300 } }, auth: false });
    cleanups.push(
      () => ws.close(),
      () => golem.close(),
    );
    const session = await ws.sessions.create({});
    // A run as golem ask holds it: it takes no messages when it ends.
    const other = new RunService(ws.manager, { by: 'golem ask' });
    cleanups.push(async () => other.dispose());
    const release = gate();
    const held = (await other.claim(session.id, { resumable: false })).run(() => release.wait);
    const queued = await golem.fetch(
      new Request(`http://app.test/api/sessions/${session.id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'and this' }),
      }),
    );
    expect(await queued.json()).toMatchObject({ queued: { text: 'and this', policy: 'enqueue' } });
    release.open();
    await held.done;
    await until(async () => (await ws.sessions.open(session.id))!.transcript().then((turns) => turns.length === 2));
    await golem.settled(session.id);
    const turns = await (await ws.sessions.open(session.id))!.transcript();
    expect(turns.map((t) => [t.role, t.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')])).toEqual([
      ['user', 'and this'],
      ['assistant', 'Answered the queued one.'],
    ]);
    expect(ws.runs.inbox(session.id)).toEqual([]);
  });

  it('a message queued during a run starts the next run when it ends', async () => {
    const thinking = gate();
    const release = gate();
    const seen: string[][] = [];
    const { ws, golem, send } = await started([
      async (prompt) => {
        seen.push(said(prompt));
        thinking.open();
        await release.wait;
        return { text: 'Here is the summary.' };
      },
      (prompt) => (seen.push(said(prompt)), { text: 'And here are the tests.' }),
    ]);
    const session = await ws.sessions.create({});
    await send(session.id, 'summarise the README');
    await thinking.wait;
    expect(await ws.runs.send(session.id, text('then list the tests'))).toMatchObject({ status: 'queued' });
    release.open();
    await golem.settled(session.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await golem.settled(session.id);
    expect(seen).toEqual([['summarise the README'], ['summarise the README', 'then list the tests']]);
    expect(ws.runs.list({ sessionId: session.id }).runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect(ws.runs.inbox(session.id)).toEqual([]);
  });

  it('a message sent to steer is read before the next model call, after the running call has its result', async () => {
    const building = gate();
    const built = gate();
    const seen: string[][] = [];
    const build = defineAction({
      name: 'build',
      description: 'Builds the project.',
      input: z.strictObject({}),
      trust: 'autonomous',
      run: async () => (building.open(), await built.wait, 'built'),
    }) as Action;
    const { ws, golem, send } = await started(
      [{ toolCalls: [{ name: 'build', input: {} }] }, (prompt) => (seen.push(said(prompt)), { text: 'Built; updating the README next.' })],
      [build],
    );
    const session = await ws.sessions.create({});
    await send(session.id, 'build it');
    await building.wait;
    await ws.runs.send(session.id, text('and update the README'), { policy: 'steer' });
    built.open();
    await golem.settled(session.id);
    expect(seen).toEqual([['build it', 'and update the README']]);
    expect((await session.transcript()).map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(ws.runs.list({ sessionId: session.id }).runs.map((r) => r.status)).toEqual(['succeeded']);
  });

  it('interrupt stops the run in flight and runs the new message next', async () => {
    const thinking = gate();
    const seen: string[][] = [];
    const { ws, golem, send } = await started([
      (prompt, _call, options) =>
        new Promise((resolve) => {
          seen.push(said(prompt));
          thinking.open();
          options.signal?.addEventListener('abort', () => resolve({ text: 'never seen' }), { once: true });
        }),
      (prompt) => (seen.push(said(prompt)), { text: 'A haiku.' }),
    ]);
    const session = await ws.sessions.create({});
    await send(session.id, 'write a long essay');
    await thinking.wait;
    await ws.runs.send(session.id, text('no, a haiku'), { policy: 'interrupt' });
    await golem.settled(session.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await golem.settled(session.id);
    // The stopped request had no answer: the model reads both, one after the other, in one user message.
    expect(seen).toEqual([['write a long essay'], ['write a long essay | no, a haiku']]);
    expect(ws.runs.list({ sessionId: session.id }).runs.map((r) => r.status)).toEqual(['succeeded', 'cancelled']);
  });
});

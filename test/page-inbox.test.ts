/**
 * Messages sent during a run, in the page (issue 36, "on the wires"): in the system Chromium
 * against a real `golem serve` process and the scripted model, a read of a named pipe holding
 * the run while the user acts. Enter queues a message for the run's end, the queued ones are
 * listed under the composer and taken back with their own button, and the one left is the
 * next user turn, answered by the next run; Steer shows a message to the running agent before
 * its next model call. The API's refusals (reject, an unknown policy, a message not waiting,
 * another user's session) are checked on the same wire. The composer during a run is
 * photographed at desktop and phone size, light and dark, and checked with axe-core.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { SendMessageResult, SessionDetail, SessionSummary, UnsendResult } from '../src/serve/api-types.js';
import { createWorkspace } from '../src/index.js';
import { createGolemHandler } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';
import { tempDir } from './helpers.js';
import { checkEverywhere, pageHarness, PHONE, say, shot } from './helpers-page.js';
import { golemServe, killServe, until, type ServeProcess } from './helpers-serve-process.js';

const h = pageHarness();

/** A `golem serve` process in a folder holding a named pipe and the model's script. */
async function project(script: unknown[]): Promise<{ dir: string; server: ServeProcess }> {
  const dir = tempDir();
  execFileSync('mkfifo', [join(dir, 'pipe')]);
  writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
  const server = await golemServe(dir);
  // Killed after the tab closes (the harness runs its cleanups last first): the page sees no reset connection.
  h.cleanups.push(() => killServe(server));
  return { dir, server };
}

/** The page open on `server`. */
const opened = (server: ServeProcess, expectedErrors?: RegExp) =>
  h.open({ pageUrl: `http://127.0.0.1:${server.port}/#token=${server.token}`, token: server.token }, expectedErrors === undefined ? {} : { expectedErrors });

const readPipe = { toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] };

const detailOf = async (server: ServeProcess, sessionId: string) => (await server.call('GET', `/api/sessions/${sessionId}`)).json as SessionDetail;

/** The open session's id (the page names it in its address). */
async function openSession(page: Page): Promise<string> {
  await page.waitForURL(/[?&#]session=/);
  const id = /[?&#]session=([^&#]+)/.exec(page.url())?.[1];
  if (id === undefined) throw new Error(`no session in ${page.url()}`);
  return decodeURIComponent(id);
}

/** Types `text` in the message box and presses Enter. */
async function enter(page: Page, text: string): Promise<void> {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-input').press('Enter');
}

/** A message longer than the composer is wide: its line in the list ends in an ellipsis. */
const LONG = 'and list the tests, with their file names and what each one checks, grouped by the part of Golem they cover';

/** What the test reads of an element in the page (the tests are built without the DOM's types). */
interface TextBox {
  scrollWidth: number;
  clientWidth: number;
  getClientRects(): { length: number };
  ownerDocument: { defaultView: { getComputedStyle(element: TextBox): { textOverflow: string } } | null };
}

const queuedTexts = (page: Page) => page.getByTestId('queued-message').locator('.queued-text').allTextContents();

describe('messages sent during a run, in the page', () => {
  it('Enter queues during a run; a queued message is taken back with its button, and the other is the next user turn, answered', async () => {
    const { dir, server } = await project([readPipe, { text: 'The pipe said go.' }, { text: 'Here are the tests.' }]);
    const page = await opened(server);
    await say(page, 'Read the pipe');
    await page.getByTestId('stop').waitFor();
    const sessionId = await openSession(page);
    // The composer stays usable: Enter queues, and says so.
    expect(await page.getByTestId('chat-input').isDisabled()).toBe(false);
    expect(await page.locator('#composer-hint').textContent()).toContain('Enter queues your message for when this answer ends');
    await enter(page, 'then summarise the README');
    await page.getByTestId('queued-message').waitFor();
    await enter(page, LONG);
    await until('both queued', async () => ((await page.getByTestId('queued-message').count()) === 2 ? true : undefined));
    expect(await queuedTexts(page)).toEqual(['then summarise the README', LONG]);
    expect(await page.getByTestId('chat-input').inputValue()).toBe('');
    // The server holds them, in order, as the session's inbox.
    const inbox = (await detailOf(server, sessionId)).inbox;
    expect(inbox.map((m) => [m.text, m.policy])).toEqual([
      ['then summarise the README', 'enqueue'],
      [LONG, 'enqueue'],
    ]);
    await checkEverywhere(page, 'inbox-queued');
    // On a phone (where checkEverywhere ends) the long one is one line, cut with an ellipsis.
    const long = page.getByTestId('queued-message').nth(1).locator('.queued-text');
    const cut = await long.evaluate((element) => {
      const e = element as unknown as TextBox;
      return [e.ownerDocument.defaultView?.getComputedStyle(e).textOverflow, e.scrollWidth > e.clientWidth, e.getClientRects().length];
    });
    expect(cut).toEqual(['ellipsis', true, 1]);

    // Taken back by its own button (named for it), the other stays.
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.getByRole('button', { name: 'Remove queued message: then summarise the README' }).click();
    await until('one left', async () => ((await page.getByTestId('queued-message').count()) === 1 ? true : undefined));
    expect(await queuedTexts(page)).toEqual([LONG]);
    expect((await detailOf(server, sessionId)).inbox.map((m) => m.text)).toEqual([LONG]);

    // The run goes on and ends; the message left is the next user turn, and its run answers it.
    await writeFile(join(dir, 'pipe'), 'go');
    await page.getByTestId('message').filter({ hasText: 'Here are the tests.' }).waitFor();
    await page.getByTestId('queued').waitFor({ state: 'detached' });
    await page.getByTestId('stop').waitFor({ state: 'detached' });
    const detail = await detailOf(server, sessionId);
    expect(detail.inbox).toEqual([]);
    expect(detail.turns.filter((t) => t.kind === 'message' && t.text !== '').map((t) => [t.role, t.text])).toEqual([
      ['user', 'Read the pipe'],
      ['assistant', 'The pipe said go.'],
      ['user', LONG],
      ['assistant', 'Here are the tests.'],
    ]);
    const { runs } = (await server.call('GET', `/api/runs?sessionId=${sessionId}`)).json as { runs: { status: string }[] };
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    await shot(page, 'inbox-delivered');
  });

  it("Steer shows the message to the running agent: its next model call reads it, after the call's result", async () => {
    const { dir, server } = await project([readPipe, { text: 'Read it, and I will keep it short.' }]);
    const page = await opened(server);
    await say(page, 'Read the pipe');
    await page.getByTestId('stop').waitFor();
    const sessionId = await openSession(page);
    await page.getByTestId('chat-input').fill('keep the answer short');
    await page.getByTestId('steer').click();
    const waiting = page.getByTestId('queued-message');
    await waiting.waitFor();
    expect(await waiting.getAttribute('data-policy')).toBe('steer');
    expect((await detailOf(server, sessionId)).inbox.map((m) => [m.text, m.policy])).toEqual([['keep the answer short', 'steer']]);
    await page.setViewportSize(PHONE);
    await shot(page, 'inbox-steering-phone-light');

    await writeFile(join(dir, 'pipe'), 'go');
    await page.getByTestId('message').filter({ hasText: 'Read it, and I will keep it short.' }).waitFor();
    await page.getByTestId('queued').waitFor({ state: 'detached' });
    // The steering message is a user turn between the call's result and the answer, in the one run.
    const turns = (await detailOf(server, sessionId)).turns;
    expect(turns.map((t) => [t.role, t.kind])).toEqual([
      ['user', 'message'],
      ['assistant', 'message'],
      ['tool', 'results'],
      ['user', 'message'],
      ['assistant', 'message'],
    ]);
    const steering = turns[3] as SessionDetail['turns'][number];
    expect(steering.text).toBe('keep the answer short');
    const { runs } = (await server.call('GET', `/api/runs?sessionId=${sessionId}`)).json as { runs: unknown[] };
    expect(runs).toHaveLength(1);
    // What the model was given for its second call (the answer's prompt record): the turns up to the steering message.
    const ws = await createWorkspace({ dir: join(dir, '.golem') });
    try {
      const transcript = await ws.sessions.get(sessionId)?.transcript();
      const answer = transcript?.at(-1);
      expect(answer?.role).toBe('assistant');
      expect((answer?.meta.prompt as { turns: { count: number; last: { id: string } } }).turns).toMatchObject({ count: 4, last: { id: steering.id } });
    } finally {
      await ws.close();
    }
  });

  it('on the API: reject is SESSION_BUSY, an unknown policy is refused, a message not waiting in that session is MESSAGE_NOT_FOUND', async () => {
    const { dir, server } = await project([readPipe, { text: 'Done.' }, { text: 'Done too.' }]);
    const session = (await server.call('POST', '/api/sessions', {})).json as SessionSummary;
    const other = (await server.call('POST', '/api/sessions', {})).json as SessionSummary;
    const started = await server.call('POST', `/api/sessions/${session.id}/messages`, { text: 'Read the pipe' });
    expect(started.status).toBe(202);
    const { runId } = started.json as SendMessageResult;
    await until('the run to hold the session', async () => ((await detailOf(server, session.id)).running ? true : undefined));

    const refused = await server.call('POST', `/api/sessions/${session.id}/messages`, { text: 'me too', policy: 'reject' });
    expect(refused).toMatchObject({ status: 409, json: { error: { code: 'SESSION_BUSY' } } });
    const unknown = await server.call('POST', `/api/sessions/${session.id}/messages`, { text: 'me too', policy: 'rollback' });
    expect(unknown).toMatchObject({ status: 400, json: { error: { code: 'INVALID_ARGUMENT' } } });
    // No policy: the server's default, enqueue.
    const queued = await server.call('POST', `/api/sessions/${session.id}/messages`, { text: 'and then this' });
    expect(queued.status).toBe(202);
    const message = (queued.json as SendMessageResult).queued;
    expect(queued.json).toMatchObject({ runId, queued: { text: 'and then this', policy: 'enqueue' } });
    expect(typeof message?.id).toBe('string');
    const id = message?.id as string;

    const unknownId = await server.call('DELETE', `/api/sessions/${session.id}/inbox/no-such-message`);
    expect(unknownId).toMatchObject({ status: 404, json: { error: { code: 'MESSAGE_NOT_FOUND' } } });
    // Its id named under another session is not found there, and it still waits in its own.
    const elsewhere = await server.call('DELETE', `/api/sessions/${other.id}/inbox/${id}`);
    expect(elsewhere).toMatchObject({ status: 404, json: { error: { code: 'MESSAGE_NOT_FOUND' } } });
    expect((await detailOf(server, session.id)).inbox.map((m) => m.id)).toEqual([id]);
    const taken = await server.call('DELETE', `/api/sessions/${session.id}/inbox/${id}`);
    expect(taken.status).toBe(200);
    expect((taken.json as UnsendResult).unsent).toMatchObject({ id, text: 'and then this', policy: 'enqueue' });
    const twice = await server.call('DELETE', `/api/sessions/${session.id}/inbox/${id}`);
    expect(twice).toMatchObject({ status: 404, json: { error: { code: 'MESSAGE_NOT_FOUND' } } });
    expect((await detailOf(server, session.id)).inbox).toEqual([]);

    await writeFile(join(dir, 'pipe'), 'go');
    const detail = await until('the run to end', async () => {
      const d = await detailOf(server, session.id);
      return !d.running && d.turns.at(-1)?.text === 'Done.' ? d : undefined;
    });
    // Nothing taken back or refused was delivered.
    expect(detail.turns.filter((t) => t.role === 'user').map((t) => t.text)).toEqual(['Read the pipe']);
  });
});

describe('messages sent during a run, with users (createGolemHandler)', () => {
  it("another user's session is SESSION_NOT_FOUND: its messages can be neither sent to, listed nor taken back", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let thinking!: () => void;
    const started = new Promise<void>((resolve) => (thinking = resolve));
    const ws = await createWorkspace();
    const model = scriptedModel([async () => (thinking(), await held, { text: 'Answered.' }), { text: 'Answered again.' }]);
    const golem = await createGolemHandler(ws, { auth: false, user: (request) => request.headers.get('x-user'), agent: { model } });
    h.cleanups.push(
      () => ws.close(),
      async () => {
        release();
        await golem.close();
      },
    );
    const as = (user: string) => async (method: string, path: string, body?: unknown) => {
      const res = await golem.fetch(
        new Request(`http://app.test${path}`, {
          method,
          headers: { 'content-type': 'application/json', 'x-user': user },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        }),
      );
      return { status: res.status, json: (await res.json()) as unknown };
    };
    const ann = as('ann');
    const bob = as('bob');
    const anns = (await ann('POST', '/api/sessions', {})).json as SessionSummary;
    const bobs = (await bob('POST', '/api/sessions', {})).json as SessionSummary;
    expect((await ann('POST', `/api/sessions/${anns.id}/messages`, { text: 'hello' })).status).toBe(202);
    await started;
    const queued = await ann('POST', `/api/sessions/${anns.id}/messages`, { text: 'my follow-up' });
    expect(queued).toMatchObject({ status: 202, json: { queued: { text: 'my follow-up', policy: 'enqueue' } } });
    const id = (queued.json as SendMessageResult).queued?.id as string;

    const notFound = { status: 404, json: { error: { code: 'SESSION_NOT_FOUND' } } };
    expect(await bob('POST', `/api/sessions/${anns.id}/messages`, { text: 'from bob', policy: 'steer' })).toMatchObject(notFound);
    expect(await bob('GET', `/api/sessions/${anns.id}`)).toMatchObject(notFound);
    expect(await bob('DELETE', `/api/sessions/${anns.id}/inbox/${id}`)).toMatchObject(notFound);
    // Named under his own session, Ann's message is not his to take back.
    expect(await bob('DELETE', `/api/sessions/${bobs.id}/inbox/${id}`)).toMatchObject({ status: 404, json: { error: { code: 'MESSAGE_NOT_FOUND' } } });
    const inbox = ((await ann('GET', `/api/sessions/${anns.id}`)).json as SessionDetail).inbox;
    expect(inbox.map((m) => [m.id, m.text])).toEqual([[id, 'my follow-up']]);

    // Ann's message is hers alone, and delivered once her run ends.
    release();
    await golem.settled(anns.id);
    await until('the queued run to end', async () => {
      const d = (await ann('GET', `/api/sessions/${anns.id}`)).json as SessionDetail;
      return !d.running && d.turns.at(-1)?.text === 'Answered again.' ? d : undefined;
    });
    const detail = (await ann('GET', `/api/sessions/${anns.id}`)).json as SessionDetail;
    expect(detail.turns.filter((t) => t.role === 'user').map((t) => t.text)).toEqual(['hello', 'my follow-up']);
    expect(detail.inbox).toEqual([]);
  });
});

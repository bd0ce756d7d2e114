/**
 * `golem serve`'s HTTP API against a real server on loopback, with the scripted model:
 * the token, refusals with their codes, a chat run, editing a past message and switching
 * between the versions, forking, approvals (answered while the run waits, and after the
 * server that asked is gone), clearance, and a form's click reaching the agent.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, projectActions, type Workspace } from '../src/index.js';
import { serve, type GolemServer, type ServeOptions } from '../src/serve/index.js';
import type { ServeState, SessionDetail, SessionSummary } from '../src/serve/api-types.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
import { deployAction, tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: ServeOptions = {}, ws?: Workspace): Promise<{ ws: Workspace; server: GolemServer; api: Api }> {
  const workspace = ws ?? (await createWorkspace());
  const server = await serve(workspace, { page: false, ...options });
  if (ws === undefined) cleanups.push(() => workspace.close());
  cleanups.push(() => server.close());
  return { ws: workspace, server, api: apiOf(server) };
}

type Api = <T>(method: string, path: string, body?: unknown, token?: string) => Promise<{ status: number; json: T }>;

function apiOf(server: GolemServer): Api {
  return async <T>(method: string, path: string, body?: unknown, token = server.token) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as T };
  };
}

type Refusal = { error: { code: string; message: string } };

const { deploy, deploys } = deployAction();

describe('golem serve: the HTTP API', () => {
  it('wants the token on every API call, and says what is wrong with a bad request', async () => {
    const { api, server } = await started({ agent: { model: scriptedModel([]) } });
    const wrong = await api<Refusal>('GET', '/api/state', undefined, 'x'.repeat(64));
    expect(wrong).toMatchObject({ status: 401, json: { error: { code: 'UNAUTHORIZED' } } });
    expect((await fetch(`${server.url}/api/state`)).status).toBe(401);
    // The header only: a token in a query string ends up in logs, and would let another site's form post here.
    expect((await fetch(`${server.url}/api/state?token=${server.token}`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/state`, { headers: { authorization: `bearer ${server.token}` } })).status).toBe(200);
    const form = await fetch(`${server.url}/api/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(form.status).toBe(415);
    expect((await api<ServeState>('GET', '/api/state')).json.sessions).toEqual([]);
    expect(await api<Refusal>('GET', '/api/nothing')).toMatchObject({ status: 404, json: { error: { code: 'NOT_FOUND' } } });
    expect(await api<Refusal>('GET', '/api/sessions/nope')).toMatchObject({ status: 404, json: { error: { code: 'SESSION_NOT_FOUND' } } });
    expect(await api<Refusal>('POST', '/api/sessions', '{not json')).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('not JSON') } },
    });
    const session = (await api<SessionSummary>('POST', '/api/sessions', { label: 'demo' })).json;
    const empty = await api<Refusal>('POST', `/api/sessions/${session.id}/messages`, { text: '' });
    expect(empty).toMatchObject({ status: 400, json: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('text: the message is empty') } } });
    expect(await api<Refusal>('POST', `/api/sessions/${session.id}/messages`, { text: 'hi', extra: 1 })).toMatchObject({ status: 400 });
    // Nothing was added by the refused calls.
    expect((await api<SessionDetail>('GET', `/api/sessions/${session.id}`)).json.turns).toEqual([]);
    // The page is not built here: said so, not a blank 404.
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('npm run build');
  });

  it('cannot chat without a model, and says how to start with one', async () => {
    const { api } = await started();
    const session = (await api<SessionSummary>('POST', '/api/sessions', {})).json;
    expect((await api<ServeState>('GET', '/api/state')).json.model).toBeNull();
    const sent = await api<Refusal>('POST', `/api/sessions/${session.id}/messages`, { text: 'hello' });
    expect(sent).toMatchObject({ status: 400, json: { error: { code: 'NO_MODEL', message: expect.stringContaining('--model') } } });
    expect((await api<SessionDetail>('GET', `/api/sessions/${session.id}`)).json.turns).toEqual([]);
  });

  it('runs the agent on a message, refuses a second one while it runs, and edits a past message into a branch', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const steps: ScriptStep[] = [
      async () => {
        await held;
        return { text: 'Paris.' };
      },
      (prompt) => ({ text: `You asked: ${JSON.stringify(prompt.messages.at(-1))}` }),
    ];
    const { api, server } = await started({ agent: { model: scriptedModel(steps) } });
    const session = (await api<SessionSummary>('POST', '/api/sessions', {})).json;
    const sent = await api<{ runId: string }>('POST', `/api/sessions/${session.id}/messages`, { text: 'Capital of France?' });
    expect(sent.status).toBe(202);
    expect((await api<ServeState>('GET', '/api/state')).json.running).toEqual([session.id]);
    // Sent with the reject policy (the default, enqueue, keeps it for the run's end: test/page-inbox.test.ts).
    expect(await api<Refusal>('POST', `/api/sessions/${session.id}/messages`, { text: 'again', policy: 'reject' })).toMatchObject({
      status: 409,
      json: { error: { code: 'SESSION_BUSY' } },
    });
    release();
    await server.settled(session.id);
    let detail = (await api<SessionDetail>('GET', `/api/sessions/${session.id}`)).json;
    expect(detail.running).toBe(false);
    expect(detail.session.label).toBe('Capital of France?');
    expect(detail.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'Capital of France?'],
      ['assistant', 'Paris.'],
    ]);
    const question = detail.turns[0]!;

    // Editing the question: a second version with the same parent, answered by the agent.
    const edited = await api<{ runId: string; turn: { id: string; version: number } }>('POST', `/api/sessions/${session.id}/turns/${question.id}/edit`, {
      text: 'Capital of Italy?',
    });
    expect(edited).toMatchObject({ status: 202, json: { turn: { id: question.id, version: question.version + 1 } } });
    await server.settled(session.id);
    detail = (await api<SessionDetail>('GET', `/api/sessions/${session.id}`)).json;
    expect(detail.turns.map((t) => t.text)).toEqual(['Capital of Italy?', expect.stringContaining('Capital of Italy?')]);
    expect(detail.turns[0]!.branch).toMatchObject({ total: 2, currentIndex: 1, hasPrev: true, hasNext: false });

    // Back to the first version, and its answer with it.
    const left = await api<{ head: { id: string } }>('POST', `/api/sessions/${session.id}/turns/${question.id}/switch`, { direction: 'left' });
    expect(left.status).toBe(200);
    detail = (await api<SessionDetail>('GET', `/api/sessions/${session.id}`)).json;
    expect(detail.turns.map((t) => t.text)).toEqual(['Capital of France?', 'Paris.']);
    expect(detail.turns[0]!.branch).toMatchObject({ total: 2, currentIndex: 0, hasPrev: false, hasNext: true });
    expect(await api<Refusal>('POST', `/api/sessions/${session.id}/turns/${question.id}/switch`, { direction: 'left' })).toMatchObject({
      status: 409,
      json: { error: { code: 'NO_PREVIOUS_VERSION' } },
    });

    // A fork at the question: a new session that shares it and nothing after it.
    const fork = await api<SessionSummary>('POST', `/api/sessions/${session.id}/fork`, { at: question.id });
    expect(fork).toMatchObject({ status: 201, json: { turns: 1, label: expect.stringContaining('fork of') } });
    expect((await api<SessionDetail>('GET', `/api/sessions/${fork.json.id}`)).json.turns.map((t) => t.text)).toEqual(['Capital of France?']);
    expect((await api<ServeState>('GET', '/api/state')).json.sessions.map((s) => s.id)).toContain(fork.json.id);
  });

  it('holds a supervised call for the answer from a page, and refuses a second answer', async () => {
    deploys.length = 0;
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] }, { text: 'Deployed.' }]);
    const { api, server } = await started({ agent: { model, actions: [deploy] } });
    const session = (await api<SessionSummary>('POST', '/api/sessions', {})).json;
    await api('POST', `/api/sessions/${session.id}/messages`, { text: 'ship it' });
    const approval = await until(async () => (await api<ServeState>('GET', '/api/state')).json.approvals[0]);
    expect(approval).toMatchObject({ action: 'deploy', rootSessionId: session.id, workerPath: [{ id: session.id, depth: 0 }] });
    expect(deploys).toEqual([]); // not before the yes
    expect(await api('POST', `/api/approvals/${approval.id}`, { answer: 'yes' })).toMatchObject({ status: 200 });
    expect(await api<Refusal>('POST', `/api/approvals/${approval.id}`, { answer: 'no' })).toMatchObject({
      status: 409,
      json: { error: { code: 'APPROVAL_ANSWERED' } },
    });
    await server.settled(session.id);
    expect(deploys).toEqual(['staging']);
    expect((await api<ServeState>('GET', '/api/state')).json.approvals).toEqual([]);
    const detail = (await api<SessionDetail>('GET', `/api/sessions/${session.id}`)).json;
    expect(detail.turns.at(-1)?.text).toBe('Deployed.');
    expect(detail.turns.flatMap((t) => t.toolResults.map((r) => r.text))).toEqual([expect.stringContaining('deployed to staging')]);
  });

  it('answers an approval left by an earlier server and resumes its run', async () => {
    deploys.length = 0;
    const dir = tempDir();
    const first = await createWorkspace({ dir });
    const session = await first.sessions.create({ label: 'deploy' });
    // A run that paused for its approval (nobody could be asked), then the process went away.
    const paused = await first
      .worker({ session, model: scriptedModel([{ toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] }]), actions: [deploy] })
      .run('ship to prod');
    expect(paused.status).toBe('paused');
    await first.close();

    const ws = await createWorkspace({ dir });
    cleanups.push(() => ws.close());
    const { api, server } = await started({ agent: { model: scriptedModel([{ text: 'Live on prod.' }]), actions: [deploy] } }, ws);
    const [approval] = (await api<ServeState>('GET', '/api/state')).json.approvals;
    expect(approval).toMatchObject({ action: 'deploy', rootSessionId: session.id });
    await api('POST', `/api/approvals/${approval!.id}`, { answer: 'yes' });
    await until(async () => (await api<ServeState>('GET', '/api/state')).json.running.length === 0 && deploys.length === 1);
    await server.settled(session.id);
    expect(deploys).toEqual(['prod']);
    expect((await api<SessionDetail>('GET', `/api/sessions/${session.id}`)).json.turns.at(-1)?.text).toBe('Live on prod.');
  });

  it('shows a staged edit with its diff and pushes it into the files', async () => {
    const root = tempDir();
    execFileSync('git', ['init', '-q', root]);
    writeFileSync(join(root, 'notes.md'), 'one\n');
    execFileSync('git', ['-C', root, 'add', '.']);
    execFileSync('git', ['-C', root, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'start']);
    const model = scriptedModel([{ toolCalls: [{ name: 'write_file', input: { path: 'notes.md', content: 'one\ntwo\n' } }] }, { text: 'Staged.' }]);
    const ws = await createWorkspace({ dir: join(root, '.golem') });
    cleanups.push(() => ws.close());
    const { api, server } = await started({ agent: { model, actions: projectActions(), project: { root } } }, ws);
    const session = (await api<SessionSummary>('POST', '/api/sessions', {})).json;
    await api('POST', `/api/sessions/${session.id}/messages`, { text: 'add a line' });
    await server.settled(session.id);
    const [item] = (await api<ServeState>('GET', '/api/state')).json.clearance;
    expect(item).toMatchObject({ type: 'staged_commit', status: 'pending', sessionId: session.id });
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('one\n'); // staged, not written
    const diff = (await api<{ diff: string }>('GET', `/api/clearance/${item!.id}/diff`)).json.diff;
    expect(diff).toContain('+two');
    const pushed = await api<{ item: { status: string }; message: string }>('POST', `/api/clearance/${item!.id}`, { action: 'push' });
    expect(pushed).toMatchObject({ status: 200, json: { item: { status: 'pushed' } } });
    expect(readFileSync(join(root, 'notes.md'), 'utf8')).toBe('one\ntwo\n');
    expect((await api<ServeState>('GET', '/api/state')).json.clearance).toEqual([]);
    expect(await api<Refusal>('POST', `/api/clearance/${item!.id}`, { action: 'discard' })).toMatchObject({
      status: 409,
      json: { error: { code: 'CLEARANCE_DECIDED' } },
    });
    expect(await api<Refusal>('POST', '/api/clearance/nope-nope', { action: 'push' })).toMatchObject({
      status: 404,
      json: { error: { code: 'CLEARANCE_NOT_FOUND' } },
    });
  });
});

describe('golem serve: one run at a time, and nothing lost', () => {
  it('lets one change at a time at a session: an edit and a message racing give one run and one SESSION_BUSY', async () => {
    let calls = 0;
    let inFlight = 0;
    let most = 0;
    const slow: ScriptStep = async () => {
      calls++;
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight--;
      return { text: `answer ${calls}` };
    };
    const { api, server } = await started({ agent: { model: scriptedModel([slow, slow, slow]) } });
    const session = (await api<SessionSummary>('POST', '/api/sessions', {})).json;
    await api('POST', `/api/sessions/${session.id}/messages`, { text: 'hi' });
    await server.settled(session.id);
    const question = (await api<SessionDetail>('GET', `/api/sessions/${session.id}`)).json.turns[0]!;
    const raced = await Promise.all([
      api<Refusal>('POST', `/api/sessions/${session.id}/turns/${question.id}/edit`, { text: 'hi (edited)' }),
      api<Refusal>('POST', `/api/sessions/${session.id}/messages`, { text: 'another', policy: 'reject' }),
    ]);
    expect(raced.map((r) => r.status).sort()).toEqual([202, 409]);
    expect(raced.find((r) => r.status === 409)?.json.error.code).toBe('SESSION_BUSY');
    await server.settled(session.id);
    expect(most).toBe(1);
    const turns = (await api<SessionDetail>('GET', `/api/sessions/${session.id}`)).json.turns;
    // A user turn, then its answer: never two questions in a row.
    expect(turns.map((t) => t.role)).toEqual(raced[0].status === 202 ? ['user', 'assistant'] : ['user', 'assistant', 'user', 'assistant']);
  });

  it('a stopped run lets go of its approval: a late yes is refused, and close does not wait on a run that is gone', async () => {
    deploys.length = 0;
    let signalled: AbortSignal | undefined;
    const model = scriptedModel([
      { toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] },
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return { text: 'later' };
      },
    ]);
    const original = model.stream.bind(model);
    model.stream = (prompt, options) => {
      signalled = options?.signal;
      return original(prompt, options);
    };
    const { api, server } = await started({ agent: { model, actions: [deploy] } });
    const session = (await api<SessionSummary>('POST', '/api/sessions', {})).json;
    await api('POST', `/api/sessions/${session.id}/messages`, { text: 'ship it' });
    const approval = await until(async () => (await api<ServeState>('GET', '/api/state')).json.approvals[0]);
    expect((await api<{ stopped: boolean }>('POST', `/api/sessions/${session.id}/stop`, {})).json.stopped).toBe(true);
    await server.settled(session.id);
    // The stop answered no; a yes now finds it answered, and nothing runs.
    expect(await api<Refusal>('POST', `/api/approvals/${approval.id}`, { answer: 'yes' })).toMatchObject({
      status: 409,
      json: { error: { code: 'APPROVAL_ANSWERED' } },
    });
    expect(deploys).toEqual([]);
    // A new run on the same session: close aborts it (it is not taken for one waiting on an approval).
    await api('POST', `/api/sessions/${session.id}/messages`, { text: 'never mind' });
    await until(async () => signalled !== undefined && (await api<ServeState>('GET', '/api/state')).json.running.length === 1);
    await server.close();
    expect(signalled?.aborted).toBe(true);
  });
});

/** Polls `read` until it returns something truthy (at most 5 s). */
async function until<T>(read: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

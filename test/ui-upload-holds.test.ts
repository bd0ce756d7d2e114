/**
 * Files uploaded for a UI's file fields are held only while they may still be used (issue 35,
 * finding 9), over real HTTP: one replaced by another file for the same field, or removed, is
 * released and its bytes deleted (unless something else holds the same bytes); one never
 * submitted is released once its window has passed (an injected clock); held bytes are capped
 * per instance and per user (UPLOAD_QUOTA, 413, nothing stored); `golem doctor --repair`
 * releases what is past its window and collects blobs nothing references. On PostgreSQL, two
 * servers on one store see each other's uploads: caps, replacements and the window hold across them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.js';
import { createWorkspace, sha256Of, type PatchInput, type Workspace } from '../src/index.js';
import type { SessionSummary } from '../src/serve/api-types.js';
import { applyUiAction, createGolemHandler, serve, type GolemHandlerOptions, type GolemServer } from '../src/serve/index.js';
import { postgresBlobStorage, postgresStore } from '../src/store/postgres/index.js';
import { tempDir } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const HOUR = 3_600_000;

/** A clock the test moves. */
function movableClock(start = Date.UTC(2026, 0, 1, 12)) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

const form = (id: string): PatchInput => ({
  instanceId: '__CREATE__',
  newInstanceId: id,
  patches: [
    {
      op: 'set',
      path: 'blocks',
      value: [
        {
          id: 'f',
          type: 'form',
          bind: 'state.params',
          props: {
            fields: [
              { label: 'Receipt', key: 'receipt', type: 'file' },
              { label: 'Photo', key: 'photo', type: 'file' },
            ],
          },
        },
      ],
    },
    { op: 'set', path: 'actions', value: [{ id: 'send', label: 'Send', style: 'primary' }] },
  ],
});

const fileOf = (text: string, size = 40) => new TextEncoder().encode(text.padEnd(size, '.'));

interface Posted {
  status: number;
  json: { sha256?: string; name?: string; mediaType?: string; size?: number; error?: { code: string; message: string } };
}

async function post(base: string, headers: Record<string, string>, instanceId: string, key: string, bytes: Uint8Array): Promise<Posted> {
  const res = await fetch(`${base}/api/ui/${instanceId}/files/${key}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/pdf', 'x-file-name': 'f.pdf' },
    body: Uint8Array.from(bytes),
  });
  return { status: res.status, json: (await res.json()) as Posted['json'] };
}

/** The blob as the workspace and its blob storage have it: whether it is registered, and whether its bytes are stored. */
async function blobState(ws: Workspace, sha256: string): Promise<{ registered: boolean; stored: boolean }> {
  return { registered: ws.blobs.get(sha256) !== undefined, stored: await ws.manager.blobStorage.has(sha256) };
}
const HELD = { registered: true, stored: true };
const GONE = { registered: false, stored: false };

async function served(options: { uploads?: GolemHandlerOptions['uploads']; dir?: string } = {}) {
  const time = movableClock();
  const ws = await createWorkspace({ clock: time.clock, dir: options.dir ?? join(tempDir(), '.golem'), durability: 'normal' });
  const server: GolemServer = await serve(ws, { page: false, ...(options.uploads !== undefined && { uploads: options.uploads }) });
  cleanups.push(
    () => ws.close(),
    () => server.close(),
  );
  const auth = { authorization: `Bearer ${server.token}` };
  return { ws, server, time, upload: (instanceId: string, key: string, bytes: Uint8Array) => post(server.url, auth, instanceId, key, bytes) };
}

describe('an upload replaced or removed', () => {
  it('is released, and its bytes deleted from the blob storage, when another file is uploaded for the same field, before or after a click sent it', async () => {
    const { ws, upload } = await served();
    await ws.ui.patch(form('claim'));
    const first = fileOf('first');
    const second = fileOf('second');
    expect((await upload('claim', 'receipt', first)).status).toBe(201);
    expect(await blobState(ws, sha256Of(first))).toEqual(HELD);
    // Chosen again before any click: the first is let go.
    const posted = await upload('claim', 'receipt', second);
    expect(posted.status).toBe(201);
    expect(await blobState(ws, sha256Of(first))).toEqual(GONE);
    expect(await blobState(ws, sha256Of(second))).toEqual(HELD);
    // An upload for another field of the instance is its own.
    const photo = fileOf('photo');
    expect((await upload('claim', 'photo', photo)).status).toBe(201);

    // Sent by a click: the instance holds it, also past the window.
    const { sha256: _s, ...rest } = posted.json;
    expect(
      await applyUiAction(ws.ui, { instanceId: 'claim', actionId: 'send', values: { receipt: { sha256: sha256Of(second), ...rest } as never } }),
    ).toMatchObject({
      ok: true,
    });
    // A third file, sent by the next click, replaces the second in the state: the second goes then, not before.
    const third = fileOf('third');
    const thirdPosted = await upload('claim', 'receipt', third);
    expect(await blobState(ws, sha256Of(second))).toEqual(HELD);
    await applyUiAction(ws.ui, { instanceId: 'claim', actionId: 'send', values: { receipt: thirdPosted.json as never } });
    expect(await blobState(ws, sha256Of(second))).toEqual(GONE);
    expect(await blobState(ws, sha256Of(third))).toEqual(HELD);
    expect(ws.ui.get('claim')?.instance.state.params.receipt).toMatchObject({ sha256: sha256Of(third) });
    // A model that clears the value lets the file go; deleting the instance lets every file of it go.
    await ws.ui.patch({ instanceId: 'claim', patches: [{ op: 'remove', path: 'state.params.receipt' }] });
    expect(await blobState(ws, sha256Of(third))).toEqual(GONE);
    expect(await blobState(ws, sha256Of(photo))).toEqual(HELD);
    await ws.ui.patch({ instanceId: '__DELETE__', targetInstanceId: 'claim', patches: [] });
    expect(await blobState(ws, sha256Of(photo))).toEqual(GONE);
  });

  it('is released when the page removes it (DELETE), and bytes something else holds are kept', async () => {
    const { ws, server, upload } = await served();
    await ws.ui.patch(form('claim'));
    // The same bytes, held by a turn of a session: a release of the upload must not delete them.
    const shared = fileOf('shared');
    const blob = await ws.blobs.register(shared, { mediaType: 'application/pdf' });
    const session = await ws.sessions.create({ label: 's' });
    await session.addTurn({ role: 'user', blocks: [{ type: 'document', blob: { sha256: blob.sha256 }, mediaType: 'application/pdf' }] as never });
    expect((await upload('claim', 'receipt', shared)).status).toBe(201);
    expect(ws.blobs.get(blob.sha256)?.refCount).toBe(2);
    expect((await upload('claim', 'receipt', fileOf('other'))).status).toBe(201);
    expect(ws.blobs.get(blob.sha256)?.refCount).toBe(1);
    expect(await blobState(ws, blob.sha256)).toEqual(HELD);

    const removed = await fetch(`${server.url}/api/ui/claim/files/${sha256Of(fileOf('other'))}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    });
    expect(removed.status).toBe(204);
    expect(await blobState(ws, sha256Of(fileOf('other')))).toEqual(GONE);
    // Removing it again, or a file the instance never had: not found.
    const again = await fetch(`${server.url}/api/ui/claim/files/${sha256Of(fileOf('other'))}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    });
    expect(again.status).toBe(404);
  });
});

describe('an upload never submitted', () => {
  it('is released once its window has passed (default one hour), and a submitted one is not', async () => {
    const { ws, time, upload } = await served();
    await ws.ui.patch(form('claim'));
    await ws.ui.patch(form('other'));
    const left = fileOf('left');
    const sent = fileOf('sent');
    expect((await upload('claim', 'receipt', left)).status).toBe(201);
    const posted = await upload('claim', 'photo', sent);
    await applyUiAction(ws.ui, { instanceId: 'claim', actionId: 'send', values: { photo: posted.json as never } });
    time.advance(HOUR - 1000);
    // Within the window: still held (a later upload sweeps, and finds nothing due).
    expect((await upload('other', 'receipt', fileOf('a'))).status).toBe(201);
    expect(await blobState(ws, sha256Of(left))).toEqual(HELD);
    time.advance(2000);
    expect((await upload('other', 'photo', fileOf('b'))).status).toBe(201);
    expect(await blobState(ws, sha256Of(left))).toEqual(GONE);
    expect(await blobState(ws, sha256Of(sent))).toEqual(HELD);
    // The server's own sweep releases the rest, whether or not anyone uploads again.
    time.advance(HOUR + 1);
    expect(await ws.ui.uploads.releaseStale({ holdMs: HOUR })).toHaveLength(2);
    expect(await blobState(ws, sha256Of(fileOf('a')))).toEqual(GONE);
    expect(await blobState(ws, sha256Of(sent))).toEqual(HELD);
  });

  it('`golem doctor` reports one past its window, and `--repair` releases it and collects blobs nothing references', async () => {
    const cwd = tempDir();
    const dir = join(cwd, '.golem');
    // Uploaded two hours before the doctor runs (the workspace's clock), with a blob registered then and never used.
    const time = movableClock(Date.now() - 2 * HOUR);
    const ws = await createWorkspace({ clock: time.clock, dir });
    const server = await serve(ws, { page: false });
    await ws.ui.patch(form('claim'));
    const left = fileOf('left');
    expect((await post(server.url, { authorization: `Bearer ${server.token}` }, 'claim', 'receipt', left)).status).toBe(201);
    const unused = await ws.blobs.register(fileOf('unused'), { mediaType: 'text/plain' });
    await server.close();
    await ws.close();
    const golem = async (args: string[]) => {
      let stdout = '';
      const code = await run(args, { stdout: (t) => (stdout += t), stderr: () => undefined, cwd }, {});
      return { code, stdout };
    };
    const found = await golem(['doctor']);
    expect(found.code).toBe(1);
    expect(found.stdout).toContain(`[UPLOAD_STALE]`);
    expect(found.stdout).toContain(`[BLOB_UNUSED] blob ${unused.sha256}`);
    const repaired = await golem(['doctor', '--repair']);
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toContain(`released  upload of ${sha256Of(left)}`);
    expect(repaired.stdout).toContain(`repaired  collected unused blob ${unused.sha256}`);
    const after = await createWorkspace({ dir });
    cleanups.push(() => after.close());
    expect(await blobState(after, sha256Of(left))).toEqual(GONE);
    expect(await blobState(after, unused.sha256)).toEqual(GONE);
    expect(await golem(['doctor'])).toMatchObject({ code: 0, stdout: 'The workspace is sound.\n' });
  });
});

describe('held upload bytes are capped', () => {
  it('per instance: UPLOAD_QUOTA (413) before anything is stored; a replacement counts once', async () => {
    const { ws, upload } = await served({ uploads: { instanceBytes: 100 } });
    await ws.ui.patch(form('claim'));
    await ws.ui.patch(form('other'));
    expect((await upload('claim', 'receipt', fileOf('one', 60))).status).toBe(201);
    // The same field again: the first is replaced, so 60 bytes are held, not 120.
    expect((await upload('claim', 'receipt', fileOf('two', 60))).status).toBe(201);
    const over = fileOf('three', 60);
    const refused = await upload('claim', 'photo', over);
    expect(refused.status).toBe(413);
    expect(refused.json.error).toEqual({
      code: 'UPLOAD_QUOTA',
      message: 'the UI "claim" already holds 60 bytes of files not yet sent, and this file (60 bytes) would pass the cap of 100: send or remove one first',
    });
    expect(await blobState(ws, sha256Of(over))).toEqual({ registered: false, stored: false });
    expect((await ws.manager.blobStorage.list()).sort()).toEqual([sha256Of(fileOf('two', 60))]);
    // Another instance has its own cap; once sent, a file is no longer held against it.
    expect((await upload('other', 'photo', over)).status).toBe(201);
  });

  it('per user, over real HTTP with createGolemHandler: one user reaching the cap leaves another user free', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const golem = await createGolemHandler(ws, { auth: false, user: (r) => r.headers.get('x-user'), uploads: { instanceBytes: 100, userBytes: 150 } });
    cleanups.push(() => golem.close());
    const listener = getRequestListener(golem.fetch);
    const http: Server = createServer((req, res) => void listener(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => http.close(() => resolve())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const as = (user: string) => ({ 'x-user': user });
    const sessionOf = async (user: string) =>
      (
        (await (
          await fetch(`${url}/api/sessions`, { method: 'POST', headers: { ...as(user), 'content-type': 'application/json' }, body: '{}' })
        ).json()) as SessionSummary
      ).id;
    const ann = await sessionOf('ann');
    const bob = await sessionOf('bob');
    for (const id of ['a1', 'a2', 'a3']) await ws.ui.patch(form(id), { builtBy: ann });
    await ws.ui.patch(form('b1'), { builtBy: bob });
    expect((await post(url, as('ann'), 'a1', 'receipt', fileOf('a1', 70))).status).toBe(201);
    expect((await post(url, as('ann'), 'a2', 'receipt', fileOf('a2', 70))).status).toBe(201);
    const refused = await post(url, as('ann'), 'a3', 'receipt', fileOf('a3', 70));
    expect(refused).toMatchObject({ status: 413, json: { error: { code: 'UPLOAD_QUOTA' } } });
    expect(refused.json.error?.message).toContain('you already hold 140 bytes of files not yet sent, and this file (70 bytes) would pass the cap of 150');
    expect(await blobState(ws, sha256Of(fileOf('a3', 70)))).toEqual({ registered: false, stored: false });
    expect((await post(url, as('bob'), 'b1', 'receipt', fileOf('b1', 70))).status).toBe(201);
  });
});

describe('on PostgreSQL, two servers on one store', () => {
  it("see each other's uploads: the cap counts both, a replacement through one releases the other's, and either sweeps past the window", async () => {
    const schema = freshSchema();
    const time = movableClock();
    const open = async () => {
      const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }), blobStorage: postgresBlobStorage(PG_URL, { schema }), clock: time.clock });
      const server = await serve(ws, { page: false, uploads: { instanceBytes: 100 } });
      cleanups.push(
        () => ws.close(),
        () => server.close(),
      );
      return { ws, upload: (key: string, bytes: Uint8Array) => post(server.url, { authorization: `Bearer ${server.token}` }, 'claim', key, bytes) };
    };
    const one = await open();
    const two = await open();
    await one.ws.ui.patch(form('claim'));
    await two.ws.manager.refresh();
    const first = fileOf('first', 60);
    expect((await one.upload('receipt', first)).status).toBe(201);
    // Through the other server: 60 bytes are held already, on the instance, whichever server took them.
    const over = fileOf('over', 60);
    expect(await two.upload('photo', over)).toMatchObject({ status: 413, json: { error: { code: 'UPLOAD_QUOTA' } } });
    expect(await two.ws.manager.blobStorage.has(sha256Of(over))).toBe(false);
    // Another file for the same field through the other server: the first is let go, its bytes deleted from the shared storage.
    const second = fileOf('second', 60);
    expect((await two.upload('receipt', second)).status).toBe(201);
    await one.ws.manager.refresh();
    expect(await blobState(one.ws, sha256Of(first))).toEqual(GONE);
    expect(await blobState(one.ws, sha256Of(second))).toEqual(HELD);
    // Past the window, the first server's sweep releases what the second took.
    time.advance(HOUR);
    expect((await one.ws.ui.uploads.releaseStale()).map((u) => u.sha256)).toEqual([sha256Of(second)]);
    await two.ws.manager.refresh();
    expect(await blobState(two.ws, sha256Of(second))).toEqual(GONE);
    expect(two.ws.ui.uploads.list()).toEqual([]);
  });
});

/**
 * The UI catalog's routes over real HTTP (src/serve/ui-files.ts, docs/ui-catalog.md): the
 * catalog the page reads, a registered component's renderer, a file uploaded for a file field
 * (its media type, its size with and without a content-length, the field and instance it is
 * for, the token) then sent by a click and downloaded back only while the instance holds it;
 * another user's instance not found; the page's CSP allowing the image hosts the user allowed.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkspace, type PatchInput, type Workspace } from '../src/index.js';
import type { SessionSummary } from '../src/serve/api-types.js';
import { applyUiAction, createGolemHandler, serve, type GolemServer } from '../src/serve/index.js';
import { tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(page: string | false = false): Promise<{ ws: Workspace; server: GolemServer }> {
  const ws = await createWorkspace();
  const server = await serve(ws, { page });
  cleanups.push(
    () => ws.close(),
    () => server.close(),
  );
  return { ws, server };
}

const form = {
  id: 'f',
  type: 'form',
  bind: 'state.params',
  props: {
    fields: [
      { label: 'Receipt', key: 'receipt', type: 'file', accept: ['image/*'], maxBytes: 100 },
      { label: 'Any file', key: 'any', type: 'file' },
      { label: 'Name', key: 'name', type: 'text' },
    ],
  },
};
const build = (id = 'upload'): PatchInput => ({
  instanceId: '__CREATE__',
  newInstanceId: id,
  patches: [
    { op: 'set', path: 'blocks', value: [form] },
    { op: 'set', path: 'actions', value: [{ id: 'send', label: 'Send', style: 'primary' }] },
  ],
});

interface Answer {
  status: number;
  json: { error?: { code: string; message: string }; [key: string]: unknown };
}

/** POSTs bytes as a file, with the token unless told otherwise. */
async function upload(
  server: GolemServer,
  path: string,
  body: Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string> = { 'content-type': 'image/png', 'x-file-name': 'r.png' },
  token: string | null = server.token,
): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { ...(token !== null && { authorization: `Bearer ${token}` }), ...headers },
    body,
    ...(body instanceof ReadableStream && { duplex: 'half' }),
  } as RequestInit);
  return { status: res.status, json: (await res.json()) as Answer['json'] };
}

/** A body streamed in chunks, without a content-length. */
const streamed = (chunks: number, size: number) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < chunks; i++) controller.enqueue(new Uint8Array(size).fill(i));
      controller.close();
    },
  });

const bytes = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]);
const sha256 = createHash('sha256').update(bytes).digest('hex');

describe('GET /api/ui/catalog and the renderers', () => {
  it('lists the components, a registered renderer’s frame URL (its hash) and the image hosts; serves the frame, 404 for any other', async () => {
    const { ws, server } = await started();
    const dir = tempDir();
    const code = 'export function render(element, { value }) { element.textContent = String(value); }\n';
    writeFileSync(join(dir, 'rating.js'), code);
    const rating = {
      kind: 'input' as const,
      description: 'stars',
      props: { max: z.number() },
      value: z.number(),
      example: { label: 'S', key: 's', type: 'rating', max: 5 },
    };
    ws.ui.catalog.register({ ...rating, type: 'rating', renderer: join(dir, 'rating.js') });
    ws.ui.catalog.register({ ...rating, type: 'plain', example: { ...rating.example, type: 'plain' } });
    // A renderer that is not there is refused at register, not found missing by a page later.
    expect(() => ws.ui.catalog.register({ ...rating, type: 'gone', renderer: join(dir, 'missing.js'), example: { ...rating.example, type: 'gone' } })).toThrow(
      expect.objectContaining({ code: 'FILE_NOT_FOUND' }),
    );
    ws.ui.catalog.allowImageHosts('images.example.com');
    const auth = { authorization: `Bearer ${server.token}` };
    expect((await fetch(`${server.url}/api/ui/catalog`)).status).toBe(401);
    const res = await fetch(`${server.url}/api/ui/catalog`, { headers: auth });
    expect(res.status).toBe(200);
    const catalog = (await res.json()) as { components: { type: string; kind: string; renderer?: string }[]; imageHosts: string[] };
    expect(catalog.imageHosts).toEqual(['images.example.com']);
    expect(catalog.components.map((c) => c.type)).toEqual(ws.ui.catalog.components().map((c) => c.type));
    expect(catalog.components.find((c) => c.type === 'table')).toEqual({ type: 'table', kind: 'display' });
    expect(catalog.components.find((c) => c.type === 'plain')).toEqual({ type: 'plain', kind: 'input' });
    const sha256 = createHash('sha256').update(code).digest('hex');
    const entry = catalog.components.find((c) => c.type === 'rating');
    expect(entry).toEqual({ type: 'rating', kind: 'input', renderer: `/ui/components/rating.html?v=${sha256}` });
    // Never the file's path on the server.
    expect(JSON.stringify(catalog)).not.toContain(dir);

    const frame = await fetch(`${server.url}${entry?.renderer ?? ''}`);
    expect(frame.status).toBe(200);
    expect(frame.headers.get('content-type')).toContain('text/html');
    expect(frame.headers.get('x-content-type-options')).toBe('nosniff');
    expect(frame.headers.get('etag')).toBe(`"${sha256}"`);
    const csp = frame.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    expect(await frame.text()).toContain(JSON.stringify(code));
    // Asked again with its ETag: not sent again.
    expect((await fetch(`${server.url}${entry?.renderer ?? ''}`, { headers: { 'if-none-match': `"${sha256}"` } })).status).toBe(304);
    for (const path of [
      '/ui/components/plain.html',
      '/ui/components/nope.html',
      '/ui/components/rating',
      '/ui/components/rating.js',
      '/ui/components/text.html',
    ])
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(404);
  });
});

describe('POST /api/ui/<instanceId>/files/<key>', () => {
  it('holds the bytes as a blob and answers its reference; a click sending it stores it; it is downloaded only while the instance holds it', async () => {
    const { ws, server } = await started();
    await ws.ui.patch(build());
    const posted = await upload(server, '/api/ui/upload/files/receipt', bytes, {
      'content-type': 'image/png; charset=binary',
      'x-file-name': encodeURIComponent('dir/reçu.png'),
    });
    expect(posted).toEqual({ status: 201, json: { sha256, name: 'reçu.png', mediaType: 'image/png', size: bytes.byteLength } });
    expect(ws.blobs.get(sha256)).toMatchObject({ mediaType: 'image/png' });
    const download = (hash: string) => fetch(`${server.url}/api/ui/upload/files/${hash}`, { headers: { authorization: `Bearer ${server.token}` } });
    // Not yet the instance's: not found.
    const early = await download(sha256);
    expect(early.status).toBe(404);
    expect(((await early.json()) as Answer['json']).error?.code).toBe('BLOB_NOT_FOUND');

    const clicked = await applyUiAction(ws.ui, { instanceId: 'upload', actionId: 'send', values: { receipt: posted.json as never } });
    expect(clicked).toMatchObject({ ok: true, event: { version: 2 } });
    expect(ws.ui.get('upload')?.instance.state.params.receipt).toEqual(posted.json);
    const got = await download(sha256);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-disposition')).toContain("filename*=UTF-8''re%C3%A7u.png");
    expect(got.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes);
    expect((await fetch(`${server.url}/api/ui/upload/files/${sha256}`)).status).toBe(401);
    // Another blob of the workspace, a bad hash, or the file of another instance: not found.
    const other = await ws.blobs.register(new Uint8Array([9, 9, 9]), { mediaType: 'image/png' });
    for (const hash of [other.sha256, 'x'.repeat(64), '../../etc/passwd']) expect((await download(encodeURIComponent(hash))).status, hash).toBe(404);
    await ws.ui.patch(build('another'));
    expect((await fetch(`${server.url}/api/ui/another/files/${sha256}`, { headers: { authorization: `Bearer ${server.token}` } })).status).toBe(404);
    // Cleared from the state: no longer served.
    await ws.ui.patch({ instanceId: 'upload', patches: [{ op: 'remove', path: 'state.params.receipt' }] });
    expect((await download(sha256)).status).toBe(404);
  });

  it('refuses a media type the field does not accept, an empty body, and a file larger than maxBytes with or without a content-length', async () => {
    const { ws, server } = await started();
    await ws.ui.patch(build());
    const refused = (answer: Answer, status: number, code: string) => expect(answer).toMatchObject({ status, json: { error: { code } } });
    refused(
      await upload(server, '/api/ui/upload/files/receipt', bytes, { 'content-type': 'application/pdf', 'x-file-name': 'r.pdf' }),
      400,
      'INVALID_ARGUMENT',
    );
    refused(await upload(server, '/api/ui/upload/files/receipt', bytes, { 'content-type': 'not a type', 'x-file-name': 'r' }), 400, 'INVALID_ARGUMENT');
    refused(await upload(server, '/api/ui/upload/files/receipt', new Uint8Array(0)), 400, 'INVALID_ARGUMENT');
    refused(await upload(server, '/api/ui/upload/files/receipt', new Uint8Array(101)), 413, 'BLOB_TOO_LARGE');
    refused(await upload(server, '/api/ui/upload/files/receipt', streamed(4, 30)), 413, 'BLOB_TOO_LARGE');
    // The field without accept takes any type, up to 5 MiB, streamed or not.
    expect(await upload(server, '/api/ui/upload/files/any', streamed(3, 30), { 'content-type': 'application/pdf', 'x-file-name': 'a.pdf' })).toMatchObject({
      status: 201,
      json: { size: 90, mediaType: 'application/pdf', name: 'a.pdf' },
    });
    refused(await upload(server, '/api/ui/upload/files/any', streamed(6, 1024 * 1024)), 413, 'BLOB_TOO_LARGE');
    expect(await upload(server, '/api/ui/upload/files/receipt', new Uint8Array(100))).toMatchObject({ status: 201, json: { size: 100 } });
    // Nothing of the refused ones was kept.
    expect(
      ws.blobs
        .list()
        .map((b) => [b.mediaType, b.size])
        .sort(),
    ).toEqual([
      ['application/pdf', 90],
      ['image/png', 100],
    ]);
  });

  it('refuses an unknown instance or field, a field of another type, a body without x-file-name that is not JSON, and a call without the token', async () => {
    const { ws, server } = await started();
    await ws.ui.patch(build());
    for (const path of ['/api/ui/nope/files/receipt', '/api/ui/upload/files/nope', '/api/ui/upload/files/name'])
      expect(await upload(server, path, bytes), path).toMatchObject({ status: 404, json: { error: { code: 'UI_FIELD_NOT_FOUND' } } });
    expect(await upload(server, '/api/ui/upload/files/receipt', bytes, { 'content-type': 'image/png' })).toMatchObject({ status: 415 });
    expect(await upload(server, '/api/ui/upload/files/receipt', bytes, undefined, null)).toMatchObject({ status: 401 });
    expect(await upload(server, '/api/ui/upload/files/receipt', bytes, undefined, 'f'.repeat(64))).toMatchObject({ status: 401 });
  });
});

describe('with users', () => {
  it("another user's instance is not found, for an upload or a download", async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const golem = await createGolemHandler(ws, { auth: false, user: (request) => request.headers.get('x-user') });
    cleanups.push(() => golem.close());
    const call = (user: string, method: string, path: string, body?: Uint8Array, headers: Record<string, string> = {}) =>
      golem.fetch(
        new Request(`http://app.test${path}`, { method, headers: { 'x-user': user, ...headers }, ...(body !== undefined && { body: Uint8Array.from(body) }) }),
      );
    const session = (await (
      await call('ann', 'POST', '/api/sessions', new TextEncoder().encode('{}'), { 'content-type': 'application/json' })
    ).json()) as SessionSummary;
    await ws.ui.patch(build(), { builtBy: session.id });
    const file = { 'content-type': 'image/png', 'x-file-name': 'r.png' };
    const bobs = await call('bob', 'POST', '/api/ui/upload/files/receipt', bytes, file);
    expect(bobs.status).toBe(404);
    expect(((await bobs.json()) as Answer['json']).error?.code).toBe('UI_FIELD_NOT_FOUND');
    expect(ws.blobs.get(sha256)).toBeUndefined();
    const anns = await call('ann', 'POST', '/api/ui/upload/files/receipt', bytes, file);
    expect(anns.status).toBe(201);
    await applyUiAction(ws.ui, { instanceId: 'upload', actionId: 'send', values: { receipt: (await anns.json()) as never } });
    expect((await call('ann', 'GET', `/api/ui/upload/files/${sha256}`)).status).toBe(200);
    const download = await call('bob', 'GET', `/api/ui/upload/files/${sha256}`);
    expect(download.status).toBe(404);
    // Worded as for an instance that does not exist.
    const missing = await call('bob', 'GET', `/api/ui/nope/files/${sha256}`);
    expect(((await download.json()) as Answer['json']).error?.message.replace('upload', 'X')).toBe(
      ((await missing.json()) as Answer['json']).error?.message.replace('nope', 'X'),
    );
  });
});

describe("the page's content security policy", () => {
  it('lets images load from a host allowed with allowImageHosts, and no other', async () => {
    const dir = join(tempDir(), 'web');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>page</title>');
    const { ws, server } = await started(dir);
    const csp = async () => (await fetch(`${server.url}/`)).headers.get('content-security-policy') ?? '';
    const imgSrc = async () => /img-src ([^;]*)/.exec(await csp())?.[1];
    expect(await imgSrc()).toBe("'self' data:");
    ws.ui.catalog.allowImageHosts('images.example.com', 'cdn.example.org');
    expect(await imgSrc()).toBe("'self' data: https://images.example.com https://cdn.example.org");
    expect(await csp()).toContain("default-src 'self'");
    expect(await csp()).toContain("frame-ancestors 'none'");
  });
});

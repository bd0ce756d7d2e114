/**
 * The routes of the UI catalog (docs/ui-catalog.md) on `golem serve` and the handler:
 * - `GET /api/ui/catalog`: the components the page can draw, and the image hosts allowed;
 * - `GET /ui/components/<type>.html?v=<sha256>`: the sandboxed frame a registered component's
 *   renderer runs in (renderer-frame.ts), holding the snapshot `register` took; its ETag is the
 *   snapshot's sha256, which the catalog's URL carries (no token: a frame's address carries no header);
 * - `POST /api/ui/<instanceId>/files/<key>`: a file for a `file` field, held as a blob, at most
 *   the field's `maxBytes`; its reference is what the click then sends. Held until a click sends
 *   it, another file replaces it, it is removed or its window passes, and capped per instance
 *   and per user (`ws.ui.uploads`, UPLOAD_QUOTA);
 * - `DELETE /api/ui/<instanceId>/files/<sha256>`: the user's upload of that file, not yet sent, let go;
 * - `GET /api/ui/<instanceId>/files/<sha256>`: a file the instance holds, as a download.
 * Instances are those the request's user may see (`host.uiRecord`), as for images.
 */
import type { Context, Hono as HonoApp } from 'hono';
import { GolemError } from '../core/errors.js';
import { fileFieldBlobs } from '../ui/instance-checks.js';
import { accepts, VALUE_LIMITS } from '../ui/rules.js';
import type { UploadLimits } from '../ui/ui-uploads.js';
import type { ServeHost } from './host.js';
import { rendererFrame, RENDERER_FRAME_CSP } from './renderer-frame.js';

const FILE_REF = /^[0-9a-f]{64}$/;

export function mountUiRoutes(app: HonoApp, host: ServeHost, user: (c: Context) => string | null, uploads: Partial<UploadLimits> = {}): void {
  const catalog = host.workspace.ui.catalog;
  app.get('/api/ui/catalog', (c) => c.json(catalog.view((type, sha256) => `/ui/components/${encodeURIComponent(type)}.html?v=${sha256}`)));

  app.get('/ui/components/:file', (c) => {
    const type = /^(.+)\.html$/.exec(c.req.param('file'))?.[1];
    const renderer = type === undefined ? undefined : catalog.renderer(type);
    const asked = c.req.query('v');
    // Only the snapshot taken at register, and only under its own hash when one is named.
    if (renderer === undefined || (asked !== undefined && asked !== renderer.sha256)) return c.text('no such component renderer\n', 404);
    const etag = `"${renderer.sha256}"`;
    const headers = {
      etag,
      'cache-control': asked === undefined ? 'no-cache' : 'public, max-age=31536000, immutable',
      'content-security-policy': RENDERER_FRAME_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    };
    if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
    return c.body(rendererFrame(renderer.code), 200, { ...headers, 'content-type': 'text/html; charset=utf-8' });
  });

  app.post('/api/ui/:instanceId/files/:key', async (c) => {
    const instanceId = c.req.param('instanceId');
    const key = c.req.param('key');
    const record = host.uiRecord(user(c), instanceId);
    const field = record.instance.blocks.flatMap((b) => b.props?.fields ?? []).find((f) => f.key === key && f.type === 'file');
    if (field === undefined) throw new GolemError('UI_FIELD_NOT_FOUND', `the UI "${instanceId}" has no file field "${key}"`);
    const name = decodeName(c.req.header('x-file-name'));
    const mediaType = (c.req.header('content-type') ?? 'application/octet-stream').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!/^[\w.+-]+\/[\w.+-]+$/.test(mediaType)) throw new GolemError('INVALID_ARGUMENT', `"${mediaType}" is not a media type`);
    const accept = field.accept as string[] | undefined;
    if (!accepts(accept, mediaType)) throw new GolemError('INVALID_ARGUMENT', `the field "${key}" takes ${(accept ?? []).join(', ')}, not ${mediaType}`);
    const max = typeof field.maxBytes === 'number' ? field.maxBytes : VALUE_LIMITS.fileBytes;
    const bytes = await readLimited(c.req.raw, max);
    // Held until a click sends it, another file replaces it, it is removed, or its window passes; capped (UPLOAD_QUOTA).
    const held = await host.workspace.ui.uploads.upload({ instanceId: record.id, key, bytes, mediaType, filename: name, owner: user(c) }, uploads);
    return c.json({ sha256: held.sha256, name, mediaType, size: bytes.byteLength }, 201);
  });

  // The page's Remove: a file uploaded and not yet sent is let go at once.
  app.delete('/api/ui/:instanceId/files/:sha256', async (c) => {
    const record = host.uiRecord(user(c), c.req.param('instanceId'));
    await host.workspace.ui.uploads.remove(record.id, c.req.param('sha256').toLowerCase(), user(c));
    return c.body(null, 204);
  });

  app.get('/api/ui/:instanceId/files/:sha256', async (c) => {
    const instanceId = c.req.param('instanceId');
    const sha256 = c.req.param('sha256');
    const record = host.uiRecord(user(c), instanceId);
    const absent = () => new GolemError('BLOB_NOT_FOUND', `no file ${sha256} on the UI "${instanceId}"`);
    if (!FILE_REF.test(sha256) || !fileFieldBlobs(record.instance).has(sha256)) throw absent();
    const blob = host.workspace.blobs.get(sha256);
    if (blob === undefined) throw absent();
    const bytes = await host.workspace.blobs.read(sha256);
    return c.body(new Uint8Array(bytes), 200, {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(blob.filename ?? sha256)}`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
    });
  });
}

function decodeName(header: string | undefined): string {
  let name: string;
  try {
    name = header === undefined || header === '' ? 'file' : decodeURIComponent(header);
  } catch {
    throw new GolemError('INVALID_ARGUMENT', 'x-file-name is the file name, URI-encoded');
  }
  // A name, not a path; no control characters.
  // eslint-disable-next-line no-control-regex
  name = (name.split(/[\\/]/).pop() ?? 'file').replace(/[\u0000-\u001f\u007f]/g, '').slice(0, VALUE_LIMITS.fileName);
  return name === '' ? 'file' : name;
}

/** The body's bytes, refused with BLOB_TOO_LARGE past `max` (counted as they come, whatever content-length says). */
async function readLimited(request: Request, max: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  const tooLarge = () => new GolemError('BLOB_TOO_LARGE', `the file is larger than this field takes (${max.toLocaleString('en')} bytes)`);
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  const reader = request.body?.getReader() as ReadableStreamDefaultReader<Uint8Array> | undefined;
  if (reader === undefined) throw new GolemError('INVALID_ARGUMENT', 'send the file as the body');
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (size === 0) throw new GolemError('INVALID_ARGUMENT', 'the file is empty');
  return Buffer.concat(chunks);
}

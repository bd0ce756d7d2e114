/**
 * A user's new message from a protocol route (AG-UI, the AI SDK's chat) as the blocks of its
 * turn: its text, and its images, which Golem takes as PNG, JPEG, GIF or WebP sent inline in
 * base64, at most 5 MiB each (`checkImage`, before anything is written). The images are
 * stored as blobs held until the turn that references them is added, then let go
 * (`withUserBlocks`): a blob nothing references or holds may be collected meanwhile.
 */
import type { ContentBlock } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { Workspace } from '../create-workspace.js';

/** One part of a user's message: text, or an image's bytes in base64. */
export type UserPart = { type: 'text'; text: string } | { type: 'image'; mediaType: string; base64: string; filename?: string };

/** The most bytes an image a client sends inline may have (5 MiB). */
export const MAX_IMAGE = 5 * 1024 * 1024;

/** Refuses (INVALID_ARGUMENT, naming `path`) an image Golem does not take: not PNG, JPEG, GIF or WebP, empty, or over MAX_IMAGE. */
export function checkImage(mediaType: string, base64: string, path: string): void {
  if (!/^image\/(png|jpeg|gif|webp)$/.test(mediaType)) {
    throw new GolemError('INVALID_ARGUMENT', `${path}: images are PNG, JPEG, GIF or WebP, not ${mediaType}`);
  }
  const bytes = Math.floor((base64.replace(/=+$/, '').length * 3) / 4);
  if (bytes === 0) throw new GolemError('INVALID_ARGUMENT', `${path}: the image is empty`);
  if (bytes > MAX_IMAGE) throw new GolemError('INVALID_ARGUMENT', `${path}: the image is about ${bytes} bytes; at most ${MAX_IMAGE}`);
}

/**
 * Calls `use` with the message's blocks (adjacent texts joined with a blank line; images
 * stored as blobs, held while `use` runs) and lets the blobs go when it is done: by then the
 * turn `use` added references them, or nothing does and they go.
 *
 * @example
 * await withUserBlocks(ws, parts, (blocks) => runs.startWith(session, { blocks }))
 */
export async function withUserBlocks<T>(ws: Workspace, parts: readonly UserPart[], use: (blocks: ContentBlock[]) => Promise<T>): Promise<T> {
  const held: string[] = [];
  try {
    const blocks: ContentBlock[] = [];
    for (const part of parts) {
      if (part.type === 'image') {
        const filename = part.filename !== undefined && { filename: part.filename };
        const blob = await ws.blobs.register(Buffer.from(part.base64, 'base64'), { mediaType: part.mediaType, ...filename, hold: true });
        held.push(blob.sha256);
        blocks.push({ type: 'image', id: ws.manager.newId(), blob: { sha256: blob.sha256 }, mediaType: part.mediaType, ...filename });
        continue;
      }
      if (part.text === '') continue;
      const prev = blocks.at(-1);
      if (prev?.type === 'text') blocks[blocks.length - 1] = { ...prev, text: `${prev.text}\n\n${part.text}` };
      else blocks.push({ type: 'text', id: ws.manager.newId(), text: part.text });
    }
    return await use(blocks);
  } finally {
    for (const sha256 of held) await ws.blobs.release(sha256).catch(() => undefined);
  }
}

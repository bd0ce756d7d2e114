/**
 * A request's JSON body, read once with a size limit (the declared length is looked at
 * first, then the bytes as they come, so a body without a length cannot run over either):
 * INVALID_ARGUMENT when it is too large or not JSON.
 */
import { GolemError } from '../core/errors.js';

/** The most bytes a JSON body may have (1 MiB). */
export const MAX_BODY = 1024 * 1024;

export async function readJsonBody(request: Request, maxBytes: number = MAX_BODY): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes) throw new GolemError('INVALID_ARGUMENT', `the request body is ${declared} bytes; at most ${maxBytes}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader: ReadableStreamDefaultReader<Uint8Array> = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new GolemError('INVALID_ARGUMENT', `the request body is over ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new GolemError('INVALID_ARGUMENT', 'the request body is not JSON');
  }
}

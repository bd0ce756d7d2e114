/**
 * A `text/event-stream` response fed as events come: `open` gets a channel to send `data:`
 * frames on and to end the stream, and returns what to do when the stream ends (the client
 * went away, or `end` was called): stop following whatever fed it. A comment goes out every
 * 15 s while nothing else does, so proxies keep an idle stream open. A client that stops
 * reading is not buffered for without end: once more than `MAX_QUEUED` bytes wait for it,
 * its stream ends (what fed it goes on; it can follow again).
 */
export interface SseChannel {
  /** Sends one frame whose data is `data` (a string as it is, anything else as JSON), with `id` its event id when given (a client comes back with it as `Last-Event-ID`). */
  send(data: unknown, id?: string): void;
  /** Ends the stream. */
  end(): void;
}

const KEEP_ALIVE_MS = 15_000;
/** What may wait unread for one client before its stream is ended. */
export const MAX_QUEUED = 8 * 1024 * 1024;

export function sseResponse(open: (channel: SseChannel) => () => void, headers: Record<string, string> = {}): Response {
  const encoder = new TextEncoder();
  let cleanup: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const stop = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    cleanup?.();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const end = () => {
          if (closed) return;
          stop();
          controller.close();
        };
        const write = (text: string) => {
          if (closed) return;
          if ((controller.desiredSize ?? 0) < -MAX_QUEUED) return end();
          controller.enqueue(encoder.encode(text));
        };
        const channel: SseChannel = {
          send: (data, id) => write(`${id === undefined ? '' : `id: ${id}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`),
          end,
        };
        timer = setInterval(() => write(': keep-alive\n\n'), KEEP_ALIVE_MS);
        timer.unref();
        cleanup = open(channel);
        if (closed) cleanup();
      },
      // The client went away: the stream stops; what fed it goes on.
      cancel: stop,
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers,
    },
  });
}

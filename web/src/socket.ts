/**
 * The page's one WebSocket, reconnecting with a backoff (0.5 s doubling to 5 s). The server
 * sends a STATE_SNAPSHOT on every connect, so nothing is replayed here. While the browser is
 * offline it does not try (each try would fail); it connects again as soon as it is online.
 */
import type { OutgoingMessage, SocketEvent } from './types.js';

export type ConnectionState = 'connecting' | 'open' | 'closed';

const FIRST_DELAY = 500;
const MAX_DELAY = 5000;

export class ReconnectingSocket {
  #socket: WebSocket | null = null;
  #delay = FIRST_DELAY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  readonly #online = () => {
    if (this.#socket !== null || this.#closed) return;
    clearTimeout(this.#timer);
    this.#delay = FIRST_DELAY;
    this.#connect();
  };

  constructor(
    private readonly url: string,
    private readonly onEvent: (event: SocketEvent) => void,
    private readonly onState: (state: ConnectionState) => void,
  ) {
    window.addEventListener('online', this.#online);
    this.#connect();
  }

  /** Sends if connected; returns whether it was sent. */
  send(message: OutgoingMessage): boolean {
    if (this.#socket?.readyState !== WebSocket.OPEN) return false;
    this.#socket.send(JSON.stringify(message));
    return true;
  }

  close(): void {
    this.#closed = true;
    window.removeEventListener('online', this.#online);
    clearTimeout(this.#timer);
    this.#socket?.close();
  }

  #connect(): void {
    this.onState('connecting');
    const socket = new WebSocket(this.url);
    this.#socket = socket;
    socket.onopen = () => {
      this.#delay = FIRST_DELAY;
      this.onState('open');
    };
    socket.onmessage = (message: MessageEvent) => {
      if (typeof message.data !== 'string') return;
      let event: unknown;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      if (event !== null && typeof event === 'object' && typeof (event as { type?: unknown }).type === 'string') this.onEvent(event as SocketEvent);
    };
    socket.onclose = () => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.onState('closed');
      if (this.#closed || !navigator.onLine) return;
      this.#timer = setTimeout(() => this.#connect(), this.#delay);
      this.#delay = Math.min(this.#delay * 2, MAX_DELAY);
    };
  }
}

export function socketUrl(token: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}/ws?token=${encodeURIComponent(token)}`;
}

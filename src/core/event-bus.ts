/** A small typed event bus (seed 001 section 4.4). A failing listener never breaks the emitter. */

export type Listener<E> = (event: E) => void;

export class EventBus<Events extends object> {
  #listeners = new Map<keyof Events, Set<Listener<never>>>();
  readonly #onListenerError: (error: unknown, type: keyof Events) => void;

  constructor(options: { onListenerError?: (error: unknown, type: keyof Events) => void } = {}) {
    this.#onListenerError = options.onListenerError ?? (() => undefined);
  }

  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof Events>(type: K, listener: Listener<Events[K]>): () => void {
    let set = this.#listeners.get(type);
    if (set === undefined) this.#listeners.set(type, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => this.off(type, listener);
  }

  /** Subscribes for the next event of this type only. */
  once<K extends keyof Events>(type: K, listener: Listener<Events[K]>): () => void {
    const off = this.on(type, (event) => {
      off();
      listener(event);
    });
    return off;
  }

  off<K extends keyof Events>(type: K, listener: Listener<Events[K]>): void {
    this.#listeners.get(type)?.delete(listener as Listener<never>);
  }

  emit<K extends keyof Events>(type: K, event: Events[K]): void {
    const set = this.#listeners.get(type);
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        (listener as Listener<Events[K]>)(event);
      } catch (error) {
        this.#onListenerError(error, type);
      }
    }
  }

  listenerCount(type: keyof Events): number {
    return this.#listeners.get(type)?.size ?? 0;
  }

  clear(): void {
    this.#listeners.clear();
  }
}

/**
 * The sequential serializer (seed 001 section 4.3): runs one task at a time, in the
 * order they were submitted, so no two mutations ever interleave.
 */
export class Serializer {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /** Runs `task` after every task submitted before it has settled. */
  run<T>(task: () => Promise<T>): Promise<T> {
    this.#pending++;
    const result = this.#tail.then(task);
    this.#tail = result.then(
      () => void this.#pending--,
      () => void this.#pending--,
    );
    return result;
  }

  /** Whether a task is running or waiting. */
  get busy(): boolean {
    return this.#pending > 0;
  }

  /** Resolves when every task submitted so far has settled. */
  async idle(): Promise<void> {
    await this.#tail;
  }
}

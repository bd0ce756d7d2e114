/**
 * The links of the turn DAG the index keeps beside its turns: each version's child nodes
 * (first parents), the versions each session created, and the merges (a merge turn's
 * second parent, `merge.from`) by the turn they merged from and by the session that made them.
 */
import { addTo, removeFrom } from './index-tables.js';
import { turnKey, type Turn, type TurnRef } from './records.js';

/** The key under which root turns (parent null) are listed as children. */
const ROOT = '';
const EMPTY: ReadonlySet<string> = new Set();

export class TurnLinks {
  /** turn key (or ROOT) -> ids of the child nodes under that version. */
  readonly #children = new Map<string, Set<string>>();
  /** session id -> keys of the turn versions created in it. */
  readonly #createdIn = new Map<string, Set<string>>();
  /** turn key -> keys of the merge turns that merged from it. */
  readonly #mergedInto = new Map<string, Set<string>>();
  /** session id -> keys of the merge turns created in it. */
  readonly #mergesIn = new Map<string, Set<string>>();

  /** Links a turn version just stored (`newNode`: the first version of its node). */
  add(key: string, turn: Turn, newNode: boolean): void {
    if (newNode) addTo(this.#children, turn.parent === null ? ROOT : turnKey(turn.parent), turn.id);
    addTo(this.#createdIn, turn.sessionId, key);
    if (turn.merge === undefined) return;
    addTo(this.#mergedInto, turnKey(turn.merge.from), key);
    addTo(this.#mergesIn, turn.sessionId, key);
  }

  /** Unlinks a turn version removed (`nodeGone`: it was its node's last version). */
  remove(key: string, turn: Turn, nodeGone: boolean): void {
    if (nodeGone) removeFrom(this.#children, turn.parent === null ? ROOT : turnKey(turn.parent), turn.id);
    removeFrom(this.#createdIn, turn.sessionId, key);
    if (turn.merge === undefined) return;
    removeFrom(this.#mergedInto, turnKey(turn.merge.from), key);
    removeFrom(this.#mergesIn, turn.sessionId, key);
  }

  childrenOf(ref: TurnRef | null): ReadonlySet<string> {
    return this.#children.get(ref === null ? ROOT : turnKey(ref)) ?? EMPTY;
  }

  createdIn(sessionId: string): ReadonlySet<string> {
    return this.#createdIn.get(sessionId) ?? EMPTY;
  }

  mergedInto(ref: TurnRef): ReadonlySet<string> {
    return this.#mergedInto.get(turnKey(ref)) ?? EMPTY;
  }

  mergesIn(sessionId: string): ReadonlySet<string> {
    return this.#mergesIn.get(sessionId) ?? EMPTY;
  }

  clear(): void {
    for (const map of [this.#children, this.#createdIn, this.#mergedInto, this.#mergesIn]) map.clear();
  }
}

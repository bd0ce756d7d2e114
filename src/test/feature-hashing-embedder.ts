/**
 * A deterministic embedder for tests and offline examples: feature hashing over words.
 * Each word (lowercased, three letters or more, stopwords left out, a plural "s" dropped)
 * adds ±1 to the dimension its hash picks; words of one synonym group count as the group's
 * first word. The vector is normalised to length 1. It knows no meaning but the synonyms it
 * is given: a stand-in for an embedding model, not a substitute for one.
 */
import { createHash } from 'node:crypto';
import type { Embedder } from '../models/index.js';
import { searchTerms } from '../prompt/index.js';
import { GolemError } from '../core/errors.js';

/** How `featureHashingEmbedder` hashes. */
export interface FeatureHashingOptions {
  /** The vector's length (default 512). */
  dimensions?: number;
  /** Groups of words that mean the same here, e.g. `[['deploy', 'push', 'ship']]`. */
  synonyms?: readonly (readonly string[])[];
}

/**
 * An `Embedder` by feature hashing over words, with optional synonyms: the same text always
 * gives the same vector, with no model and no network. Its `id` names its settings.
 *
 * @example
 * const embed = featureHashingEmbedder({ synonyms: [['deploy', 'push', 'ship']] })
 * const ws = await createWorkspace({ prompt: { retriever: hybridRetriever({ embed }) } })
 */
export function featureHashingEmbedder(options: FeatureHashingOptions = {}): Embedder {
  const dimensions = options.dimensions ?? 512;
  if (!Number.isInteger(dimensions) || dimensions < 2 || dimensions > 16_384) {
    throw new GolemError('INVALID_ARGUMENT', `dimensions must be a whole number from 2 to 16384 (got ${dimensions})`);
  }
  const canonical = new Map<string, string>();
  for (const group of options.synonyms ?? []) {
    const [first] = group.map(stem);
    if (first !== undefined) for (const word of group) canonical.set(stem(word.toLowerCase()), first);
  }
  const settings = createHash('sha256')
    .update(JSON.stringify(options.synonyms ?? []))
    .digest('hex')
    .slice(0, 12);
  const vectorOf = (text: string): number[] => {
    const vector = new Array<number>(dimensions).fill(0);
    // A small constant feature, so a text of stopwords alone still has a direction.
    vector[0] = 0.01;
    for (const term of searchTerms(text)) {
      const word = canonical.get(stem(term)) ?? stem(term);
      const hash = fnv1a(word);
      const at = 1 + (hash % (dimensions - 1));
      vector[at] = (vector[at] as number) + ((hash >>> 31) & 1 ? -1 : 1);
    }
    const norm = Math.sqrt(vector.reduce((n, x) => n + x * x, 0));
    return vector.map((x) => x / norm);
  };
  return {
    id: `feature-hashing:${dimensions}:${settings}`,
    embed: (texts) => Promise.resolve(texts.map(vectorOf)),
  };
}

/** The word without a plural "s" (not "ss"). */
function stem(word: string): string {
  const w = word.toLowerCase();
  return w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

/** FNV-1a, 32 bits, unsigned. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

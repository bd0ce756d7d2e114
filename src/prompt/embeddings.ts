/**
 * The vectors semantic recall ranks by, kept in the workspace: one `embedding` record per
 * text and embedding model, keyed by the sha256 of both, so a text is embedded once, and a
 * reopened workspace (or another process on the same store) embeds nothing it already has.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineCommand, fail, Timestamp, type CommandMapOf, type WorkspaceExtension, type Write } from '../core/index.js';

/** The most numbers one vector may have. */
export const MAX_DIMENSIONS = 16_384;

/** A text's vector under one embedding model. */
export const Embedding = z.strictObject({
  /** `embeddingKey(model, text)`. */
  key: z.string().regex(/^[0-9a-f]{64}$/),
  /** The embedder's id. */
  model: z.string().min(1).max(300),
  vector: z.array(z.number().finite()).min(1).max(MAX_DIMENSIONS),
  createdAt: Timestamp,
});
export type Embedding = z.infer<typeof Embedding>;

/** Where a text's vector under a model is kept: the sha256 of the model's id and the text. */
export function embeddingKey(model: string, text: string): string {
  return createHash('sha256').update(model).update('\0').update(text).digest('hex');
}

/**
 * Keeps vectors. A key already kept is left as it is (two processes that embedded the same
 * text at once keep one). Every vector of one model must have the length of those kept.
 */
export const embeddingPut = defineCommand({
  type: 'embedding:put',
  description: 'Keeps the vectors of texts under an embedding model, by content hash.',
  payload: z.strictObject({
    vectors: z
      .array(z.strictObject({ key: Embedding.shape.key, model: Embedding.shape.model, vector: Embedding.shape.vector }))
      .min(1)
      .max(4096),
  }),
  reduce(payload, ctx) {
    const kept = ctx.index.collection('embedding');
    const lengths = new Map<string, number>();
    for (const e of kept.values()) if (!lengths.has(e.model)) lengths.set(e.model, e.vector.length);
    const writes: Write[] = [];
    const seen = new Set<string>();
    for (const v of payload.vectors) {
      const length = lengths.get(v.model) ?? v.vector.length;
      if (v.vector.length !== length) {
        throw fail('EMBEDDING_INVALID', `a vector of ${v.model} has ${v.vector.length} numbers where the others have ${length}`, {
          model: v.model,
          expected: length,
          got: v.vector.length,
        });
      }
      if (v.vector.every((x) => x === 0))
        throw fail('EMBEDDING_INVALID', `a vector of ${v.model} is all zeros: it has no direction to compare`, { model: v.model });
      lengths.set(v.model, length);
      if (kept.has(v.key) || seen.has(v.key)) continue;
      seen.add(v.key);
      const record: Embedding = { key: v.key, model: v.model, vector: v.vector, createdAt: ctx.now };
      writes.push({ op: 'put', collection: 'embedding', key: v.key, value: record });
    }
    return { writes, result: { added: writes.length } };
  },
});

/** The kept vectors as a workspace extension (`createWorkspace` registers it). */
export const embeddingsExtension: WorkspaceExtension = {
  name: 'embeddings',
  collections: { embedding: Embedding },
  commands: [embeddingPut],
};

declare module '../core/manager.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface CommandMap extends CommandMapOf<typeof embeddingPut> {}
}

declare module '../core/workspace-index.js' {
  interface CollectionMap {
    embedding: Embedding;
  }
}

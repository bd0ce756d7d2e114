/**
 * `/compact`: the workspace's summarizer run over a session on demand. The turns so far (the
 * ones an earlier summary stands for included, through that summary) become one summary
 * turn; later prompts send the summary in their place, and the turns stay in the DAG.
 */
import type { ModelAdapter } from '../models/model-adapter.js';
import { summarizeInChunks } from '../prompt/summarizer.js';
import type { Session } from '../prompt/session.js';

/** How a compaction went: the turns it summarized (0: nothing to do) and the summary's size. */
export interface Compaction {
  turns: number;
  summaryTokens: number;
}

/** Summarizes what `session`'s next prompt would hold into a summary turn at its head. */
export async function compactSession(session: Session, model: ModelAdapter, options: { signal?: AbortSignal } = {}): Promise<Compaction> {
  const built = await session.buildPrompt({ model });
  const turns = [...built.dropped, ...built.sent].sort((a, b) => a.seq - b.seq);
  if (turns.length === 0) return { turns: 0, summaryTokens: 0 };
  const text = await summarizeInChunks(model, turns, {
    budget: built.record.tokens.budget,
    ...(built.summaries.length > 0 && { earlier: built.summaries.join('\n\n') }),
    ...(options.signal !== undefined && { signal: options.signal }),
  });
  // The new summary stands for the earlier ones too (a rolling summary), as the automatic one does.
  const summarizes = [...built.record.summarized, ...built.summaryTurns, ...turns.map((t) => ({ id: t.id, version: t.version }))];
  await session.addTurn(
    {
      role: 'system',
      blocks: [{ type: 'summary', text, summarizes }],
      meta: { summary: { model: `${model.provider}:${model.modelId}`, requested: 'compact' } },
    },
    { expectedHead: session.head() },
  );
  return { turns: turns.length, summaryTokens: model.countTokens(text) };
}

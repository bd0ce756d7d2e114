/**
 * The summarizer: when history no longer fits, the model compresses the oldest turns
 * into a `summary` block. The summarised turns stay in the DAG, untouched; the prompt
 * pipeline sends the summary in their place.
 */
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Turn } from '../workspace/records.js';

export const SUMMARY_INSTRUCTION =
  'You compress conversations. Summarise the conversation below so it can replace it: keep facts, decisions, names, numbers, commitments and open questions; drop pleasantries. Write only the summary, in the language of the conversation.';

/** Asks `model` for a summary of `turns` (and of an earlier summary they continue). */
export async function summarize(model: ModelAdapter, turns: readonly Turn[], options: { earlier?: string; signal?: AbortSignal } = {}): Promise<string> {
  const lines = turns.map((t) => {
    const text = t.blocks
      .map((b) => (b.type === 'text' ? b.text : b.type === 'tool_use' ? `[called ${b.name} ${JSON.stringify(b.args)}]` : b.type === 'tool_result' ? `[tool result: ${b.content.map((p) => (p.type === 'text' ? p.text : `<${p.type}>`)).join(' ')}]` : b.type === 'image' || b.type === 'document' ? `<${b.type}>` : ''))
      .filter((s) => s !== '')
      .join(' ');
    return `${t.role}: ${text}`;
  });
  const earlier = options.earlier === undefined ? '' : `Summary of what came before:\n${options.earlier}\n\n`;
  const result = await model.generate(
    { system: SUMMARY_INSTRUCTION, messages: [{ role: 'user', content: [{ type: 'text', text: `${earlier}Conversation:\n${lines.join('\n')}` }] }] },
    options.signal === undefined ? {} : { signal: options.signal },
  );
  return result.text.trim();
}

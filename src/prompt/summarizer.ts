/**
 * The summarizer: when history no longer fits, the model compresses the oldest turns
 * into a `summary` block. The summarised turns stay in the DAG, untouched; the prompt
 * pipeline sends the summary in their place.
 */
import { collectStream, type ModelAdapter } from '../models/model-adapter.js';
import type { Prompt } from '../models/prompt.js';
import { withTimeLimits, type ModelTimeLimits } from '../models/time-limits.js';
import type { Turn } from '../core/records.js';

export const SUMMARY_INSTRUCTION =
  'You compress conversations. Summarise the conversation below so it can replace it: keep facts, decisions, names, numbers, commitments and open questions; drop pleasantries. When a summary of what came before is given, your summary replaces it too, so carry its content forward. Write only the summary, in the language of the conversation.';

/** The lines a turn contributes to a summarizer's prompt. */
function lineOf(t: Turn): string {
  const text = t.blocks
    .map((b) =>
      b.type === 'text'
        ? b.text
        : b.type === 'tool_use'
          ? `[called ${b.name} ${JSON.stringify(b.args)}]`
          : b.type === 'tool_result'
            ? `[tool result: ${b.content.map((p) => (p.type === 'text' ? p.text : `<${p.type}>`)).join(' ')}]`
            : b.type === 'image' || b.type === 'document'
              ? `<${b.type}>`
              : '',
    )
    .filter((s) => s !== '')
    .join(' ');
  return `${t.role}: ${text}`;
}

/**
 * Summarises turns of any length within a token budget: in chunks that fit, oldest first,
 * each summary carried into the next (a rolling summary).
 */
export async function summarizeInChunks(
  model: ModelAdapter,
  turns: readonly Turn[],
  options: { budget: number; earlier?: string; signal?: AbortSignal } & ModelTimeLimits,
): Promise<string> {
  // Half the budget for the turns of one call: the rest for the instruction, the summary so far and the answer.
  const room = Math.max(256, Math.floor(options.budget / 2));
  let summary = options.earlier;
  let chunk: Turn[] = [];
  let used = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    const { budget: _budget, earlier: _earlier, ...call } = options;
    summary = await summarize(model, chunk, { ...call, ...(summary !== undefined && { earlier: summary }) });
    chunk = [];
    used = 0;
  };
  for (const turn of turns) {
    let line = lineOf(turn);
    let tokens = model.countTokens(line);
    if (tokens > room) {
      line = `${line.slice(0, Math.floor(line.length * (room / tokens)))}…`; // one huge turn: its beginning stands for it
      tokens = model.countTokens(line);
    }
    if (used + tokens > room) await flush();
    chunk.push({ ...turn, blocks: [{ type: 'text', text: line.slice(turn.role.length + 2) }] });
    used += tokens;
  }
  await flush();
  return summary ?? '';
}

/** Asks `model` for a summary of `turns` (and of an earlier summary they continue). */
export async function summarize(
  model: ModelAdapter,
  turns: readonly Turn[],
  options: { earlier?: string; signal?: AbortSignal } & ModelTimeLimits = {},
): Promise<string> {
  const lines = turns.map(lineOf);
  const earlier = options.earlier === undefined ? '' : `Summary of what came before:\n${options.earlier}\n\n`;
  const prompt: Prompt = {
    system: SUMMARY_INSTRUCTION,
    messages: [{ role: 'user', content: [{ type: 'text', text: `${earlier}Conversation:\n${lines.join('\n')}` }] }],
  };
  // The same time limits as an answer's: a summariser that stops sending must not hold the run.
  const result = await collectStream(withTimeLimits((signal) => model.stream(prompt, { signal }), options));
  return result.text.trim();
}

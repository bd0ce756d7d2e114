/**
 * Turns to prompt messages, in a shape every provider accepts: each block goes to the
 * role that may carry it, a tool call is always followed by its result, a result never
 * stands without its call, tool results carry text (their media follow as a user message),
 * and the conversation opens with the user.
 */
import type { ContentBlock } from '../core/blocks.js';
import type { PromptMedia, PromptMessage, PromptPart } from '../models/prompt.js';
import type { Turn } from '../core/records.js';

/** The user message put first when the history sent opens with an answer. */
export const CONTINUED = '(The conversation continues from earlier turns not shown here.)';
/** The result sent for a call whose result never came (interrupted, or cut from the history). */
export const NO_RESULT = '(no result: this call did not complete)';

/** Media types sent as text: their bytes are read and put in the prompt as a text part. */
export function isTextDocument(mediaType: string): boolean {
  return mediaType.startsWith('text/') || /^application\/(json|xml|x-yaml|yaml|csv|javascript|typescript)$/.test(mediaType);
}

type MediaBlock = { blob: { sha256: string }; mediaType: string; filename?: string | undefined; title?: string | undefined };

export interface MessageSources {
  /** Bytes of a blob as the provider should get them (inline or by file id). */
  media(block: MediaBlock): Promise<PromptMedia>;
  /** A text document's content. */
  text(block: MediaBlock): Promise<string>;
}

type Role = PromptMessage['role'];

/** The prompt messages for a run of turns. */
export async function toMessages(turns: readonly Turn[], sources: MessageSources): Promise<PromptMessage[]> {
  const names = new Map<string, string>();
  for (const turn of turns) for (const b of turn.blocks) if (b.type === 'tool_use') names.set(b.callId, b.name);
  const out: PromptMessage[] = [];
  const push = (role: Role, part: PromptPart) => {
    const last = out.at(-1);
    if (last !== undefined && last.role === role) last.content.push(part);
    else out.push({ role, content: [part] });
  };
  const mediaPart = async (b: ContentBlock & MediaBlock): Promise<PromptPart> => {
    if (b.type === 'document' && isTextDocument(b.mediaType)) {
      return { type: 'text', text: `[Document${b.filename === undefined ? '' : `: ${b.filename}`}]\n${await sources.text(b)}` };
    }
    const name = b.filename === undefined ? {} : { filename: b.filename };
    return b.type === 'image'
      ? { type: 'image', mediaType: b.mediaType, ...name, ...(await sources.media(b)) }
      : {
          type: 'document',
          mediaType: b.mediaType,
          ...name,
          ...(b.type === 'document' && b.title !== undefined && { title: b.title }),
          ...(await sources.media(b)),
        };
  };

  // A call id used twice would be refused (ids must be unique): later uses get a suffix, and each result
  // goes to the oldest call of its id still waiting for one.
  const seen = new Set<string>();
  const waiting = new Map<string, string[]>();
  const idOf = (callId: string, fresh: boolean): string => {
    const queue = waiting.get(callId) ?? [];
    if (!fresh) return queue.shift() ?? callId;
    let id = callId;
    for (let n = 2; seen.has(id); n++) id = `${callId}~${n}`;
    seen.add(id);
    waiting.set(callId, [...queue, id]);
    return id;
  };

  for (const turn of turns) {
    // Where ordinary content of this turn goes: answers stay the assistant's, everything else is the user's side.
    const home: Role = turn.role === 'assistant' ? 'assistant' : 'user';
    const attachments: PromptPart[] = []; // media of tool results, sent after all of the turn's results
    for (const block of turn.blocks) {
      switch (block.type) {
        case 'text':
          if (block.text.trim() !== '') push(home, { type: 'text', text: turn.role === 'system' ? `[System note] ${block.text}` : block.text });
          break;
        case 'thinking':
          // Only signed (or redacted) thinking can go back (Anthropic verifies it, others ignore it); unsigned thinking stays in the turn.
          if (home === 'assistant' && (block.signature !== undefined || block.redacted !== undefined))
            push('assistant', {
              type: 'thinking',
              text: block.thinking,
              ...(block.signature !== undefined && { signature: block.signature }),
              ...(block.redacted !== undefined && { redacted: block.redacted }),
            });
          break;
        case 'image':
        case 'document':
          // Models do not take media in their own turns: an answer's attachment is named, not sent.
          if (home === 'assistant') push('assistant', { type: 'text', text: `[${block.type}${block.filename === undefined ? '' : `: ${block.filename}`}]` });
          else push('user', await mediaPart(block));
          break;
        case 'tool_use':
          push('assistant', {
            type: 'tool-call',
            callId: idOf(block.callId, true),
            name: block.name,
            input: block.args,
            ...(block.providerExecuted === true && { providerExecuted: true }),
            ...(block.providerMetadata !== undefined && { providerMetadata: block.providerMetadata }),
          });
          break;
        case 'server_tool_result':
          // The provider's own result goes back in the answer, beside its call, as the provider sent it.
          if (home === 'assistant')
            push('assistant', {
              type: 'server-tool-result',
              callId: idOf(block.callId, false),
              name: block.name,
              output: block.output,
              ...(block.isError === true && { isError: true }),
              ...(block.providerMetadata !== undefined && { providerMetadata: block.providerMetadata }),
            });
          break;
        case 'tool_result': {
          const text = block.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
          const media = block.content.filter((p) => p.type !== 'text');
          const note =
            media.length === 0
              ? ''
              : `${text === '' ? '' : '\n'}(${media.length === 1 ? '1 attachment follows' : `${media.length} attachments follow`} after the results)`;
          push('tool', {
            type: 'tool-result',
            callId: idOf(block.callId, false),
            name: names.get(block.callId) ?? 'unknown_tool',
            output: { type: 'text', text: text + note === '' ? '(empty result)' : text + note },
            ...(block.isError === true && { isError: true }),
          });
          for (const part of media) attachments.push(await mediaPart(part as ContentBlock & MediaBlock));
          break;
        }
        default:
          break; // summaries and role transitions shape the system instruction instead
      }
    }
    for (const part of attachments) push('user', part);
  }
  // Thinking stands only before what it led to: an answer of nothing but thinking (cut off) is not sent.
  const sendable = out.filter((m) => !(m.role === 'assistant' && m.content.every((p) => p.type === 'thinking')));
  return openWithUser(pairToolCalls(sendable));
}

/**
 * Every tool call answered right after the message that made it, every result sent after
 * its call: a result that lost its call becomes user text, a call that lost its result gets
 * a result saying so.
 */
export function pairToolCalls(messages: readonly PromptMessage[]): PromptMessage[] {
  const out: PromptMessage[] = [];
  let pending = new Map<string, string>(); // callId -> tool name, of the last assistant message
  const settle = () => {
    if (pending.size === 0) return;
    const results: PromptPart[] = [...pending].map(([callId, name]) => ({
      type: 'tool-result',
      callId,
      name,
      output: { type: 'text', text: NO_RESULT },
      isError: true,
    }));
    const last = out.at(-1);
    if (last?.role === 'tool') last.content.push(...results);
    else out.push({ role: 'tool', content: results });
    pending = new Map();
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      const answered: PromptPart[] = [];
      const orphans: PromptPart[] = [];
      for (const part of message.content) {
        if (part.type === 'tool-result' && pending.has(part.callId)) {
          answered.push(part);
          pending.delete(part.callId);
        } else if (part.type === 'tool-result') {
          const text = part.output.type === 'text' ? part.output.text : '';
          orphans.push({
            type: 'text',
            text: `[Result of an earlier ${part.name} call (${part.callId})${part.isError === true ? ', an error' : ''}]\n${text}`,
          });
        }
      }
      if (answered.length > 0) out.push({ role: 'tool', content: answered });
      settle();
      if (orphans.length > 0) out.push({ role: 'user', content: orphans });
      continue;
    }
    settle();
    out.push({ role: message.role, content: [...message.content] });
    if (message.role === 'assistant') {
      // A call the provider ran itself is answered in the message: no tool result is owed for it.
      for (const part of message.content) if (part.type === 'tool-call' && part.providerExecuted !== true) pending.set(part.callId, part.name);
    }
  }
  settle();
  // Merging again: turning orphans into user text can put two user messages side by side.
  return out.reduce<PromptMessage[]>((merged, m) => {
    const last = merged.at(-1);
    if (last !== undefined && last.role === m.role) last.content.push(...m.content);
    else merged.push(m);
    return merged;
  }, []);
}

/** Providers want the conversation to open with the user (Anthropic requires it). */
function openWithUser(messages: PromptMessage[]): PromptMessage[] {
  if (messages.length > 0 && messages[0]?.role !== 'user') messages.unshift({ role: 'user', content: [{ type: 'text', text: CONTINUED }] });
  return messages;
}

/**
 * A Golem thread as AG-UI messages, and back. Out: the turns on a session's path as the
 * messages of a MESSAGES_SNAPSHOT, each with an id a client keeps (the turn's id; a call's
 * result `<turn>:<call>:result`; a turn's reasoning `<turn>:reasoning`), so the messages a
 * client sends back name what Golem has. In: what is new in a client's messages (what follows
 * the last one Golem knows): the user's text, to run on, and the results of its own tools.
 */
import type { Message } from '@ag-ui/core';
import { GolemError } from '../core/errors.js';
import type { Turn } from '../core/records.js';
import type { ClientResult } from './client-tools.js';
import { checkImage, type UserPart } from './user-parts.js';

/** The id a call's result has as an AG-UI tool message. */
export const resultId = (turnId: string, callId: string) => `${turnId}:${callId}:result`;

/** The path's turns as AG-UI messages (system turns, which the user does not see, left out). */
export function threadMessages(turns: readonly Turn[]): Message[] {
  const out: Message[] = [];
  // Which assistant turn made each call, for its result's id.
  const callTurn = new Map<string, string>();
  for (const turn of turns) {
    const text = turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    if (turn.role === 'user') {
      const images = turn.blocks.filter((b) => b.type === 'image' || b.type === 'document').length;
      if (text !== '' || images > 0)
        out.push({ id: turn.id, role: 'user', content: images > 0 ? `${text}${text === '' ? '' : '\n'}[${images} attachment(s)]` : text });
    } else if (turn.role === 'assistant') {
      const thinking = turn.blocks.flatMap((b) => (b.type === 'thinking' ? [b.thinking] : [])).join('\n');
      if (thinking !== '') out.push({ id: `${turn.id}:reasoning`, role: 'reasoning', content: thinking });
      const calls = turn.blocks.flatMap((b) => (b.type === 'tool_use' && b.providerExecuted !== true ? [b] : []));
      for (const call of calls) callTurn.set(call.callId, turn.id);
      out.push({
        id: turn.id,
        role: 'assistant',
        ...(text !== '' && { content: text }),
        ...(calls.length > 0 && {
          toolCalls: calls.map((c) => ({ id: c.callId, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.args) } })),
        }),
      });
    }
    for (const block of turn.blocks) {
      if (block.type !== 'tool_result') continue;
      const content = block.content.flatMap((c) => (c.type === 'text' ? [c.text] : [`[${c.type}]`])).join('\n');
      out.push({
        id: resultId(callTurn.get(block.callId) ?? turn.id, block.callId),
        role: 'tool',
        toolCallId: block.callId,
        content,
        ...(block.isError === true && { error: content }),
      });
    }
  }
  return out;
}

/** What a client's messages add to the thread. */
export interface ClientInput {
  /** The new user messages, each with its place in the request (for errors). */
  user: { message: Extract<Message, { role: 'user' }>; index: number }[];
  /** The last new user message's id: the turn's, so the client and Golem name it alike. */
  messageId: string | undefined;
  /** The results of the client's own tools, by call id. */
  results: Map<string, ClientResult>;
}

/**
 * What is new in `messages`: those after the last one whose id the thread has (`known`); when
 * the client names none of them (it keeps its own ids), those after its last assistant message.
 * New user messages are the input, tool messages results of the client's tools; other roles
 * (assistant, system, developer, reasoning, activity: the client's own copies) are not input.
 * Nothing is written: `userParts` gives the turn's parts once the request is accepted.
 */
export function readClientInput(messages: readonly Message[], known: ReadonlySet<string>): ClientInput {
  let last = -1;
  messages.forEach((m, i) => {
    if (known.has(m.id)) last = i;
  });
  if (last === -1 && known.size > 0) last = messages.findLastIndex((m) => m.role === 'assistant');
  const input: ClientInput = { user: [], messageId: undefined, results: new Map() };
  for (const [index, message] of messages.entries()) {
    if (index <= last) continue;
    if (message.role === 'user') {
      input.user.push({ message, index });
      input.messageId = message.id;
    } else if (message.role === 'tool') {
      const content = typeof message.content === 'string' ? message.content : message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      input.results.set(message.toolCallId, { content, ...(message.error !== undefined && { error: message.error }) });
    }
  }
  return input;
}

/** The new user messages as the parts of one turn's message, in order (`withUserBlocks` makes its blocks). */
export function userParts(user: ClientInput['user']): UserPart[] {
  return user.flatMap(({ message }): UserPart[] => {
    if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
    return message.content.flatMap((part): UserPart[] => {
      if (part.type === 'text') return [{ type: 'text', text: part.text }];
      if (part.type === 'image' && part.source.type === 'data') return [{ type: 'image', mediaType: part.source.mimeType, base64: part.source.value }];
      throw new GolemError('INTERNAL', 'a part checkUserParts should have refused');
    });
  });
}

/** Checks the new user messages' parts before anything is written (INVALID_ARGUMENT names the part). */
export function checkUserParts(user: ClientInput['user']): void {
  for (const { message, index } of user) {
    if (typeof message.content === 'string') continue;
    for (const [j, part] of message.content.entries()) {
      const path = `messages[${index}].content[${j}]`;
      if (part.type === 'text') continue;
      if (part.type !== 'image' || part.source.type !== 'data') {
        const what = part.type === 'image' ? 'an image by URL (send its bytes: a data source)' : `a ${part.type} part`;
        throw new GolemError('INVALID_ARGUMENT', `${path}: Golem takes text and images (PNG, JPEG, GIF, WebP as data), not ${what}`);
      }
      checkImage(part.source.mimeType, part.source.value, path);
    }
  }
}

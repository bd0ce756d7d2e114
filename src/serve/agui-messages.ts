/**
 * A Golem thread as AG-UI messages, and back. Out: the turns on a session's path as the
 * messages of a MESSAGES_SNAPSHOT, each with an id a client keeps (the turn's id; a call's
 * result `<turn>:<call>:result`; a turn's reasoning `<turn>:reasoning`), so the messages a
 * client sends back name what Golem has. In: what is new in a client's messages (what follows
 * the last one Golem knows): the user's text, to run on, and the results of its own tools.
 */
import type { ContentPart, Message } from '@ag-ui/core';
import type { ContentBlock } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { Turn } from '../core/records.js';
import type { Workspace } from '../create-workspace.js';
import type { ClientResult } from './client-tools.js';

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
  /** The new user messages, as the blocks of one turn (undefined when there is none). */
  blocks: ContentBlock[] | undefined;
  /** The last new user message's id: the turn's, so the client and Golem name it alike. */
  messageId: string | undefined;
  /** The results of the client's own tools, by call id. */
  results: Map<string, ClientResult>;
}

/**
 * What is new in `messages`: those after the last one whose id the thread has (`known`); when
 * the client names none of them (it keeps its own ids), those after its last assistant message.
 * New user messages become one turn's blocks; tool messages, results; other roles (assistant,
 * system, developer, reasoning, activity: the client's own copies) are not taken as input.
 */
export async function readClientInput(ws: Workspace, messages: readonly Message[], known: ReadonlySet<string>): Promise<ClientInput> {
  let last = -1;
  messages.forEach((m, i) => {
    if (known.has(m.id)) last = i;
  });
  if (last === -1 && known.size > 0) last = messages.findLastIndex((m) => m.role === 'assistant');
  const blocks: ContentBlock[] = [];
  const results = new Map<string, ClientResult>();
  let messageId: string | undefined;
  for (const [i, message] of messages.entries()) {
    if (i <= last) continue;
    if (message.role === 'user') {
      messageId = message.id;
      for (const block of await userBlocks(ws, message.content, `messages[${i}]`)) {
        // Several new messages are one turn: adjacent texts joined, a blank line between.
        const prev = blocks.at(-1);
        if (block.type === 'text' && prev?.type === 'text') blocks[blocks.length - 1] = { ...prev, text: `${prev.text}\n\n${block.text}` };
        else blocks.push(block);
      }
    } else if (message.role === 'tool') {
      const content = typeof message.content === 'string' ? message.content : message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      results.set(message.toolCallId, { content, ...(message.error !== undefined && { error: message.error }) });
    }
  }
  return { blocks: blocks.length === 0 ? undefined : blocks, messageId, results };
}

/** The most bytes an image a client sends inline may have. */
const MAX_IMAGE = 5 * 1024 * 1024;

async function userBlocks(ws: Workspace, content: string | ContentPart[], path: string): Promise<ContentBlock[]> {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', id: ws.manager.newId(), text: content }];
  const blocks: ContentBlock[] = [];
  for (const [j, part] of content.entries()) {
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ type: 'text', id: ws.manager.newId(), text: part.text });
    } else if (part.type === 'image' && part.source.type === 'data') {
      const bytes = Buffer.from(part.source.value, 'base64');
      if (bytes.byteLength > MAX_IMAGE)
        throw new GolemError('INVALID_ARGUMENT', `${path}.content[${j}]: the image is ${bytes.byteLength} bytes; at most ${MAX_IMAGE}`);
      if (!/^image\/(png|jpeg|gif|webp)$/.test(part.source.mimeType))
        throw new GolemError('INVALID_ARGUMENT', `${path}.content[${j}]: images are PNG, JPEG, GIF or WebP, not ${part.source.mimeType}`);
      const blob = await ws.blobs.register(bytes, { mediaType: part.source.mimeType });
      blocks.push({ type: 'image', id: ws.manager.newId(), blob: { sha256: blob.sha256 }, mediaType: part.source.mimeType });
    } else {
      const what = part.type === 'image' ? 'an image by URL (send its bytes: a data source)' : `a ${part.type} part`;
      throw new GolemError('INVALID_ARGUMENT', `${path}.content[${j}]: Golem takes text and images (PNG, JPEG, GIF, WebP as data), not ${what}`);
    }
  }
  return blocks;
}

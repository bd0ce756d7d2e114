/**
 * The body `useChat` sends to `POST /api/chat` (the AI SDK's DefaultChatTransport), read for
 * what Golem takes from it: the thread's id, and one message. That is the message `messageId`
 * names when it names the assistant message whose tool approvals the user answered
 * (`addToolApprovalResponse`: ai 6 names it so even when a message it sent since, refused,
 * is the last), and otherwise the last message: the user's new message (text, and images as
 * data URLs), or that assistant message. The messages around it are the client's copy of the
 * thread, which Golem keeps itself: their shape is checked, their content not read (a client
 * may send the one message alone). A body without `trigger` (an older client, a hand-written
 * `fetch`) sends a message, as `submit-message` does. Anything wrong is INVALID_ARGUMENT naming its path.
 */
import { z } from 'zod';
import { GolemError } from '../core/errors.js';
import { Id } from '../core/records.js';
import { parseInput } from './json-body.js';
import type { RunPolicy } from '../agent/inbox.js';
import { policyOf } from './wire-policy.js';
import { checkImage, type UserPart } from './user-parts.js';

const Message = z.looseObject({
  id: z.string().max(200),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(z.looseObject({ type: z.string().min(1) })),
});
type Message = z.infer<typeof Message>;

/**
 * The body as DefaultChatTransport sends it; other fields (the client's `body` option) are the app's, not read here.
 * Without `trigger` (older AI SDK clients, a hand-written `fetch` following the AI SDK's docs) it is `submit-message`.
 */
const Body = z.looseObject({
  id: Id,
  messages: z.array(Message).min(1, 'there is no message'),
  trigger: z.enum(['submit-message', 'regenerate-message']).default('submit-message'),
  messageId: z.string().max(200).optional(),
  /** Golem's own options (the client's `body: { golem: { policy } }`): what a message sent while the thread runs does. */
  golem: z.unknown().optional(),
});

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const FilePart = z.looseObject({
  type: z.literal('file'),
  mediaType: z.string().max(200),
  url: z.string().regex(/^data:[^,]*;base64,[A-Za-z0-9+/]*={0,2}$/, 'an image comes as a base64 data URL (data:image/png;base64,…); a link is not fetched'),
  filename: z.string().max(500).optional(),
});
const UserMessagePart = z.discriminatedUnion('type', [TextPart, FilePart], {
  error: (issue) => (issue.code === 'invalid_union' ? 'a user message takes text and image file parts only' : undefined),
});

/** A tool part the user answered: `addToolApprovalResponse({ id, approved, reason })` made it so. */
const AnsweredPart = z.looseObject({
  toolCallId: z.string().min(1).max(500),
  state: z.literal('approval-responded'),
  approval: z.looseObject({ id: z.string().min(1).max(200), approved: z.boolean(), reason: z.string().max(2000).optional() }),
});

/** The user's answer to one approval. */
export interface ApprovalAnswer {
  approvalId: string;
  /** The part's call id, as the stream named it (`<turn>:<call>`). */
  toolCallId: string;
  approved: boolean;
  /** With a no: why, for the model to read. */
  reason?: string;
}

/** What a request asks for. */
export type ChatInput =
  /** Answer the user's message; `messageId` is the client's id for it (its turn's, when it is free). */
  | { type: 'message'; messageId: string; parts: UserPart[] }
  /** Answer approvals and resume the run; `messageId`: the assistant message the run continues, `shown`: the calls (tool call ids) it shows. */
  | { type: 'approvals'; messageId: string; answers: ApprovalAnswer[]; shown: string[] };

/** A chat request as Golem reads it: the thread, and what to do on it. */
export interface ChatRequest {
  /** The thread: a Golem session's id (the chat's `id`). */
  threadId: string;
  input: ChatInput;
  /** What a message sent while the thread runs does (wire-policy.ts); the server's default when none. */
  policy?: RunPolicy;
}

/** Reads a chat request's JSON body (INVALID_ARGUMENT naming the path of what is wrong). */
export function readChatRequest(json: unknown): ChatRequest {
  const body = parseInput(Body, json);
  if (body.trigger === 'regenerate-message') {
    throw invalid(['trigger'], 'regenerate-message is not taken here: Golem answers each message once; send a new message');
  }
  const at = body.messageId === undefined ? body.messages.length - 1 : body.messages.findLastIndex((m) => m.id === body.messageId);
  const message = body.messages[at];
  if (message === undefined) throw invalid(['messageId'], `no message in messages has the id "${body.messageId}"`);
  const path = ['messages', at];
  if (message.role === 'assistant') return { threadId: body.id, input: answersOf(message, path, body.messageId !== undefined) };
  if (message.role !== 'user') throw invalid([...path, 'role'], "the last message must be the user's new message, or the assistant's with answered approvals");
  if (at !== body.messages.length - 1) {
    throw invalid(['messageId'], 'names an earlier message: a sent message is not edited here; send it as a new message');
  }
  const parts = message.parts.map((part, i) => userPart(parseInput(UserMessagePart, part, { at: [...path, 'parts', i] }), [...path, 'parts', i]));
  if (!parts.some((p) => p.type === 'image' || p.text.trim() !== '')) throw invalid(path, 'the message is empty');
  const policy = policyOf(body.golem, 'golem');
  return { threadId: body.id, input: { type: 'message', messageId: message.id, parts }, ...(policy !== undefined && { policy }) };
}

/** The answers an assistant message gives (`named`: the request's `messageId` names it). */
function answersOf(message: Message, path: (string | number)[], named: boolean): Extract<ChatInput, { type: 'approvals' }> {
  const tools = message.parts.flatMap((part, i) => (isToolPart(part) ? [{ part, i }] : []));
  const answers = tools
    .filter(({ part }) => part.state === 'approval-responded')
    .map(({ part, i }): ApprovalAnswer => {
      const { toolCallId, approval } = parseInput(AnsweredPart, part, { at: [...path, 'parts', i] });
      return { approvalId: approval.id, toolCallId, approved: approval.approved, ...(approval.reason !== undefined && { reason: approval.reason }) };
    });
  const once = new Map<string, ApprovalAnswer>();
  for (const answer of answers) {
    if (once.get(answer.approvalId)?.approved === !answer.approved) throw invalid(path, `approval ${answer.approvalId} is answered twice, yes and no`);
    once.set(answer.approvalId, answer);
  }
  if (answers.length === 0) {
    const which = named ? 'the message messageId names is the assistant' : 'the last message is the assistant';
    throw invalid(path, `${which}'s and answers no approval (no tool part in state approval-responded); send the user's message`);
  }
  const shown = tools.flatMap(({ part }) => (typeof part.toolCallId === 'string' ? [part.toolCallId] : []));
  return { type: 'approvals', messageId: message.id, answers: [...once.values()], shown };
}

function userPart(part: z.infer<typeof UserMessagePart>, path: (string | number)[]): UserPart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const base64 = part.url.slice(part.url.indexOf(',') + 1);
  checkImage(part.mediaType, base64, path.join('.'));
  return { type: 'image', mediaType: part.mediaType, base64, ...(part.filename !== undefined && { filename: part.filename }) };
}

function isToolPart(part: { type: string; [key: string]: unknown }): boolean {
  return part.type.startsWith('tool-') || part.type === 'dynamic-tool';
}

function invalid(path: (string | number)[], message: string): GolemError {
  return new GolemError('INVALID_ARGUMENT', `${path.join('.')}: ${message}`);
}

/**
 * The body `useChat` sends to `POST /api/chat` (the AI SDK's DefaultChatTransport), read for
 * what Golem takes from it: the thread's id, and the last message, which is either the user's
 * new message (text, and images as data URLs) or the assistant message whose tool approvals
 * the user answered (`addToolApprovalResponse`). The messages before it are the client's copy
 * of the thread, which Golem keeps itself: their shape is checked, their content not read.
 * Anything wrong is INVALID_ARGUMENT naming its path in the body.
 */
import { z } from 'zod';
import { GolemError } from '../core/errors.js';
import { Id } from '../core/records.js';

const Message = z.looseObject({
  id: z.string().max(200),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(z.looseObject({ type: z.string().min(1) })),
});

/** The body as DefaultChatTransport sends it; other fields (the client's `body` option) are the app's, not read here. */
const Body = z.looseObject({
  id: Id,
  messages: z.array(Message).min(1, 'there is no message'),
  trigger: z.enum(['submit-message', 'regenerate-message']),
  messageId: z.string().max(200).optional(),
});

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const FilePart = z.looseObject({
  type: z.literal('file'),
  mediaType: z.string().regex(/^image\/[\w.+-]+$/, 'only images (image/*) are taken as files'),
  url: z.string().regex(/^data:[^,]*;base64,[A-Za-z0-9+/]*={0,2}$/, 'an image comes as a base64 data URL (data:image/png;base64,…); a link is not fetched'),
  filename: z.string().max(500).optional(),
});
const UserPart = z.discriminatedUnion('type', [TextPart, FilePart], {
  error: (issue) => (issue.code === 'invalid_union' ? 'a user message takes text and image file parts only' : undefined),
});

/** A tool part the user answered: `addToolApprovalResponse({ id, approved, reason })` made it so. */
const AnsweredPart = z.looseObject({
  toolCallId: z.string().min(1),
  state: z.literal('approval-responded'),
  approval: z.looseObject({ id: z.string().min(1).max(200), approved: z.boolean(), reason: z.string().max(2000).optional() }),
});

/** One part of the user's new message. */
export type UserInputPart = { type: 'text'; text: string } | { type: 'image'; bytes: Uint8Array; mediaType: string; filename?: string };

/** The user's answer to one approval. */
export interface ApprovalAnswer {
  approvalId: string;
  toolCallId: string;
  approved: boolean;
  reason?: string;
}

/** What a request asks for. */
export type ChatInput =
  /** Answer the user's new message. */
  | { type: 'message'; parts: UserInputPart[] }
  /** Answer approvals and resume the run; `messageId`: the assistant message the run continues, `shown`: the calls it shows. */
  | { type: 'approvals'; messageId: string; answers: ApprovalAnswer[]; shown: string[] };

export interface ChatRequest {
  /** The thread: a Golem session's id. */
  threadId: string;
  input: ChatInput;
}

/** Reads a chat request's JSON body (INVALID_ARGUMENT naming the path of what is wrong). */
export function readChatRequest(json: unknown): ChatRequest {
  const body = parse(Body, json, []);
  const at = body.messages.length - 1;
  const last = body.messages[at] as z.infer<typeof Message>;
  const path = ['messages', at];
  if (body.trigger === 'regenerate-message') {
    throw invalid(
      ['trigger'],
      'regenerate-message is not taken here: Golem keeps every version of a message, and edits a sent one through /api/sessions/:id/turns/:turnId/edit',
    );
  }
  if (last.role === 'user') {
    if (body.messageId !== undefined) {
      throw invalid(
        ['messageId'],
        'a sent message is not edited here (sendMessage with messageId); Golem edits one through /api/sessions/:id/turns/:turnId/edit',
      );
    }
    const parts = last.parts.map((part, i) => userPart(parse(UserPart, part, [...path, 'parts', i]), [...path, 'parts', i]));
    if (!parts.some((p) => p.type === 'image' || p.text.trim() !== '')) throw invalid(path, 'the message is empty');
    return { threadId: body.id, input: { type: 'message', parts } };
  }
  if (last.role === 'assistant') {
    const tools = last.parts.flatMap((part, i) => (isToolPart(part) ? [{ part, i }] : []));
    const answers = tools
      .filter(({ part }) => part.state === 'approval-responded')
      .map(({ part, i }): ApprovalAnswer => {
        const { toolCallId, approval } = parse(AnsweredPart, part, [...path, 'parts', i]);
        return { approvalId: approval.id, toolCallId, approved: approval.approved, ...(approval.reason !== undefined && { reason: approval.reason }) };
      });
    const once = new Map<string, ApprovalAnswer>();
    for (const answer of answers) {
      if (once.get(answer.approvalId)?.approved === !answer.approved) throw invalid(path, `approval ${answer.approvalId} is answered twice, yes and no`);
      once.set(answer.approvalId, answer);
    }
    if (answers.length === 0) {
      throw invalid(path, "the last message is the assistant's and answers no approval (no tool part in state approval-responded); send the user's message");
    }
    const shown = tools.flatMap(({ part }) => (typeof part.toolCallId === 'string' ? [part.toolCallId] : []));
    return { threadId: body.id, input: { type: 'approvals', messageId: last.id, answers: [...once.values()], shown } };
  }
  throw invalid([...path, 'role'], "the last message must be the user's new message, or the assistant's with answered approvals");
}

function userPart(part: z.infer<typeof UserPart>, path: (string | number)[]): UserInputPart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const bytes = Buffer.from(part.url.slice(part.url.indexOf(',') + 1), 'base64');
  if (bytes.byteLength === 0) throw invalid([...path, 'url'], 'the image is empty');
  return { type: 'image', bytes: new Uint8Array(bytes), mediaType: part.mediaType, ...(part.filename !== undefined && { filename: part.filename }) };
}

function isToolPart(part: { type: string; [key: string]: unknown }): boolean {
  return part.type.startsWith('tool-') || part.type === 'dynamic-tool';
}

function parse<T>(schema: z.ZodType<T>, value: unknown, path: (string | number)[]): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new GolemError(
    'INVALID_ARGUMENT',
    parsed.error.issues.map((issue) => `${[...path, ...issue.path].map(String).join('.') || '(body)'}: ${issue.message}`).join('; '),
  );
}

function invalid(path: (string | number)[], message: string): GolemError {
  return new GolemError('INVALID_ARGUMENT', `${path.join('.')}: ${message}`);
}

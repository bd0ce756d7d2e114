/**
 * Content blocks (seed 001 section 7): the standard parts every turn is made of.
 * Asset blocks hold a reference to a content-addressed blob, never bytes.
 */
import { z } from 'zod';

/** A lowercase hex SHA-256 digest. */
export const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256 digest');

/** A reference to a blob registered in the workspace. */
export const BlobRef = z.strictObject({ sha256: Sha256 });
export type BlobRef = z.infer<typeof BlobRef>;

const MediaType = z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as image/png');
const BlockId = z.string().min(1).max(200).optional();

/** Plain text. */
export const TextBlock = z.strictObject({ type: z.literal('text'), id: BlockId, text: z.string() });
export type TextBlock = z.infer<typeof TextBlock>;

/** The model's reasoning, kept apart so a UI can hide or show it. */
export const ThinkingBlock = z.strictObject({
  type: z.literal('thinking'),
  id: BlockId,
  thinking: z.string(),
  /** A provider's signature over the reasoning, sent back verbatim when required. */
  signature: z.string().optional(),
  /** Reasoning the provider sent encrypted (Anthropic's redacted thinking): its data, sent back verbatim. */
  redacted: z.string().optional(),
});
export type ThinkingBlock = z.infer<typeof ThinkingBlock>;

/** An image held in blob storage. */
export const ImageBlock = z.strictObject({
  type: z.literal('image'),
  id: BlockId,
  blob: BlobRef,
  mediaType: MediaType,
  filename: z.string().optional(),
  alt: z.string().optional(),
});
export type ImageBlock = z.infer<typeof ImageBlock>;

/** A document (PDF, source file, long text) held in blob storage. */
export const DocumentBlock = z.strictObject({
  type: z.literal('document'),
  id: BlockId,
  blob: BlobRef,
  mediaType: MediaType,
  filename: z.string().optional(),
  title: z.string().optional(),
});
export type DocumentBlock = z.infer<typeof DocumentBlock>;

/** A JSON value (what tool arguments and results are made of). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
const JsonTree: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number().refine(Number.isFinite, 'must be a finite number'),
    z.boolean(),
    z.null(),
    z.array(JsonTree),
    z.record(z.string(), JsonTree),
  ]),
);

/** How deep a JSON value may nest: far beyond any real one, and well within what validation follows without running out of stack. */
export const MAX_JSON_DEPTH = 256;

/** Whether a value's arrays and objects nest deeper than `limit` (a cycle does), counted without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [inner, depth] = next;
    if (inner === null || typeof inner !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(inner) ? inner : Object.values(inner)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A JSON value, nested at most 256 deep (checked first, so a hostile one is refused, never a stack overflow). */
export const JsonValue: z.ZodType<JsonValue> = z
  .unknown()
  .refine((value) => !nestsDeeperThan(value, MAX_JSON_DEPTH), `must not nest deeper than ${MAX_JSON_DEPTH} levels`)
  .pipe(JsonTree);

/** A JSON object: what metadata, settings and constraints are made of. */
export const JsonObject = z.record(z.string(), JsonValue);
export type JsonObject = z.infer<typeof JsonObject>;

/** A structured request for a tool to run. */
export const ToolUseBlock = z.strictObject({
  type: z.literal('tool_use'),
  id: BlockId,
  callId: z.string().min(1),
  name: z.string().min(1),
  args: JsonObject,
  /**
   * The provider ran it on its side (Anthropic's web search, web fetch, code execution, MCP
   * tool use): its result is in the same answer (`server_tool_result`), not for Golem to run.
   */
  providerExecuted: z.literal(true).optional(),
  /** What the provider said of the call, sent back with it (an MCP server's name, say). */
  providerMetadata: JsonObject.optional(),
});
export type ToolUseBlock = z.infer<typeof ToolUseBlock>;

/** The result of a call the provider ran itself, recorded in the answer with its call, as the provider sent it. */
export const ServerToolResultBlock = z.strictObject({
  type: z.literal('server_tool_result'),
  id: BlockId,
  callId: z.string().min(1),
  name: z.string().min(1),
  output: JsonValue,
  isError: z.boolean().optional(),
  providerMetadata: JsonObject.optional(),
});
export type ServerToolResultBlock = z.infer<typeof ServerToolResultBlock>;

/** What a tool returned, linked to its `tool_use` by `callId`. */
export const ToolResultBlock = z.strictObject({
  type: z.literal('tool_result'),
  id: BlockId,
  callId: z.string().min(1),
  content: z.array(z.discriminatedUnion('type', [TextBlock, ImageBlock, DocumentBlock])),
  isError: z.boolean().optional(),
});
export type ToolResultBlock = z.infer<typeof ToolResultBlock>;

/** A compression of older turns; the prompt pipeline sends it in their place. */
export const SummaryBlock = z.strictObject({
  type: z.literal('summary'),
  id: BlockId,
  text: z.string(),
  /** The turns this summary stands for, oldest first. */
  summarizes: z.array(z.strictObject({ id: z.string().min(1), version: z.number().int().nonnegative() })),
});
export type SummaryBlock = z.infer<typeof SummaryBlock>;

/** Marks the point where a session's persona changed. */
export const RoleTransitionBlock = z.strictObject({
  type: z.literal('role:transition'),
  id: BlockId,
  from: z.string().nullable(),
  to: z.string().nullable(),
});
export type RoleTransitionBlock = z.infer<typeof RoleTransitionBlock>;

/** How far one step of a plan has come. */
export const TaskStepStatus = z.enum(['pending', 'in_progress', 'done', 'skipped']);
export type TaskStepStatus = z.infer<typeof TaskStepStatus>;

/**
 * A plan the agent proposed (`propose_plan`): the task it became and its steps as proposed.
 * A front end shows the task's live state (`ws.tasks.get(taskId)`); the model is not sent it
 * (its call's result tells it how the plan was taken).
 */
export const TaskProposalBlock = z.strictObject({
  type: z.literal('task:proposal'),
  id: BlockId,
  taskId: z.string().min(1).max(200),
  title: z.string(),
  steps: z.array(z.strictObject({ text: z.string(), status: TaskStepStatus })),
});
export type TaskProposalBlock = z.infer<typeof TaskProposalBlock>;

/** Any content block, discriminated on `type`. */
export const ContentBlock = z.discriminatedUnion('type', [
  TextBlock,
  ThinkingBlock,
  ImageBlock,
  DocumentBlock,
  ToolUseBlock,
  ToolResultBlock,
  ServerToolResultBlock,
  SummaryBlock,
  RoleTransitionBlock,
  TaskProposalBlock,
]);
export type ContentBlock = z.infer<typeof ContentBlock>;

/** Every blob a list of blocks references, once per reference (tool results included). */
export function blobRefsOf(blocks: readonly ContentBlock[]): string[] {
  const refs: string[] = [];
  for (const block of blocks) {
    if (block.type === 'image' || block.type === 'document') refs.push(block.blob.sha256);
    else if (block.type === 'tool_result') {
      for (const part of block.content) if (part.type !== 'text') refs.push(part.blob.sha256);
    }
  }
  return refs;
}

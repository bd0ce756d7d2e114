/**
 * Seed 001's `TurnBuilder`: a turn's blocks put together one call at a time, for
 * `session.addTurn` (or, with a parent, `session.branch`).
 */
import type { ContentBlock, DocumentBlock, ImageBlock, JsonObject, TextBlock } from './blocks.js';
import { fail } from './errors.js';
import { uuidv7 } from './ids.js';
import { TurnRef, TurnRole } from './records.js';
import { TurnInput } from './commands/index.js';

/** A blob to show: a registered blob's record (its media type and name come with it), or a bare reference. */
export type BlobInput = { sha256: string; mediaType?: string; filename?: string | null };

/** What `build()` returns: a turn with its id chosen, and its parent when `withParent` gave one. */
export type BuiltTurn<HasParent extends boolean = false> = {
  id: string;
  role: TurnRole;
  blocks: ContentBlock[];
  meta?: JsonObject;
} & (HasParent extends true ? { parent: TurnRef | null } : unknown);

/**
 * Builds a turn's blocks fluently. The turn gets an id when the builder is made (a UUIDv7, or
 * `withId`), so it is known before the turn is added: `build()` twice gives the same turn,
 * and adding it twice is refused with DUPLICATE_ID. `build()` refuses what a command would
 * (INVALID_ARGUMENT, naming the path).
 *
 * @example
 * const turn = new TurnBuilder('user').addText('What is in this picture?').addImage(await ws.blobs.register(bytes, { mediaType: 'image/png' })).build()
 * await session.addTurn(turn)
 * const branch = new TurnBuilder('assistant').withParent(session.head()).addText('Let me think differently...').build()
 * await session.branch(branch)
 */
export class TurnBuilder<HasParent extends boolean = false> {
  readonly #role: TurnRole;
  #id: string;
  #parent: TurnRef | null | undefined;
  readonly #blocks: ContentBlock[] = [];
  #meta: JsonObject | undefined;

  /** `role`: who speaks (default 'user'). */
  constructor(role: TurnRole = 'user') {
    const parsed = TurnRole.safeParse(role);
    if (!parsed.success) throw fail('INVALID_ARGUMENT', `a turn's role is one of ${TurnRole.options.join(', ')}, not ${JSON.stringify(role)}`, { role });
    this.#role = parsed.data;
    this.#id = uuidv7();
  }

  /** The turn's id (a retry with the same id is refused with DUPLICATE_ID instead of adding twice). */
  withId(id: string): this {
    this.#id = id;
    return this;
  }

  /** The turn it follows (null: a new root); for `session.branch`. `session.addTurn` always follows the head. */
  withParent(parent: TurnRef | null): TurnBuilder<true> {
    this.#parent = parent;
    return this as TurnBuilder<true>;
  }

  /** Adds to the turn's `meta` (a key given again replaces the earlier value). */
  withMeta(meta: JsonObject): this {
    this.#meta = { ...this.#meta, ...meta };
    return this;
  }

  addText(text: string): this {
    return this.addBlock({ type: 'text', text });
  }

  /** The model's reasoning (with the provider's signature, where it gave one). */
  addThinking(thinking: string, options: { signature?: string } = {}): this {
    return this.addBlock({ type: 'thinking', thinking, ...(options?.signature !== undefined && { signature: options.signature }) });
  }

  /** An image held in blob storage; its media type and name come from the blob's record unless given. */
  addImage(blob: BlobInput, options: { mediaType?: string; filename?: string; alt?: string } = {}): this {
    const block: ImageBlock = { type: 'image', ...asset(blob, options, 'addImage') };
    if (options?.alt !== undefined) block.alt = options.alt;
    return this.addBlock(block);
  }

  /** A document (PDF, source file, long text) held in blob storage. */
  addDocument(blob: BlobInput, options: { mediaType?: string; filename?: string; title?: string } = {}): this {
    const block: DocumentBlock = { type: 'document', ...asset(blob, options, 'addDocument') };
    if (options?.title !== undefined) block.title = options.title;
    return this.addBlock(block);
  }

  /** A request for a tool to run (a `tool_use` block). */
  addToolCall(call: { callId: string; name: string; args?: JsonObject }): this {
    return this.addBlock({ type: 'tool_use', callId: call?.callId, name: call?.name, args: call?.args ?? {} });
  }

  /** What a tool returned, linked to its call by `callId`: a text, or text, image and document blocks. */
  addToolResult(result: { callId: string; content: string | (TextBlock | ImageBlock | DocumentBlock)[]; isError?: boolean }): this {
    const content = typeof result?.content === 'string' ? [{ type: 'text' as const, text: result.content }] : result?.content;
    return this.addBlock({
      type: 'tool_result',
      callId: result?.callId,
      content,
      ...(result?.isError !== undefined && { isError: result.isError }),
    });
  }

  /** Any content block, as it is. */
  addBlock(block: ContentBlock): this {
    this.#blocks.push(block);
    return this;
  }

  /** The turn, checked as `turn:add` checks it. */
  build(): BuiltTurn<HasParent> {
    const input = { id: this.#id, role: this.#role, blocks: this.#blocks, ...(this.#meta !== undefined && { meta: this.#meta }) };
    const parsed = TurnInput.safeParse(input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
      throw fail('INVALID_ARGUMENT', `the turn is not valid: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
    }
    const parent = this.#parent === undefined ? undefined : TurnRef.nullable().safeParse(this.#parent);
    if (parent !== undefined && !parent.success)
      throw fail('INVALID_ARGUMENT', 'the parent is a turn reference { id, version } or null', { parent: this.#parent });
    const turn = { ...parsed.data, id: this.#id, ...(parent !== undefined && { parent: parent.data }) };
    return turn as BuiltTurn<HasParent>;
  }
}

/** The blob fields of an image or document block. */
function asset(blob: BlobInput, options: { mediaType?: string; filename?: string }, method: string) {
  const mediaType = options?.mediaType ?? blob?.mediaType;
  if (mediaType === undefined) throw fail('INVALID_ARGUMENT', `${method} needs a media type: pass a registered blob's record, or { mediaType }`, { blob });
  const filename = options?.filename ?? blob?.filename ?? undefined;
  return { blob: { sha256: blob?.sha256 }, mediaType, ...(filename !== undefined && { filename }) };
}

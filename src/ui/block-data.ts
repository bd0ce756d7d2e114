/**
 * The data seed 004's block properties draw (`showProgress`, `showStatus`, `showImages`,
 * `showTable`, `showCountInput`, `showTaskId`): each reads one fixed key of `state.runtime`
 * (block-data-keys.ts). Here are the shapes the patch engine checks when a block shows a key,
 * the words the model reads about them in `patch_ui_state`'s description, and an example of
 * each that is both (the tests hold the examples to the schemas and to the page).
 */
import { z } from 'zod';
import { BlobRef, type JsonValue } from '../core/blocks.js';
import {
  BLOCK_DATA_KEYS,
  BLOCK_DATA_LIMITS as LIMIT,
  IMAGE_DATA_URL,
  PROGRESS_MAX,
  STATUS_LEVELS,
  type BlockDataKey,
  type BlockDataProp,
} from './block-data-keys.js';

/** A schema that refuses anything, with `message`: the value is not of a kind the key takes. */
const wrongKind = (message: string) => z.custom<never>(() => false, { error: message });

const Percent = z.number().min(0).max(PROGRESS_MAX);
const ProgressOf = z
  .strictObject({ value: z.number().min(0), max: z.number().positive().optional(), label: z.string().max(LIMIT.label).optional() })
  .refine((p) => p.value <= (p.max ?? PROGRESS_MAX), { path: ['value'], message: `value is at most max (${PROGRESS_MAX} when max is left out)` });

const Status = z.strictObject({ text: z.string().max(LIMIT.text), level: z.enum(STATUS_LEVELS).optional() });

const DataUrl = z
  .string()
  .max(LIMIT.dataUrl, `a data URL is at most ${LIMIT.dataUrl} characters`)
  .regex(IMAGE_DATA_URL, 'src is a base64 data URL of a png, jpeg, gif, webp or avif image ("data:image/png;base64,..."); no other URL is loaded');
const Image = z
  .strictObject({ blob: BlobRef.optional(), src: DataUrl.optional(), alt: z.string().max(LIMIT.label), caption: z.string().max(LIMIT.label).optional() })
  .refine((image) => (image.blob === undefined) !== (image.src === undefined), {
    message: 'an image has a blob ({ "sha256": ... }) or a src (a data URL): one of the two',
  });

const Cell = z.union([z.string().max(LIMIT.text), z.number(), z.boolean(), z.null()], { error: 'a cell is a string, a number, a boolean or null' });
const Rows = z.array(z.record(z.string(), Cell)).max(LIMIT.rows);
const Column = z.strictObject({ key: z.string().min(1).max(100), label: z.string().max(LIMIT.label).optional() });
const TableOf = z.strictObject({ columns: z.array(Column).max(LIMIT.columns).optional(), rows: Rows });
/** Without columns, the rows' keys are the columns: as many as a table draws. */
const fewKeys = (rows: readonly Record<string, unknown>[]) => new Set(rows.flatMap((row) => Object.keys(row))).size <= LIMIT.columns;
const TOO_WIDE = `the rows have more than ${LIMIT.columns} keys: name the columns to draw ({ columns: [{ key, label }], rows })`;

interface BlockDatum {
  /** What the key holds, for the model. */
  shape: string;
  /** A value it takes (the description shows it; the tests draw it). */
  example: JsonValue;
  /** The schema the value is checked with (one per kind of value, so a refusal says what is wrong within it). */
  schema(value: JsonValue): z.ZodType;
}

/** Each key's data. Absent or null: nothing is drawn. */
export const BLOCK_DATA: Record<BlockDataKey, BlockDatum> = {
  progress: {
    shape: `a number from 0 to ${PROGRESS_MAX} (a percentage), or { value, max?, label? } with 0 <= value <= max (max is ${PROGRESS_MAX} when left out)`,
    example: { value: 3, max: 10, label: 'Pages read' },
    schema: (v) =>
      typeof v === 'number' ? Percent : isObject(v) ? ProgressOf : wrongKind(`progress is a number from 0 to ${PROGRESS_MAX}, or { value, max?, label? }`),
  },
  status: {
    shape: `a string, or { text, level?: ${STATUS_LEVELS.join('|')} } (level is info when left out)`,
    example: { text: 'Reading page 3 of 10', level: 'info' },
    schema: (v) => (typeof v === 'string' ? z.string().max(LIMIT.text) : isObject(v) ? Status : wrongKind('status is a string, or { text, level? }')),
  },
  images: {
    shape: `a list of up to ${LIMIT.images} { blob: { sha256 } } or { src: "data:image/png;base64,..." } (png, jpeg, gif, webp or avif; a URL of a site is never loaded), each with alt (what it shows) and caption?`,
    example: [
      { src: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGOwjr4NAAJGAXI6KKUbAAAAAElFTkSuQmCC', alt: 'A blue square' },
    ],
    schema: (v) => (Array.isArray(v) ? z.array(Image).max(LIMIT.images) : wrongKind('images is a list of { blob } or { src }, each with alt')),
  },
  table: {
    shape: `rows (a list of up to ${LIMIT.rows} objects whose values are strings, numbers, booleans or null; the columns are their keys, at most ${LIMIT.columns}), or { columns?: [{ key, label? }], rows } to choose and name the columns`,
    example: {
      columns: [
        { key: 'page', label: 'Page' },
        { key: 'words', label: 'Words' },
      ],
      rows: [
        { page: 'Intro', words: 420 },
        { page: 'Setup', words: 1310 },
      ],
    },
    schema: (v) =>
      Array.isArray(v)
        ? Rows.refine(fewKeys, { message: TOO_WIDE })
        : isObject(v)
          ? TableOf.refine((t) => t.columns !== undefined || fewKeys(t.rows), { path: ['rows'], message: TOO_WIDE })
          : wrongKind('table is a list of rows, or { columns?, rows }'),
  },
  count: {
    shape: `a whole number, 0 or more, drawn as a number input the user can change; when they click an action, their count is written to state.runtime.count and told with the click`,
    example: 3,
    schema: () => z.number().int('count is a whole number').min(0).max(Number.MAX_SAFE_INTEGER),
  },
  taskId: {
    shape: `a string of up to ${LIMIT.label} characters, drawn read-only with a copy button`,
    example: 'task_2024_0042',
    schema: () => z.string().min(1).max(LIMIT.label),
  },
};

/** What is wrong with the data a block shows: where (`state.runtime.table.rows.3.words`) and what. */
export interface BlockDataProblem {
  key: BlockDataKey;
  path: string;
  message: string;
}

/** A block as far as the data it shows goes. */
export interface ShowingBlock {
  props?: { readonly [P in BlockDataProp]?: boolean | undefined } | undefined;
}

/** The keys some block of the instance shows. */
export function shownKeys(blocks: readonly ShowingBlock[]): Set<BlockDataKey> {
  const keys = new Set<BlockDataKey>();
  for (const block of blocks)
    for (const [prop, key] of Object.entries(BLOCK_DATA_KEYS) as [BlockDataProp, BlockDataKey][]) if (block.props?.[prop] === true) keys.add(key);
  return keys;
}

/**
 * The first problem with the data the instance's blocks show, among the keys `checked` lets
 * through (a call checks what it wrote: data stored before a block showed it is not held against it).
 */
export function blockDataProblem(
  instance: { blocks: readonly ShowingBlock[]; state: { runtime: Record<string, JsonValue> } },
  checked: (key: BlockDataKey) => boolean = () => true,
): BlockDataProblem | undefined {
  const runtime = instance.state.runtime;
  for (const key of shownKeys(instance.blocks)) {
    if (!checked(key) || !Object.hasOwn(runtime, key)) continue;
    const value = runtime[key] as JsonValue;
    if (value === null) continue;
    const result = BLOCK_DATA[key].schema(value).safeParse(value);
    const issue = result.error?.issues[0];
    if (issue !== undefined) return { key, path: ['state', 'runtime', key, ...issue.path.map(String)].join('.'), message: issue.message };
  }
  return undefined;
}

/**
 * The blobs the instance's images name (`state.runtime.images`, `{ blob: { sha256 } }`) when a
 * block shows them: the ones a page may load for it. Read from whatever is stored, valid or not.
 */
export function imageBlobs(instance: { blocks: readonly ShowingBlock[]; state: { runtime: Record<string, JsonValue> } }): string[] {
  const images = Object.hasOwn(instance.state.runtime, BLOCK_DATA_KEYS.showImages) ? instance.state.runtime[BLOCK_DATA_KEYS.showImages] : undefined;
  if (!shownKeys(instance.blocks).has(BLOCK_DATA_KEYS.showImages) || !Array.isArray(images)) return [];
  return images.flatMap((image) => {
    const blob = isObject(image) && isObject(image.blob ?? null) ? (image.blob as { [key: string]: JsonValue }) : undefined;
    return typeof blob?.sha256 === 'string' ? [blob.sha256] : [];
  });
}

/** What the model reads about the block properties, in `patch_ui_state`'s description. */
export const BLOCK_DATA_DESCRIPTION = [
  `A block's props showProgress, showStatus, showImages, showTable, showCountInput and showTaskId (true, or left out) draw a value of state.runtime, under a fixed key the instance's blocks share; set it with state.runtime.{key} (absent or null draws nothing).`,
  `A call that leaves a shown key in another shape is refused with INVALID_STRUCTURE naming the path.`,
  ...(Object.entries(BLOCK_DATA_KEYS) as [BlockDataProp, BlockDataKey][]).map(
    ([prop, key]) => `${prop}: state.runtime.${key}, ${BLOCK_DATA[key].shape}; e.g. ${JSON.stringify(BLOCK_DATA[key].example)}.`,
  ),
].join(' ');

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

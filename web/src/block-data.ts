/**
 * The data a block's properties draw, read from `state.runtime` (the keys and limits of
 * src/ui/block-data-keys.ts, the engine's own). The engine checked the shapes when they were
 * written; these readers check again, because what is stored may predate the check, and
 * what the page loads is its own concern: an image is a raster data URL or a blob of the
 * server, never an address elsewhere. Each reader is total: data in no shape it draws is `bad`.
 */
import {
  BLOCK_DATA_KEYS,
  BLOCK_DATA_LIMITS,
  IMAGE_DATA_URL,
  PROGRESS_MAX,
  STATUS_LEVELS,
  type BlockDataKey,
  type BlockDataProp,
  type StatusLevel,
} from '../../src/ui/block-data-keys.js';
import type { Json, UIBlock, UIInstance } from './types.js';

export { BLOCK_DATA_KEYS, type BlockDataProp };

/** Nothing to draw (absent or null), data in no shape this page draws, or the data. */
export type Read<T> = { kind: 'none' } | { kind: 'bad' } | { kind: 'ok'; value: T };

export interface ProgressView {
  value: number;
  max: number;
  label: string | undefined;
}
export interface StatusView {
  text: string;
  level: StatusLevel;
}
export type ImageView = { alt: string; caption: string | undefined } & ({ src: string; blob?: never } | { blob: string; src?: never });
export interface TableView {
  columns: { key: string; label: string }[];
  rows: Record<string, string | number | boolean | null>[];
}

const NONE = { kind: 'none' } as const;
const BAD = { kind: 'bad' } as const;
const ok = <T>(value: T): Read<T> => ({ kind: 'ok', value });

type JsonObject = { [key: string]: Json };
const isObject = (value: Json | undefined): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);
const isNumber = (value: Json | undefined): value is number => typeof value === 'number' && Number.isFinite(value);
const optionalText = (value: Json | undefined, max: number): string | undefined | false =>
  value === undefined ? undefined : typeof value === 'string' && value.length <= max ? value : false;

/** Whether the block shows the property. */
export function shows(block: UIBlock, prop: BlockDataProp): boolean {
  return block.props?.[prop] === true;
}

/** The value under a block property's key, or undefined (absent or null). */
export function runtimeValue(instance: UIInstance, key: BlockDataKey): Json | undefined {
  const runtime = instance.state?.runtime ?? {};
  const value = Object.hasOwn(runtime, key) ? runtime[key] : undefined;
  return value === null ? undefined : value;
}

export function readProgress(value: Json | undefined): Read<ProgressView> {
  if (value === undefined || value === null) return NONE;
  if (isNumber(value)) return value >= 0 && value <= PROGRESS_MAX ? ok({ value, max: PROGRESS_MAX, label: undefined }) : BAD;
  if (!isObject(value) || !isNumber(value.value)) return BAD;
  const max = value.max === undefined ? PROGRESS_MAX : value.max;
  const label = optionalText(value.label, BLOCK_DATA_LIMITS.label);
  if (!isNumber(max) || max <= 0 || value.value < 0 || value.value > max || label === false) return BAD;
  return ok({ value: value.value, max, label });
}

export function readStatus(value: Json | undefined): Read<StatusView> {
  if (value === undefined || value === null) return NONE;
  if (typeof value === 'string') return value.length <= BLOCK_DATA_LIMITS.text ? ok({ text: value, level: 'info' }) : BAD;
  if (!isObject(value) || typeof value.text !== 'string' || value.text.length > BLOCK_DATA_LIMITS.text) return BAD;
  const level = value.level ?? 'info';
  return typeof level === 'string' && (STATUS_LEVELS as readonly string[]).includes(level) ? ok({ text: value.text, level: level as StatusLevel }) : BAD;
}

/** The images; one that is neither a raster data URL nor a blob is left out (the list is `bad` only when it is no list). */
export function readImages(value: Json | undefined): Read<{ images: ImageView[]; skipped: number }> {
  if (value === undefined || value === null) return NONE;
  if (!Array.isArray(value)) return BAD;
  const images: ImageView[] = [];
  for (const item of value.slice(0, BLOCK_DATA_LIMITS.images)) {
    if (!isObject(item)) continue;
    const alt = optionalText(item.alt, BLOCK_DATA_LIMITS.label);
    const caption = optionalText(item.caption, BLOCK_DATA_LIMITS.label);
    if (alt === undefined || alt === false || caption === false) continue;
    const src = item.src;
    const sha256 = isObject(item.blob) ? item.blob.sha256 : undefined;
    if (typeof src === 'string' && item.blob === undefined && src.length <= BLOCK_DATA_LIMITS.dataUrl && IMAGE_DATA_URL.test(src))
      images.push({ src, alt, caption });
    else if (typeof sha256 === 'string' && /^[0-9a-f]{64}$/.test(sha256) && src === undefined) images.push({ blob: sha256, alt, caption });
  }
  return ok({ images, skipped: value.length - images.length });
}

/** The table: its columns (given, or the rows' keys in the order they first appear) and rows of plain cells. */
export function readTable(value: Json | undefined): Read<TableView> {
  if (value === undefined || value === null) return NONE;
  const given = Array.isArray(value) ? undefined : isObject(value) ? value.columns : null;
  const rowsIn = Array.isArray(value) ? value : isObject(value) ? value.rows : undefined;
  if (given === null || !Array.isArray(rowsIn) || rowsIn.length > BLOCK_DATA_LIMITS.rows) return BAD;
  const rows: TableView['rows'] = [];
  for (const row of rowsIn) {
    if (!isObject(row)) return BAD;
    for (const cell of Object.values(row)) if (cell !== null && typeof cell === 'object') return BAD;
    rows.push(row as TableView['rows'][number]);
  }
  let columns: TableView['columns'];
  if (given === undefined) {
    columns = [...new Set(rows.flatMap((row) => Object.keys(row)))].map((key) => ({ key, label: key }));
  } else {
    if (!Array.isArray(given)) return BAD;
    columns = [];
    for (const column of given) {
      if (!isObject(column) || typeof column.key !== 'string') return BAD;
      const label = optionalText(column.label, BLOCK_DATA_LIMITS.label);
      if (label === false) return BAD;
      columns.push({ key: column.key, label: label ?? column.key });
    }
  }
  return columns.length > BLOCK_DATA_LIMITS.columns ? BAD : ok({ columns, rows });
}

export function readCount(value: Json | undefined): Read<number> {
  if (value === undefined || value === null) return NONE;
  return Number.isSafeInteger(value) && (value as number) >= 0 ? ok(value as number) : BAD;
}

export function readTaskId(value: Json | undefined): Read<string> {
  if (value === undefined || value === null) return NONE;
  return typeof value === 'string' && value !== '' && value.length <= BLOCK_DATA_LIMITS.label ? ok(value) : BAD;
}

/** A count as typed: a whole number 0 or more, or undefined (empty, or not one). */
export function parseCount(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Whether a block of the instance shows the count input. */
export function showsCountInput(instance: UIInstance): boolean {
  return (instance.blocks ?? []).some((block) => shows(block, 'showCountInput'));
}

/** The count an action sends: the user's if they typed one, else the state's; undefined when the instance shows no count input. */
export function countToSend(instance: UIInstance, typed: string | undefined): number | undefined {
  if (!showsCountInput(instance)) return undefined;
  if (typed !== undefined) return parseCount(typed);
  const read = readCount(runtimeValue(instance, BLOCK_DATA_KEYS.showCountInput));
  return read.kind === 'ok' ? read.value : undefined;
}

/** Loads the images UIs show by blob, each once while it loads or after it loaded (a failure is tried again when next drawn). */
export function imageLoader(load: (instanceId: string, sha256: string) => Promise<string>): (instanceId: string, sha256: string) => Promise<string> {
  const loaded = new Map<string, Promise<string>>();
  return (instanceId, sha256) => {
    const key = `${instanceId}\n${sha256}`;
    let image = loaded.get(key);
    if (image === undefined) {
      image = load(instanceId, sha256);
      loaded.set(key, image);
      image.catch(() => loaded.delete(key));
    }
    return image;
  };
}

/**
 * The values display fields draw (docs/ui-catalog.md), read again on the page: the engine
 * checked them when they were written, but what is stored may predate the check, and what the
 * page loads is its own concern. Each reader is total: a value in no shape it draws is `bad`
 * (the field shows a short note), never a crash.
 */
import { IMAGE_DATA_URL } from '../../src/ui/block-data-keys.js';
import { readProgress, type ProgressView, type Read } from './block-data.js';
import type { Json, Tone } from './types.js';

export { readProgress, type ProgressView, type Read };

export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

const NONE = { kind: 'none' } as const;
const BAD = { kind: 'bad' } as const;
const ok = <T>(value: T): Read<T> => ({ kind: 'ok', value });
const isObject = (value: Json | undefined): value is { [key: string]: Json } => value !== null && typeof value === 'object' && !Array.isArray(value);
const isNumber = (value: Json | undefined): value is number => typeof value === 'number' && Number.isFinite(value);

export const ROWS_LIMIT = 1000;

/** A table's or a chart's rows: objects of plain cells. */
export function readRows(value: Json | undefined): Read<Row[]> {
  if (value === undefined || value === null) return NONE;
  if (!Array.isArray(value) || value.length > ROWS_LIMIT) return BAD;
  const rows: Row[] = [];
  for (const row of value) {
    if (!isObject(row)) return BAD;
    for (const cell of Object.values(row)) if (cell !== null && typeof cell === 'object') return BAD;
    rows.push(row as Row);
  }
  return ok(rows);
}

/** A cell of a row by an own key only: a column named "constructor" reads no prototype. */
export function cellOf(row: Row, key: string): Cell | undefined {
  return Object.hasOwn(row, key) ? row[key] : undefined;
}

/** Rows sorted by a column: numbers as numbers, text by the locale, empty cells last either way. */
export function sortRows(rows: readonly Row[], key: string, direction: 'ascending' | 'descending'): Row[] {
  const sign = direction === 'ascending' ? 1 : -1;
  return rows
    .map((row, i) => ({ row, i }))
    .sort((a, b) => {
      const x = cellOf(a.row, key);
      const y = cellOf(b.row, key);
      const xEmpty = x === undefined || x === null || x === '';
      const yEmpty = y === undefined || y === null || y === '';
      if (xEmpty || yEmpty) return xEmpty === yEmpty ? a.i - b.i : xEmpty ? 1 : -1;
      const order =
        typeof x === 'number' && typeof y === 'number'
          ? x - y
          : typeof x === 'boolean' && typeof y === 'boolean'
            ? Number(x) - Number(y)
            : String(x).localeCompare(String(y), undefined, { numeric: true });
      return order === 0 ? a.i - b.i : order * sign;
    })
    .map(({ row }) => row);
}

export const formatNumber = (n: number): string => (Number.isInteger(n) ? n.toLocaleString('en') : n.toLocaleString('en', { maximumFractionDigits: 2 }));

/** A cell as text: numbers formatted, booleans as yes / no, null as nothing. */
export function cellText(cell: Cell | undefined): string {
  if (typeof cell === 'number') return formatNumber(cell);
  if (typeof cell === 'boolean') return cell ? 'yes' : 'no';
  return cell ?? '';
}

const TONES: readonly string[] = ['neutral', 'info', 'success', 'warning', 'danger'];

/** A badge: its text and tone (the value's own tone from `tones`, else `tone`, else neutral). */
export function readBadge(value: Json | undefined, tone: Json | undefined, tones: Json | undefined): Read<{ text: string; tone: Tone }> {
  if (value === undefined || value === null) return NONE;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return BAD;
  const text = typeof value === 'number' ? formatNumber(value) : String(value);
  const own = isObject(tones) && Object.hasOwn(tones, String(value)) ? tones[String(value)] : undefined;
  const chosen = [own, tone].find((t): t is Tone => typeof t === 'string' && TONES.includes(t)) ?? 'neutral';
  return ok({ text, tone: chosen });
}

export interface MetricView {
  value: number;
  change: number | undefined;
  unit: string | undefined;
}

/** A metric: a number, or `{ value, change?, unit? }` (the field's `unit` when the value has none). */
export function readMetric(value: Json | undefined, unit: Json | undefined): Read<MetricView> {
  const fieldUnit = typeof unit === 'string' ? unit : undefined;
  if (value === undefined || value === null) return NONE;
  if (isNumber(value)) return ok({ value, change: undefined, unit: fieldUnit });
  if (!isObject(value) || !isNumber(value.value)) return BAD;
  if (value.change !== undefined && !isNumber(value.change)) return BAD;
  if (value.unit !== undefined && typeof value.unit !== 'string') return BAD;
  return ok({ value: value.value, change: value.change, unit: value.unit ?? fieldUnit });
}

export type ImageValue = { kind: 'blob'; sha256: string } | { kind: 'src'; src: string } | { kind: 'refused'; src: string };

/**
 * An image: a blob of the server, a raster data URL, or an https URL of a host the catalog
 * allows. Any other address is `refused` (named to the user, never loaded).
 */
export function readImage(value: Json | undefined, hosts: readonly string[]): Read<ImageValue> {
  if (value === undefined || value === null) return NONE;
  if (isObject(value) && isObject(value.blob)) {
    const sha256 = value.blob.sha256;
    return typeof sha256 === 'string' && /^[0-9a-f]{64}$/.test(sha256) ? ok({ kind: 'blob', sha256 }) : BAD;
  }
  const src = typeof value === 'string' ? value : isObject(value) && typeof value.src === 'string' ? value.src : undefined;
  if (src === undefined) return BAD;
  if (IMAGE_DATA_URL.test(src)) return ok({ kind: 'src', src });
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return ok({ kind: 'refused', src });
  }
  const allowed = url.protocol === 'https:' && url.username === '' && url.password === '' && hosts.some((h) => h.toLowerCase() === url.hostname.toLowerCase());
  return ok(allowed ? { kind: 'src', src: url.href } : { kind: 'refused', src });
}

export interface ChartView {
  /** The x labels, one per row. */
  labels: string[];
  /** One series per y key: its name and a value per row (null: no number there). */
  series: { key: string; values: (number | null)[] }[];
}

/** A chart's data: the rows' `x` cells as labels and each `y` key as a series of numbers. */
export function readChart(value: Json | undefined, x: Json | undefined, y: Json | undefined): Read<ChartView> {
  const rows = readRows(value);
  if (rows.kind !== 'ok') return rows;
  const keys = typeof y === 'string' ? [y] : Array.isArray(y) && y.every((k) => typeof k === 'string') ? (y as string[]) : undefined;
  if (typeof x !== 'string' || keys === undefined || keys.length === 0) return BAD;
  const labels = rows.value.map((row) => cellText(cellOf(row, x)));
  const series = keys.map((key) => ({
    key,
    values: rows.value.map((row) => {
      const cell = cellOf(row, key);
      return typeof cell === 'number' && Number.isFinite(cell) ? cell : null;
    }),
  }));
  return ok({ labels, series });
}

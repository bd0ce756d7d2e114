/**
 * The built-in components of the UI catalog (docs/ui-catalog.md): seed 004's six input
 * fields, the newer inputs (multiselect, date, slider, switch, tags, file, json) and the
 * display fields (markdown, table, progress, badge, metric, image, chart, code). Each has
 * its own props, the value it takes or shows, a line for the model and an example, which the
 * catalog checks against the schema when it registers it.
 */
import { z } from 'zod';
import { BlobRef, type JsonObject } from '../core/blocks.js';
import { BLOCK_DATA } from './block-data.js';
import { BLOCK_DATA_LIMITS as LIMIT, IMAGE_DATA_URL } from './block-data-keys.js';
import { compilePattern, PATTERN_MAX, PATTERN_SYNTAX, VALUE_LIMITS } from './rules.js';
import { keptOutText, SECRET_MAX } from './secret-values.js';

export type ComponentKind = 'input' | 'display';

/** A component of the catalog. */
export interface ComponentSpec {
  /** The field's `type`: letters, digits, - and _, starting with a letter. */
  type: string;
  kind: ComponentKind;
  /** One line for the model: what it draws or asks for. */
  description: string;
  /** Its own members beside label, key, type, description, value, visible (and required, for input). */
  props?: z.ZodRawShape;
  /** What the bound value holds: checked when a call writes it, and when a click sends it (input). */
  value?: z.ZodType;
  /** A field of this type the model can copy (checked against the schema on registration). */
  example: JsonObject;
  /** Checks across the field's members (an option list that is needed, min below max). */
  refine?: (field: Record<string, unknown>, issue: (path: (string | number)[], message: string) => void) => void;
  /**
   * A file (a path or a file: URL): an ES module whose `render(element, ctx)` draws the component
   * on the page, in a sandboxed frame. Read once, at register; never inside an agent's project.
   */
  renderer?: string | URL;
  /** Its value is a secret (a password): kept out of the log, the state, the transcript and the prompt (secret-values.ts). */
  secret?: boolean;
}

const Count = z.number().int().min(0).max(VALUE_LIMITS.items);
const DateText = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date, YYYY-MM-DD');
/** A pattern the whole text must match, in RE2 syntax (linear time whatever the text); compiled once to be sure it is one. */
const Pattern = z
  .string()
  .min(1)
  .max(PATTERN_MAX)
  .superRefine((p, ctx) => {
    const compiled = compilePattern(p);
    if (!compiled.ok) ctx.addIssue({ code: 'custom', message: `not RE2 syntax (${compiled.reason}); write it in ${PATTERN_SYNTAX}` });
  })
  .describe(`A regular expression the whole value must match: ${PATTERN_SYNTAX}`);
const Tone = z.enum(['neutral', 'info', 'success', 'warning', 'danger']);
export const TONES = Tone.options;
/**
 * Rows of a table or a chart: at most LIMIT.rows objects whose cells are strings (at most
 * LIMIT.text characters), numbers, booleans or null. Checked by a loop: a dashboard sends
 * hundreds of rows a second, and a schema of records and unions costs a hundred times more.
 */
const Rows = z
  .custom<Record<string, string | number | boolean | null>[]>(() => true)
  .superRefine((rows, ctx) => {
    const problem = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (!Array.isArray(rows)) return problem([], 'rows: a list of objects');
    if (rows.length > LIMIT.rows) return problem([], `at most ${LIMIT.rows} rows`);
    for (const [i, row] of rows.entries()) {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) return problem([i], 'a row is an object of cells');
      for (const [key, cell] of Object.entries(row as Record<string, unknown>)) {
        if (typeof cell === 'string' ? cell.length > LIMIT.text : cell !== null && typeof cell !== 'number' && typeof cell !== 'boolean')
          return problem([i, key], typeof cell === 'string' ? `a cell is at most ${LIMIT.text} characters` : 'a cell is a string, a number, a boolean or null');
      }
    }
  });
const Key = z.string().min(1).max(100);
const FileValue = z.strictObject({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  name: z.string().max(VALUE_LIMITS.fileName),
  mediaType: z.string().max(200),
  size: z.number().int().min(0),
});

/** min at most max, when both are given. */
const ordered = (field: Record<string, unknown>, issue: (path: (string | number)[], message: string) => void) => {
  const { min, max } = field;
  if ((typeof min === 'number' || typeof min === 'string') && typeof max === typeof min && (min as number) > (max as number))
    issue(['min'], 'min is at most max');
};
const withOptions = (field: Record<string, unknown>, issue: (path: (string | number)[], message: string) => void) => {
  if (!Array.isArray(field.options) || field.options.length === 0)
    return issue(['options'], `a ${field.type as string} field needs options: [{ "label": ..., "value": ... }]`);
  const values = (field.options as { value: string }[]).map((o) => o.value);
  if (new Set(values).size !== values.length) issue(['options'], 'two options have the same value');
  ordered(field, issue);
};

export function builtinComponents(hosts: { imageHost: (host: string) => boolean }): ComponentSpec[] {
  const HttpsImage = z.string().refine(
    (url) => {
      try {
        const parsed = new URL(url);
        return parsed.protocol === 'https:' && hosts.imageHost(parsed.hostname);
      } catch {
        return false;
      }
    },
    { message: 'an image URL is https and of a host the user allowed (ws.ui.catalog.allowImageHosts); use a blob or a data URL otherwise' },
  );
  const Src = z.union([z.string().max(LIMIT.dataUrl).regex(IMAGE_DATA_URL), HttpsImage], {
    error: 'src is a data URL of a png, jpeg, gif, webp or avif image, or an https URL of an allowed host',
  });
  const ImageValue = z.union(
    [
      z.strictObject({ blob: BlobRef, alt: z.string().max(LIMIT.label).optional() }),
      z.strictObject({ src: Src, alt: z.string().max(LIMIT.label).optional() }),
      Src,
    ],
    { error: 'an image is { blob: { sha256 } }, { src } or a src: a data URL, or an https URL of an allowed host' },
  );
  const text = (placeholderToo: boolean) => ({
    ...(placeholderToo && { placeholder: z.string().max(200).optional() }),
    min: Count.optional(),
    max: z.number().int().min(1).max(VALUE_LIMITS.text).optional(),
    pattern: Pattern.optional(),
  });
  return [
    {
      type: 'text',
      kind: 'input',
      description: 'one line of text; min/max: its length',
      props: text(true),
      value: z.string(),
      example: { label: 'Name', key: 'name', type: 'text', required: true },
      refine: ordered,
    },
    {
      type: 'password',
      kind: 'input',
      description: `a password or other secret, masked on the page; its value never reaches you, the transcript or the state: a click says only "${keptOutText('x'.repeat(12))}", and get_ui_state shows none`,
      props: { placeholder: z.string().max(200).optional() },
      value: z.string().max(SECRET_MAX),
      example: { label: 'Database password', key: 'dbPassword', type: 'password', required: true },
      secret: true,
    },
    {
      type: 'number',
      kind: 'input',
      description: 'a number',
      props: { min: z.number().optional(), max: z.number().optional(), step: z.number().positive().optional(), placeholder: z.string().max(200).optional() },
      value: z.number(),
      example: { label: 'Guests', key: 'guests', type: 'number', min: 1, max: 12 },
      refine: ordered,
    },
    {
      type: 'textarea',
      kind: 'input',
      description: 'several lines of text',
      props: { ...text(true), rows: z.number().int().min(2).max(20).optional() },
      value: z.string(),
      example: { label: 'Notes', key: 'notes', type: 'textarea' },
      refine: ordered,
    },
    {
      type: 'select',
      kind: 'input',
      description: 'one of options: [{ label, value }], in a list',

      value: z.string(),
      example: { label: 'Size', key: 'size', type: 'select', options: [{ label: 'Small', value: 's' }] },
      refine: withOptions,
    },
    {
      type: 'checkbox',
      kind: 'input',
      description: 'true or false',
      value: z.boolean(),
      example: { label: 'Subscribe', key: 'subscribe', type: 'checkbox' },
    },
    {
      type: 'radio',
      kind: 'input',
      description: 'one of options: [{ label, value }], all shown',

      value: z.string(),
      example: { label: 'Plan', key: 'plan', type: 'radio', options: [{ label: 'Free', value: 'free' }] },
      refine: withOptions,
    },
    {
      type: 'multiselect',
      kind: 'input',
      description: 'several of options (a list of their values); min/max: how many',
      props: { min: Count.optional(), max: Count.optional() },
      value: z.array(z.string()),
      example: { label: 'Toppings', key: 'toppings', type: 'multiselect', options: [{ label: 'Olives', value: 'olives' }] },
      refine: withOptions,
    },
    {
      type: 'date',
      kind: 'input',
      description: 'a date, YYYY-MM-DD; min/max: the first and last allowed',
      props: { min: DateText.optional(), max: DateText.optional() },
      value: DateText,
      example: { label: 'Arrival', key: 'arrival', type: 'date', min: '2026-01-01' },
      refine: ordered,
    },
    {
      type: 'slider',
      kind: 'input',
      description: 'a number between min and max, by step',
      props: { min: z.number(), max: z.number(), step: z.number().positive().optional() },
      value: z.number(),
      example: { label: 'Volume', key: 'volume', type: 'slider', min: 0, max: 10, step: 1 },
      refine: (field, issue) => {
        if ((field.min as number) >= (field.max as number)) issue(['min'], 'min is below max');
      },
    },
    {
      type: 'switch',
      kind: 'input',
      description: 'on or off (true or false)',
      value: z.boolean(),
      example: { label: 'Dark mode', key: 'dark', type: 'switch' },
    },
    {
      type: 'tags',
      kind: 'input',
      description: 'a list of short texts the user types; min/max: how many; pattern: each tag',
      props: { min: Count.optional(), max: Count.optional(), pattern: Pattern.optional(), placeholder: z.string().max(200).optional() },
      value: z.array(z.string()),
      example: { label: 'Labels', key: 'labels', type: 'tags', max: 5 },
      refine: ordered,
    },
    {
      type: 'file',
      kind: 'input',
      description: `a file the user uploads, held as a blob: { sha256, name, mediaType, size }; accept: media types (image/*), maxBytes: at most ${VALUE_LIMITS.fileBytes}`,
      props: {
        accept: z
          .array(z.string().regex(/^[\w.+-]+\/(?:[\w.+-]+|\*)$/, 'a media type such as application/pdf or image/*'))
          .min(1)
          .max(20)
          .optional(),
        maxBytes: z.number().int().min(1).max(VALUE_LIMITS.fileBytes).optional(),
      },
      value: FileValue,
      example: { label: 'Receipt', key: 'receipt', type: 'file', accept: ['image/*', 'application/pdf'] },
    },
    {
      type: 'json',
      kind: 'input',
      description: 'any JSON value, edited as text',
      example: { label: 'Settings', key: 'settings', type: 'json' },
    },
    {
      type: 'markdown',
      kind: 'display',
      description: 'markdown text, drawn safely (no HTML)',
      value: z.string().max(VALUE_LIMITS.text),
      example: { label: 'Summary', key: 'summary', type: 'markdown', value: '**3** rooms left' },
    },
    {
      type: 'table',
      kind: 'display',
      description: 'rows (a list of objects of strings, numbers, booleans or null) under columns; sortable by the user',
      props: {
        columns: z
          .array(z.strictObject({ key: Key, label: z.string().max(LIMIT.label).optional() }))
          .min(1)
          .max(LIMIT.columns),
        sortable: z.boolean().optional(),
      },
      value: Rows,
      example: {
        label: 'Orders',
        key: 'orders',
        type: 'table',
        columns: [
          { key: 'id', label: 'Order' },
          { key: 'total', label: 'Total' },
        ],
      },
    },
    {
      type: 'progress',
      kind: 'display',
      description: 'a bar: 0 to 100, or { value, max?, label? }',
      value: z
        .custom<unknown>(() => true)
        .superRefine((v, ctx) => {
          for (const issue of BLOCK_DATA.progress.schema(v as never).safeParse(v).error?.issues ?? [])
            ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
        }),
      example: { label: 'Done', key: 'done', type: 'progress', value: 40 },
    },
    {
      type: 'badge',
      kind: 'display',
      description: 'a short label; tone or tones ({ value: tone }) of neutral, info, success, warning, danger',
      props: { tone: Tone.optional(), tones: z.record(z.string().max(200), Tone).optional() },
      value: z.union([z.string().max(200), z.number(), z.boolean()], { error: 'a badge shows a string, a number or a boolean' }),
      example: { label: 'State', key: 'state', type: 'badge', tones: { open: 'success', closed: 'neutral' } },
    },
    {
      type: 'metric',
      kind: 'display',
      description: 'a number with its label: a number, or { value, change?, unit? } (change: + up, - down)',
      props: { unit: z.string().max(20).optional() },
      value: z.union([z.number(), z.strictObject({ value: z.number(), change: z.number().optional(), unit: z.string().max(20).optional() })], {
        error: 'a metric is a number, or { value, change?, unit? }',
      }),
      example: { label: 'Revenue', key: 'revenue', type: 'metric', unit: '€' },
    },
    {
      type: 'image',
      kind: 'display',
      description: 'an image: { blob: { sha256 } }, { src } or a src (a data URL, or an https URL of a host the user allowed); alt: what it shows',
      props: { alt: z.string().max(LIMIT.label).optional() },
      value: ImageValue,
      example: { label: 'Chart', key: 'chart', type: 'image', alt: 'Sales by month' },
    },
    {
      type: 'chart',
      kind: 'display',
      description: 'rows drawn as a line, bar or pie chart: x the key of the labels, y the key (or keys) of the numbers',
      props: {
        chart: z.enum(['line', 'bar', 'pie']),
        x: Key,
        y: z.union([Key, z.array(Key).min(1).max(8)]),
      },
      value: Rows,
      example: { label: 'Sales', key: 'sales', type: 'chart', chart: 'bar', x: 'month', y: 'total' },
      refine: (field, issue) => {
        if (field.chart === 'pie' && Array.isArray(field.y) && field.y.length > 1) issue(['y'], 'a pie chart has one y key');
      },
    },
    {
      type: 'code',
      kind: 'display',
      description: 'source code, highlighted; language: its name (typescript, python, json...)',
      props: {
        language: z
          .string()
          .regex(/^[\w+#.-]{1,40}$/)
          .optional(),
      },
      value: z.string().max(VALUE_LIMITS.text),
      example: { label: 'Query', key: 'query', type: 'code', language: 'sql', value: 'select 1' },
    },
  ];
}

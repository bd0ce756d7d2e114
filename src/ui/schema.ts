/**
 * The UI schema of seed 004: an instance the model builds with `patch_ui_state` (meta,
 * state, blocks, actions, layout). These are the shapes every accepted patch must leave.
 */
import { z } from 'zod';
import { JsonValue } from '../core/blocks.js';

export const FIELD_TYPES = ['text', 'number', 'textarea', 'select', 'checkbox', 'radio'] as const;
export const BLOCK_TYPES = ['form'] as const;
export const ACTION_STYLES = ['primary', 'secondary', 'danger'] as const;
export const LAYOUT_TYPES = ['single'] as const;
export const META_STATUSES = ['idle', 'submitted'] as const;

/** Ids of instances, blocks and actions: what a path can name. */
export const UI_ID = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,99}$/;
const UiId = z.string().regex(UI_ID, 'an id is 1 to 100 letters, digits, _ . : or -, not starting with . : or -');

export const FieldConfig = z
  .strictObject({
    label: z.string().min(1),
    key: z.string().min(1).max(100),
    type: z.enum(FIELD_TYPES),
    rid: z.string().optional(),
    value: JsonValue.optional(),
    description: z.string().optional(),
    options: z.array(z.strictObject({ label: z.string(), value: z.string() })).optional(),
  })
  .superRefine((field, ctx) => {
    if ((field.type === 'select' || field.type === 'radio') && (field.options === undefined || field.options.length === 0)) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: `a ${field.type} field needs options: [{ "label": ..., "value": ... }]` });
    }
  });
export type FieldConfig = z.infer<typeof FieldConfig>;

/** A block's props: its fields, and the seed's properties that draw data of `state.runtime` (block-data.ts says what each holds). */
export const BlockProps = z.strictObject({
  fields: z.array(FieldConfig).optional(),
  /** Draws `state.runtime.progress`: 0 to 100, or `{ value, max?, label? }`. */
  showProgress: z.boolean().optional(),
  /** Draws `state.runtime.status`: a string, or `{ text, level? }`. */
  showStatus: z.boolean().optional(),
  /** Draws `state.runtime.images`: `[{ blob: { sha256 } } | { src: data URL }, with alt and caption?]`. */
  showImages: z.boolean().optional(),
  /** Draws `state.runtime.table`: rows, or `{ columns?, rows }`. */
  showTable: z.boolean().optional(),
  /** Draws a number input bound to `state.runtime.count`, sent with the next action's click. */
  showCountInput: z.boolean().optional(),
  /** Draws `state.runtime.taskId`, read-only, with a copy button. */
  showTaskId: z.boolean().optional(),
});

export const Block = z
  .strictObject({
    id: UiId,
    type: z.enum(BLOCK_TYPES),
    bind: z.string().regex(/^state\.(params|runtime)$/, 'bind is "state.params" or "state.runtime"'),
    props: BlockProps.optional(),
  })
  .superRefine((block, ctx) => {
    const fields = block.props?.fields;
    if (block.type === 'form' && fields === undefined)
      ctx.addIssue({ code: 'custom', path: ['props', 'fields'], message: 'a form block needs props.fields (a list, empty is allowed)' });
    const keys = new Set<string>();
    for (const [i, field] of (fields ?? []).entries()) {
      if (keys.has(field.key))
        ctx.addIssue({ code: 'custom', path: ['props', 'fields', i, 'key'], message: `two fields of the block have the key "${field.key}"` });
      keys.add(field.key);
    }
  });
export type Block = z.infer<typeof Block>;

export const ActionConfig = z.strictObject({ id: UiId, label: z.string().min(1), style: z.enum(ACTION_STYLES) });
export type ActionConfig = z.infer<typeof ActionConfig>;

export const MetaStep = z
  .strictObject({ current: z.number().int().min(0), total: z.number().int().min(1) })
  .refine((s) => s.current <= s.total, { message: 'step.current cannot be more than step.total' });

export const UIMeta = z.strictObject({ pageKey: z.string().min(1).max(100), step: MetaStep, status: z.enum(META_STATUSES) });
export const UIState = z.strictObject({ params: z.record(z.string(), JsonValue), runtime: z.record(z.string(), JsonValue) });
export const Layout = z.strictObject({ type: z.enum(LAYOUT_TYPES) });

export const UIInstance = z.strictObject({
  meta: UIMeta,
  state: UIState,
  blocks: z.array(Block),
  actions: z.array(ActionConfig),
  layout: Layout.optional(),
  /** Allowed at creation only. */
  schemaVersion: z.string().optional(),
});
export type UIInstance = z.infer<typeof UIInstance>;

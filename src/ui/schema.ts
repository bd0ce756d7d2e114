/**
 * The UI schema of seed 004: an instance the model builds with `patch_ui_state` (meta,
 * state, blocks, actions, layout). These are the shapes every accepted patch must leave.
 */
import { z } from 'zod';
import { JsonValue } from '../core/blocks.js';
import { DISPLAY_TYPES, FORBIDDEN, HANDLER_PATH, HANDLER_TYPES, INPUT_TYPES, STATE_PATH } from './rules.js';

export const ACTION_STYLES = ['primary', 'secondary', 'danger'] as const;
export const BLOCK_TYPES = ['form'] as const;
export const LAYOUT_TYPES = ['single', 'column', 'row', 'grid', 'tabs'] as const;
export const META_STATUSES = ['idle', 'submitted'] as const;
/** The built-in field types (the catalog, src/ui/components.ts, defines them; a workspace can add its own). */
export const FIELD_TYPES = [...INPUT_TYPES, ...DISPLAY_TYPES] as const;

/** Ids of instances, blocks and actions: what a path can name. */
export const UI_ID = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,99}$/;
/** An instance id kept under a user's prefix (ui-scope.ts): the prefix, then an id as the model may give one. */
export const SCOPED_UI_ID = /^u[0-9a-f]{16}:[A-Za-z0-9_][A-Za-z0-9_.:-]{0,99}$/;
const UiId = z.string().regex(UI_ID, 'an id is 1 to 100 letters, digits, _ . : or -, not starting with . : or -');

/** Every `${...}` of a text, what it holds trimmed: a template of no state value (`${foo}`) is refused rather than shown as it is. */
const ANY_TEMPLATE = /\$\{([^}]*)\}/g;

/** A label, a title: text a template may fill (`${state.params.name}`). */
const Text = (max: number) =>
  z
    .string()
    .max(max)
    .superRefine((text, ctx) => {
      const paths = text.includes('${') ? [...text.matchAll(ANY_TEMPLATE)].map((m) => (m[1] as string).trim()) : [];
      for (const path of paths)
        if (!STATE_PATH.test(path))
          ctx.addIssue({ code: 'custom', message: `\${${path}} is not a template of a state value: \${state.params.key} or \${state.runtime.key}` });
    });

const StatePath = z.string().regex(STATE_PATH, 'a path of a state value: state.params.{key} or state.runtime.{key}');
const Rule = z
  .strictObject({
    path: StatePath,
    equals: JsonValue.optional(),
    notEquals: JsonValue.optional(),
    in: z.array(JsonValue).max(100).optional(),
    truthy: z.boolean().optional(),
  })
  .refine((r) => ['equals', 'notEquals', 'in', 'truthy'].filter((k) => k in r).length <= 1, {
    message: 'a rule compares one way: equals, notEquals, in or truthy (none: truthy)',
  });
/** When a field, block or action is shown (docs/ui-catalog.md): a rule, or rules that must all hold. */
export const Visible = z.union([Rule, z.array(Rule).min(1).max(10)], { error: 'visible is { path, equals? | notEquals? | in? | truthy? } or a list of them' });

/** Every field's members; a component adds its own (catalog.ts). */
export const FieldBase = z.strictObject({
  label: Text(500).min(1),
  key: z
    .string()
    .min(1)
    .max(100)
    .refine((key) => !FORBIDDEN.has(key), { message: 'a key cannot be __proto__, constructor or prototype' }),
  type: z.string(),
  description: Text(2000).optional(),
  value: JsonValue.optional(),
  visible: Visible.optional(),
});
/** An input field's members: it may be required, and have options (the choices of a select, radio or multiselect; seed 004 allows them on any field). */
export const InputFieldBase = FieldBase.extend({
  required: z.boolean().optional(),
  options: z
    .array(z.strictObject({ label: z.string().max(200), value: z.string().max(200) }))
    .max(200)
    .optional(),
});

/** A field as stored: any component's, with its own props (the catalog checks a call's fields when it writes them). */
export interface FieldConfig {
  label: string;
  key: string;
  type: string;
  description?: string;
  value?: JsonValue;
  visible?: z.infer<typeof Visible>;
  required?: boolean;
  options?: { label: string; value: string }[];
  [prop: string]: unknown;
}
export const FieldConfig = z.looseObject({ label: z.string(), key: z.string(), type: z.string() }) as unknown as z.ZodType<FieldConfig>;

const HandlerPath = z
  .string()
  .regex(HANDLER_PATH, 'a handler writes state.params.{key} or state.runtime.{key}')
  .refine((path) => !FORBIDDEN.has(path.split('.')[2] ?? ''), { message: 'a handler cannot write __proto__, constructor or prototype' });
const HandlerConfig = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('set'), path: HandlerPath, value: JsonValue }),
    z.strictObject({ type: z.literal('increment'), path: HandlerPath, by: z.number().positive().optional() }),
    z.strictObject({ type: z.literal('decrement'), path: HandlerPath, by: z.number().positive().optional() }),
    z.strictObject({ type: z.literal('toggle'), path: HandlerPath }),
    z.strictObject({ type: z.literal('template'), path: HandlerPath, template: Text(2000) }),
  ],
  { error: `a handler's type is ${HANDLER_TYPES.join(', ')}` },
);

/** A button: the instance's or a block's. With a handler, a click changes the state without the agent. */
export const ActionConfig = z.strictObject({
  id: UiId,
  label: Text(200).min(1),
  style: z.enum(ACTION_STYLES),
  handler: z.union([HandlerConfig, z.array(HandlerConfig).min(1).max(20)]).optional(),
  /** false: the fields' rules are not checked for this action (a Cancel). */
  validate: z.boolean().optional(),
  visible: Visible.optional(),
});
export type ActionConfig = z.infer<typeof ActionConfig>;

/** A block's props: its fields, its own actions, how it is shown, and the seed's properties that draw data of `state.runtime` (block-data.ts). */
export const BlockProps = z.strictObject({
  fields: z.array(FieldConfig).max(200).optional(),
  title: Text(200).optional(),
  description: Text(2000).optional(),
  actions: z.array(ActionConfig).max(20).optional(),
  visible: Visible.optional(),
  /** Drawn as a dialog over the instance while visible. */
  modal: z.boolean().optional(),
  /** The columns it spans in a grid layout. */
  span: z.number().int().min(1).max(4).optional(),
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
    /** Where its fields' keys live; state.params when left out (seed 004: "default: state.params"). */
    bind: z
      .string()
      .regex(/^state\.(params|runtime)$/, 'bind is "state.params" or "state.runtime"')
      .default('state.params'),
    props: BlockProps.optional(),
  })
  .superRefine((block, ctx) => {
    if (block.type === 'form' && block.props?.fields === undefined)
      ctx.addIssue({ code: 'custom', path: ['props', 'fields'], message: 'a form block needs props.fields (a list, empty is allowed)' });
  });
export type Block = z.infer<typeof Block>;

export const MetaStep = z
  .strictObject({ current: z.number().int().min(0), total: z.number().int().min(1) })
  .refine((s) => s.current <= s.total, { message: 'step.current cannot be more than step.total' });

export const UIMeta = z.strictObject({ pageKey: z.string().min(1).max(100), step: MetaStep, status: z.enum(META_STATUSES) });
export const UIState = z.strictObject({ params: z.record(z.string(), JsonValue), runtime: z.record(z.string(), JsonValue) });
export const Layout = z
  .strictObject({ type: z.enum(LAYOUT_TYPES), columns: z.number().int().min(1).max(4).optional() })
  .refine((l) => l.columns === undefined || l.type === 'grid', { path: ['columns'], message: 'columns goes with a grid layout' });

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

/**
 * The catalog of field components a model-built UI can hold (docs/ui-catalog.md): each
 * component's type, whether it takes input or shows a value, its own props (Zod), the value
 * it takes or shows, a line for the model and an example. The patch engine checks every field
 * a call writes with it; `patch_ui_state`'s input schema and description are generated from
 * it; `ws.ui.catalog.register` adds a user's own component (with a renderer, read once and run on the page in a sandboxed frame).
 */
import { z } from 'zod';
import { GolemError } from '../core/errors.js';
import type { JsonObject, JsonValue } from '../core/blocks.js';
import { builtinComponents, type ComponentKind, type ComponentSpec } from './components.js';
import { projectHolding, realPathOf, rendererInProject, snapshotRenderer, type RendererSnapshot } from './renderer-snapshot.js';

export type { ComponentKind, ComponentSpec };
import { ActionConfig, Block, FieldBase, InputFieldBase, Layout, Visible } from './schema.js';

/** What the page learns of the catalog (GET /api/ui/catalog). */
export interface CatalogView {
  components: { type: string; kind: ComponentKind; renderer?: string }[];
  imageHosts: string[];
}

const TYPE = /^[A-Za-z][A-Za-z0-9_-]{0,39}$/;
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$|^localhost$|^127\.0\.0\.1$/;

export class UICatalog {
  readonly #components = new Map<string, ComponentSpec & { schema: z.ZodType }>();
  readonly #imageHosts = new Set<string>();
  readonly #renderers = new Map<string, RendererSnapshot>();
  /** Agents' project roots (real paths): no renderer may come from inside one. */
  readonly #projects = new Set<string>();
  #union: z.ZodType | undefined;
  #defs: JsonObject | undefined;

  constructor(options: { builtins?: boolean } = {}) {
    if (options.builtins !== false) for (const spec of builtinComponents({ imageHost: (host) => this.#imageHosts.has(host) })) this.#add(spec);
  }

  /**
   * Adds a component. Its type must be new (DUPLICATE_ID), and its example a valid field of it (INVALID_ARGUMENT).
   * Its renderer, if any, is read here, once: the page is served this snapshot, whatever the
   * file becomes. A renderer inside an agent's project (`excludeProject`, which `ws.worker`
   * and the server call with their project's root) is RENDERER_IN_PROJECT; a missing one FILE_NOT_FOUND.
   * @example ws.ui.catalog.register({ type: 'rating', kind: 'input', description: 'stars', props: { max: z.number().int() }, value: z.number(), example: { label: 'Stars', key: 'stars', type: 'rating', max: 5 } })
   */
  register(spec: ComponentSpec): void {
    if (!TYPE.test(spec.type)) throw new GolemError('INVALID_ARGUMENT', `"${spec.type}" is not a component type: a letter, then letters, digits, - or _`);
    if (this.#components.has(spec.type)) throw new GolemError('DUPLICATE_ID', `the catalog has a component "${spec.type}" already`);
    if (spec.kind !== 'input' && spec.kind !== 'display') throw new GolemError('INVALID_ARGUMENT', `a component's kind is "input" or "display"`);
    const renderer = spec.renderer === undefined ? undefined : snapshotRenderer(spec.type, spec.renderer, this.#projects);
    this.#add(spec);
    if (renderer !== undefined) this.#renderers.set(spec.type, renderer);
  }

  /**
   * Names an agent's project folder (a path or a file: URL): renderers registered after from
   * inside it are refused, and a renderer registered before from inside it makes this call
   * fail, both with RENDERER_IN_PROJECT. `ws.worker({ project })` and the server's agent call it.
   */
  excludeProject(root: string | URL): void {
    const project = realPathOf(root, 'the project');
    this.#projects.add(project);
    for (const [type, renderer] of this.#renderers)
      if (projectHolding(renderer.path, [project]) !== undefined) throw rendererInProject(type, renderer.path, project);
  }

  /** The renderer of a component as registered: its code and sha256 (undefined: none). */
  renderer(type: string): { code: string; sha256: string } | undefined {
    const snapshot = this.#renderers.get(type);
    return snapshot === undefined ? undefined : { code: snapshot.code, sha256: snapshot.sha256 };
  }

  #add(spec: ComponentSpec): void {
    const base = spec.kind === 'input' ? InputFieldBase : FieldBase;
    for (const name of Object.keys(spec.props ?? {}))
      if (name in base.shape) throw new GolemError('INVALID_ARGUMENT', `${spec.type}: "${name}" is a member every field has; choose another name`);
    const object = base.extend({ type: z.literal(spec.type), ...spec.props });
    const value = spec.value;
    const schema = object.superRefine((field, ctx) => {
      spec.refine?.(field, (path, message) => ctx.addIssue({ code: 'custom', path, message }));
      // A display field's own value is what it shows while the state has none: it must be drawable.
      if (spec.kind === 'display' && value !== undefined && field.value !== undefined && field.value !== null) {
        const checked = value.safeParse(field.value);
        for (const issue of checked.error?.issues.slice(0, 1) ?? [])
          ctx.addIssue({ code: 'custom', path: ['value', ...issue.path.map(String)], message: issue.message });
      }
    });
    const checked = schema.safeParse(spec.example);
    if (!checked.success)
      throw new GolemError(
        'INVALID_ARGUMENT',
        `${spec.type}: the example is not a valid field: ${checked.error.issues[0]?.message ?? ''} at ${checked.error.issues[0]?.path.join('.') ?? ''}`,
      );
    this.#components.set(spec.type, { ...spec, schema });
    this.#union = undefined;
    this.#defs = undefined;
  }

  /** A component, by type. */
  get(type: string): ComponentSpec | undefined {
    return this.#components.get(type);
  }

  /** Every component, built-in ones first, in the order registered. */
  components(): ComponentSpec[] {
    return [...this.#components.values()];
  }

  /** Lets image fields show https URLs of these hosts (exact names, lower case); other sites are never loaded. */
  allowImageHosts(...hosts: string[]): void {
    for (const host of hosts) {
      const name = host.toLowerCase();
      if (!HOST.test(name)) throw new GolemError('INVALID_ARGUMENT', `"${host}" is not a host name such as images.example.com`);
      this.#imageHosts.add(name);
    }
  }

  get imageHosts(): string[] {
    return [...this.#imageHosts];
  }

  /** A field of any component: the schema the engine parses each field with (the type names the component). */
  field(): z.ZodType {
    this.#union ??= z.unknown().superRefine((value, ctx) => {
      const type = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { type?: unknown }).type : undefined;
      const spec = typeof type === 'string' ? this.#components.get(type) : undefined;
      if (spec === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: typeof type === 'string' || type === undefined ? ['type'] : [],
          message: `${type === undefined ? 'a field needs a type' : `${JSON.stringify(type)} is no component`}; the types are ${[...this.#components.keys()].join(', ')}`,
        });
        return;
      }
      const checked = spec.schema.safeParse(value);
      for (const issue of checked.error?.issues ?? []) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    });
    return this.#union;
  }

  /** What is wrong with a value bound to a field of this type (undefined: nothing, or a type with no value schema). */
  valueProblem(type: string, value: JsonValue): { path: string[]; message: string } | undefined {
    const spec = this.#components.get(type);
    if (spec?.value === undefined) return undefined;
    const issue = spec.value.safeParse(value).error?.issues[0];
    return issue === undefined ? undefined : { path: issue.path.map(String), message: issue.message };
  }

  /** The catalog as the page sees it: `rendererUrl(type, sha256)` names where a renderer's frame is served. */
  view(rendererUrl: (type: string, sha256: string) => string): CatalogView {
    return {
      components: this.components().map((c) => {
        const renderer = this.#renderers.get(c.type);
        return { type: c.type, kind: c.kind, ...(renderer !== undefined && { renderer: rendererUrl(c.type, renderer.sha256) }) };
      }),
      imageHosts: this.imageHosts,
    };
  }

  /** What the model reads of the components, in `patch_ui_state`'s description: each type, its own props, and an example. */
  describe(): string {
    const line = (c: ComponentSpec) => {
      const own = Object.keys(c.props ?? {});
      return `${c.type} (${c.description}${own.length > 0 ? `; ${own.join(', ')}` : ''}) e.g. ${JSON.stringify(c.example)}`;
    };
    const of = (kind: ComponentKind) =>
      this.components()
        .filter((c) => c.kind === kind)
        .map(line)
        .join('; ');
    return [
      `Every field is { label, key, type, description?, value?, visible? }, bound by key into its block's bind (state.params by default); input fields also take required.`,
      `Input fields (the user's value, sent with a click): ${of('input')}.`,
      `Display fields (show the bound value, or their own value while the state has none): ${of('display')}.`,
    ].join(' ');
  }

  /**
   * The catalog's shapes as JSON Schema, for patch_ui_state's input schema to carry under $defs
   * (field: one branch per component; block; action; layout), cached until a component is added.
   * The model reads them; the engine checks calls, with the seed's codes.
   */
  defs(): JsonObject {
    this.#defs ??= catalogDefs(this.components());
    return this.#defs;
  }
}

let builtins: UICatalog | undefined;

/** The built-in components alone, shared (the engine's default when no workspace's catalog is given). Not for registering. */
export function builtinCatalog(): UICatalog {
  builtins ??= new UICatalog();
  return builtins;
}

function jsonSchemaOf(schema: z.ZodType): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonObject;
  return rest;
}

function catalogDefs(components: readonly ComponentSpec[]): JsonObject {
  const visible: JsonObject = { $ref: '#/$defs/visible' };
  type Props = { properties: Record<string, JsonObject>; required?: string[]; description?: string; additionalProperties?: boolean };
  // Every field's members once; each component's branch names only its type and its own props.
  const fieldBase = jsonSchemaOf(InputFieldBase) as Props;
  delete fieldBase.properties.type;
  delete fieldBase.additionalProperties;
  fieldBase.required = ['label', 'key', 'type'];
  fieldBase.properties.visible = visible;
  fieldBase.description = "Every field's members (required and options: input fields only), beside its type's own.";
  const field = {
    anyOf: components.map((c) => {
      const own = jsonSchemaOf(z.object({ type: z.literal(c.type), ...c.props })) as Props;
      delete own.additionalProperties;
      own.description = `${c.kind}: ${c.description}`;
      return { allOf: [{ $ref: '#/$defs/fieldBase' }, own] };
    }),
  };
  const block = jsonSchemaOf(Block) as { properties: { props: Props } };
  block.properties.props.properties.fields = { type: 'array', items: { $ref: '#/$defs/field' } };
  block.properties.props.properties.actions = { type: 'array', items: { $ref: '#/$defs/action' } };
  block.properties.props.properties.visible = visible;
  const action = jsonSchemaOf(ActionConfig) as Props;
  action.properties.visible = visible;
  return { fieldBase, field, block, action, layout: jsonSchemaOf(Layout), visible: jsonSchemaOf(Visible) } as unknown as JsonObject;
}

/**
 * Checks of a whole instance at the end of a patch_ui_state call (patch-engine.ts): action ids
 * unique across the instance and its blocks, and the values its display fields show.
 */
import type { JsonValue } from '../core/blocks.js';
import type { UICatalog } from './catalog.js';
import type { UIInstance } from './schema.js';

/** An action id the instance's actions and its blocks' actions share, if one is. */
export function duplicateActionId(instance: UIInstance): string | undefined {
  const seen = new Set<string>();
  for (const action of [...instance.actions, ...instance.blocks.flatMap((b) => b.props?.actions ?? [])]) {
    if (seen.has(action.id)) return action.id;
    seen.add(action.id);
  }
  return undefined;
}

/** The first display field whose bound value (where `checked` lets through: "params.name") is not what its component takes. */
export function boundValueProblem(
  instance: UIInstance,
  catalog: UICatalog,
  checked: (key: string) => boolean,
): { key: string; path: string; message: string } | undefined {
  for (const block of instance.blocks) {
    const area = block.bind === 'state.runtime' ? 'runtime' : 'params';
    const state = instance.state[area];
    for (const field of block.props?.fields ?? []) {
      const key = `${area}.${field.key}`;
      if (!checked(key) || !Object.hasOwn(state, field.key)) continue;
      const value = state[field.key] as JsonValue;
      if (value === null) continue;
      // Display fields only: what the user types is checked when a click sends it.
      const problem = catalog.get(field.type)?.kind === 'display' ? catalog.valueProblem(field.type, value) : undefined;
      if (problem !== undefined)
        return {
          key,
          path: ['state', area, field.key, ...problem.path].join('.'),
          message: `the ${field.type} field "${field.key}" takes another value: ${problem.message}`,
        };
    }
  }
  return undefined;
}

/** The blobs the instance's image fields show (`{ blob: { sha256 } }` bound, or their own value): ones a page may load for it. */
export function fieldImageBlobs(instance: UIInstance): string[] {
  const out: string[] = [];
  for (const block of instance.blocks) {
    const state = block.bind === 'state.runtime' ? instance.state.runtime : instance.state.params;
    for (const field of block.props?.fields ?? []) {
      if (field.type !== 'image') continue;
      const value = Object.hasOwn(state, field.key) ? state[field.key] : field.value;
      const blob = value !== null && typeof value === 'object' && !Array.isArray(value) ? value.blob : undefined;
      const sha256 = blob !== null && typeof blob === 'object' && !Array.isArray(blob) ? blob.sha256 : undefined;
      if (typeof sha256 === 'string') out.push(sha256);
    }
  }
  return out;
}

/** The files the instance's file fields hold (their bound values' `sha256`): what a click sent, kept while the state names it. */
export function fileFieldBlobs(instance: UIInstance): Set<string> {
  const held = new Set<string>();
  for (const block of instance.blocks) {
    const state = block.bind === 'state.runtime' ? instance.state.runtime : instance.state.params;
    for (const field of block.props?.fields ?? []) {
      const value = field.type === 'file' && Object.hasOwn(state, field.key) ? state[field.key] : undefined;
      const sha256 = value !== null && typeof value === 'object' && !Array.isArray(value) ? value.sha256 : undefined;
      if (typeof sha256 === 'string') held.add(sha256);
    }
  }
  return held;
}

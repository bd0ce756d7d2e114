/**
 * The UI layer of `ws.sessions.diff`: the instances that differ between two sessions, each as
 * an RFC 6902 patch from a's instance to b's (made by fast-json-patch's `compare`). Instances
 * are the workspace's (one per id, whichever session's agent patched it), so each side is read
 * as the command log had it at its head: the accepted `patch_ui_state` calls and clicks up to
 * there, applied again by the patch engine.
 */
// A CommonJS package: Node gives its exports as the default import only.
import jsonPatch from 'fast-json-patch';
import type { SessionDiffLayer } from '../prompt/session-diff.js';
import type { UICatalog } from './catalog.js';
import { applyPatchInput, type JsonPatchOperation } from './patch-engine.js';
import type { UIInstance } from './schema.js';
import { clickPatches, type UIClick } from './ui-click.js';

/** One instance that differs between the two sides. */
export interface UIDifference {
  /** The instance's id as stored. */
  instanceId: string;
  /** 'added': only b has it; 'removed': only a has it; 'changed': both, not equal. */
  change: 'added' | 'removed' | 'changed';
  /**
   * RFC 6902 from a's instance to b's: for 'added' one `add` of the whole instance at the root,
   * for 'removed' one `remove` of the root.
   */
  patch: JsonPatchOperation[];
}

/** The UI layer, replaying calls with `catalog` (the workspace's). */
export function uiDiffLayer(catalog: UICatalog): SessionDiffLayer<'ui'> {
  return {
    name: 'ui',
    async diff(ctx) {
      const log = await ctx.log();
      const instances = new Map<string, UIInstance>();
      const first = Math.min(ctx.a.seq, ctx.b.seq);
      let atFirst: Map<string, UIInstance> | undefined;
      for (const entry of log) {
        if (entry.seq > first) atFirst ??= new Map(instances);
        apply(instances, entry.type, entry.payload, catalog, (sha256) => ctx.view.blobs.get(sha256));
      }
      atFirst ??= new Map(instances);
      const [a, b] = ctx.a.seq <= ctx.b.seq ? [atFirst, instances] : [instances, atFirst];
      const differences: UIDifference[] = [];
      for (const instanceId of [...new Set([...a.keys(), ...b.keys()])].sort()) {
        const before = a.get(instanceId);
        const after = b.get(instanceId);
        if (before === after) continue;
        if (before === undefined) differences.push({ instanceId, change: 'added', patch: [{ op: 'add', path: '', value: after }] as JsonPatchOperation[] });
        else if (after === undefined) differences.push({ instanceId, change: 'removed', patch: [{ op: 'remove', path: '' }] as JsonPatchOperation[] });
        else {
          const patch = jsonPatch.compare(before, after) as JsonPatchOperation[];
          if (patch.length > 0) differences.push({ instanceId, change: 'changed', patch });
        }
      }
      return differences;
    },
  };
}

/**
 * Applies one logged command to the instances, as its reducer did. A call the engine refuses
 * now (a component the catalog no longer has) is left out: it was refused or it is unreadable.
 */
function apply(
  instances: Map<string, UIInstance>,
  type: string,
  payload: unknown,
  catalog: UICatalog,
  blob: (sha256: string) => { size: number; mediaType: string; filename: string | null } | undefined,
): void {
  let call: unknown;
  if (type === 'ui:patch') {
    const { builtBy: _builtBy, ...rest } = payload as Record<string, unknown>;
    call = rest;
  } else if (type === 'ui:click') {
    const click = payload as Partial<UIClick>;
    const plan = clickPatches(typeof click.instanceId === 'string' ? instances.get(click.instanceId) : undefined, click, catalog, blob);
    if (!plan.ok) return;
    call = { instanceId: click.instanceId, patches: plan.patches };
  } else return;
  const outcome = applyPatchInput(call, (id) => instances.get(id), catalog);
  if (!outcome.ok) return;
  if (outcome.kind === 'delete') instances.delete(outcome.instanceId);
  else instances.set(outcome.instanceId, outcome.instance);
}

declare module '../prompt/session-diff.js' {
  interface SessionDiffLayers {
    /** UI instances that differ, as each side last saw them, as RFC 6902 from a's to b's. */
    ui: UIDifference[];
  }
}

/**
 * The environment layer of `ws.sessions.diff`: the editable values that differ between two
 * sessions. An environment's values are the workspace's (one set, whichever session's agent
 * changes them), so each side is read as the command log had them at its head: what that
 * side's model last saw.
 */
import type { SessionDiffLayer } from '../prompt/session-diff.js';

/** One editable field whose value differs between the two sides (null: not set, or set to null). */
export interface EnvironmentDifference {
  /** The environment's id. */
  environment: string;
  field: string;
  a: string | null;
  b: string | null;
}

/** The environment layer: every field of every environment whose value at a's head differs from its value at b's. */
export const environmentDiffLayer: SessionDiffLayer<'environment'> = {
  name: 'environment',
  async diff(ctx) {
    if (ctx.view.collection('environment').size === 0) return [];
    const at = { a: new Map<string, Record<string, string | null>>(), b: new Map<string, Record<string, string | null>>() };
    for (const entry of await ctx.log()) {
      if (entry.type !== 'environment:update') continue;
      const { environmentId, values } = entry.payload as { environmentId: string; values: Record<string, string | null> };
      for (const side of ['a', 'b'] as const) {
        if (entry.seq > ctx[side].seq) continue;
        at[side].set(environmentId, { ...at[side].get(environmentId), ...values });
      }
    }
    const differences: EnvironmentDifference[] = [];
    for (const environment of [...new Set([...at.a.keys(), ...at.b.keys()])].sort()) {
      const a = at.a.get(environment) ?? {};
      const b = at.b.get(environment) ?? {};
      for (const field of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
        const before = a[field] ?? null;
        const after = b[field] ?? null;
        if (before !== after) differences.push({ environment, field, a: before, b: after });
      }
    }
    return differences;
  },
};

declare module '../prompt/session-diff.js' {
  interface SessionDiffLayers {
    /** Environment fields whose values differ, as each side last saw them. */
    environment: EnvironmentDifference[];
  }
}

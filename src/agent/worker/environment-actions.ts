/** The actions a worker gets from its mounted environments: `update_editable_status` for all of them, and each one's own. */
import { z } from 'zod';
import { defineAction, type Action } from '../../action/action.js';
import type { Environment } from '../../environment/environment.js';

/** The environments' actions: `update` (none without environments) and `all`, update first. */
export function environmentActions(environments: readonly Environment[]): { update: Action | undefined; all: Action[] } {
  if (environments.length === 0) return { update: undefined, all: [] };
  const byId = new Map(environments.map((e) => [e.info.id, e]));
  const single = environments.length === 1 ? environments[0] : undefined;
  const update = defineAction({
    name: 'update_editable_status',
    // Sets a field to the value given: setting it again changes nothing.
    repeatable: true,
    description: `Sets an editable field of ${single === undefined ? 'an environment' : `the ${single.info.name}`} directly (see its context for the fields and their constraints).`,
    input: z.object({
      fieldName: z.string().min(1),
      // Models often write numbers and booleans unquoted: taken as the text they stand for.
      value: z.union([z.string(), z.number(), z.boolean()]).nullable(),
      ...(single === undefined && { environment: z.enum([...byId.keys()] as [string, ...string[]]) }),
    }),
    run: async (input: { fieldName: string; value: string | number | boolean | null; environment?: string | undefined }) => {
      const environment = single ?? byId.get(input.environment ?? '');
      if (environment === undefined) return { success: false, error: `no environment "${input.environment}"` };
      return environment.updateEditableStatus(input.fieldName, input.value === null ? null : String(input.value));
    },
  }) as Action;
  const own = environments.flatMap((e) => e.actions?.() ?? []);
  return { update, all: [update, ...own] };
}

/**
 * The actions a worker gets from its mounted environments: `update_editable_status` for all
 * of them, each one's own (`actions()`), and `execute_action` for those that take actions by
 * name through the seed's `executeAction` without listing them.
 */
import { z } from 'zod';
import { defineAction, type Action } from '../../action/action.js';
import { JsonObject } from '../../core/blocks.js';
import type { Environment } from '../../environment/environment.js';

/** An environment that runs its actions by name only (the seed's shape: `executeAction`, no `actions()`). */
export function takesActionsByName(environment: Environment): boolean {
  return environment.executeAction !== undefined && environment.actions === undefined;
}

/** The environments' actions, as a worker offers them. */
export interface EnvironmentActions {
  /** `update_editable_status` (undefined without environments). */
  update: Action | undefined;
  /** `execute_action` (undefined unless an environment takes actions by name). */
  execute: Action | undefined;
  /**
   * Exactly one environment takes actions by name: a call of a name no action has goes to it
   * through `execute_action` (the seed's `{"action": "semantic_search", "params": {...}}`).
   */
  routesByName: boolean;
  /** Every one of them, update first. */
  all: Action[];
}

export function environmentActions(environments: readonly Environment[]): EnvironmentActions {
  if (environments.length === 0) return { update: undefined, execute: undefined, routesByName: false, all: [] };
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
  const byName = environments.filter(takesActionsByName);
  const onlyByName = byName.length === 1 ? byName[0] : undefined;
  const execute =
    byName.length === 0
      ? undefined
      : (defineAction({
          name: 'execute_action',
          // What an action does is the environment's to say; run twice after a crash only if it is asked again.
          repeatable: false,
          description: `Runs one of ${onlyByName === undefined ? "an environment's" : `the ${onlyByName.info.name}'s`} own actions by its name, with its params (see its context for the actions it has).`,
          input: z.object({
            actionName: z.string().min(1),
            params: JsonObject.optional(),
            ...(onlyByName === undefined && { environment: z.enum(byName.map((e) => e.info.id) as [string, ...string[]]) }),
          }),
          run: async (input: { actionName: string; params?: JsonObject | undefined; environment?: string | undefined }) => {
            const environment = onlyByName ?? byName.find((e) => e.info.id === input.environment);
            if (environment?.executeAction === undefined) return { success: false, error: `no environment "${input.environment}" that takes actions by name` };
            return environment.executeAction(input.actionName, input.params ?? {});
          },
        }) as Action);
  const own = environments.flatMap((e) => e.actions?.() ?? []);
  return { update, execute, routesByName: onlyByName !== undefined, all: [update, ...(execute === undefined ? [] : [execute]), ...own] };
}

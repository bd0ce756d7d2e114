/**
 * A user's click on an action of a model-built UI (seed 004's flow: input, optimistic
 * update, action click, then the tool path, then the push): `ws.ui.click` checks the values
 * and applies them with the action's handlers as one `patch_ui_state` call (src/ui/ui-click.ts);
 * a click without a handler then goes to whoever listens (the agent).
 */
import type { JsonValue } from '../core/blocks.js';
import type { UIApi } from '../ui/ui-api.js';
import { findAction } from '../ui/ui-click.js';
/** What the page sends when the user clicks an action. */
export interface UIActionMessage {
  type: 'UI_ACTION';
  instanceId: string;
  actionId: string;
  /** The form's values, by field key. */
  values?: Record<string, JsonValue>;
  /** The count input's value (a block with `showCountInput`): written to `state.runtime.count`. */
  count?: number;
}

/** A click the agent receives, after the values were applied. */
export interface UIActionEvent {
  instanceId: string;
  actionId: string;
  actionLabel: string;
  values: Record<string, JsonValue>;
  /** The count the user sent (`state.runtime.count`), when the instance shows a count input. */
  count?: number;
  /** The instance's version after the values were applied. */
  version: number;
  /** The action's handler applied it: no agent is told. */
  handled?: true;
}

export type UIActionResult = { ok: true; event: UIActionEvent } | { ok: false; code: string; message: string };

/** Whether the action clicked acts on the state itself (a handler): then it goes to no agent, and may be clicked while the agent works. */
export function handledAction(ui: UIApi, message: Partial<UIActionMessage>): boolean {
  if (typeof message.instanceId !== 'string' || typeof message.actionId !== 'string') return false;
  const instance = ui.get(message.instanceId)?.instance;
  return instance !== undefined && findAction(instance, message.actionId)?.handler !== undefined;
}

/** Applies a click through `ws.ui.click` (the `ui:click` command): what the agent is told, or why it was refused. */
export async function applyUiAction(ui: UIApi, message: Partial<UIActionMessage>): Promise<UIActionResult> {
  const { type: _type, ...click } = message;
  const done = await ui.click(click);
  if (!done.ok) return done;
  return {
    ok: true,
    event: {
      instanceId: click.instanceId as string,
      actionId: done.action.id,
      actionLabel: done.action.label,
      values: done.values,
      ...(done.count !== undefined && { count: done.count }),
      version: done.version,
      ...(done.action.handled && { handled: true }),
    },
  };
}

/**
 * Values a user types into a field whose component is `secret` (the `password` field): they
 * never reach the log, the instance's state, the transcript or the prompt. A click's secret
 * values are taken out before the `ui:click` command is dispatched; what stays in their place
 * (in the click's values, so in the message the agent reads) says only that one was given and
 * how long it is. The values themselves are kept in the process's memory for code of the
 * user's own (`ws.ui.secret(instanceId, key)`), never written anywhere.
 */
import type { JsonObject, JsonValue } from '../core/blocks.js';
import type { UIInstance } from './schema.js';

/** The longest secret value a field takes, in characters. */
export const SECRET_MAX = 1000;

/** What the model reads in place of a secret value the user gave. */
export function keptOutText(value: string): string {
  return `(given, ${value.length} character${value.length === 1 ? '' : 's'}, kept out of the transcript)`;
}

/** The click with its secret values replaced (what is logged and told), and the values taken out; or why it is refused. */
export type SecretSplit = { ok: true; payload: JsonObject; secrets: Record<string, string> } | { ok: false; code: string; message: string };

/** Takes the values of secret fields (`isSecret(type)`: the catalog's `secret` components) out of a click (a JSON payload) on `instance`. */
export function keepSecretsOut(instance: UIInstance | undefined, payload: JsonObject, isSecret: (type: string) => boolean): SecretSplit {
  const values = payload.values;
  if (instance === undefined || values === null || typeof values !== 'object' || Array.isArray(values)) return { ok: true, payload, secrets: {} };
  const secretKeys = new Set(instance.blocks.flatMap((b) => b.props?.fields ?? []).flatMap((field) => (isSecret(field.type) ? [field.key] : [])));
  if (secretKeys.size === 0) return { ok: true, payload, secrets: {} };
  const secrets: Record<string, string> = {};
  const told: Record<string, JsonValue> = { ...values };
  for (const key of Object.keys(values)) {
    if (!secretKeys.has(key)) continue;
    const value = values[key];
    if (typeof value !== 'string' || value.length > SECRET_MAX)
      return { ok: false, code: 'INVALID_STRUCTURE', message: `${key}: a password field takes text of at most ${SECRET_MAX} characters` };
    if (value === '') continue;
    secrets[key] = value;
    told[key] = keptOutText(value);
  }
  return { ok: true, payload: { ...payload, values: told }, secrets };
}

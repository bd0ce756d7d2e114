/**
 * Values a user types into a field whose component is `secret` (the `password` field): they
 * never reach the log, the instance's state, the transcript or the prompt. A click's secret
 * values are taken out before the `ui:click` command is dispatched; what stays in their place
 * (in the click's values, so in the message the agent reads) says only that one was given and
 * how long it is. The values themselves are kept in the process's memory for code of the
 * user's own (`ws.ui.secret(instanceId, key)`), never written anywhere, and only as long as
 * their instance lives.
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

/** The instance a secret value was typed into: its id, and when it was made (an instance made again under the id is another). */
type InstanceLife = { readonly id: string; readonly createdAt: string };

/**
 * The secret values of the last accepted click on each instance, by key, in this process's
 * memory only, each kept with the instance it was typed into (its id and when it was made): a
 * deleted instance's are dropped (`drop`), and so are those of one another process deleted,
 * or deleted and made again, once this process hears of it (`prune`).
 */
export class SecretValues {
  readonly #kept = new Map<string, { createdAt: string; values: Record<string, string> }>();

  /** Keeps a click's secret values for `record` (none: drops what was kept for it). */
  keep(record: InstanceLife, values: Record<string, string>): void {
    if (Object.keys(values).length === 0) this.#kept.delete(record.id);
    else this.#kept.set(record.id, { createdAt: record.createdAt, values });
  }

  /** The value of `key` kept for the instance `instanceId`, if any. */
  get(instanceId: string, key: string): string | undefined {
    return this.#kept.get(instanceId)?.values[key];
  }

  /** Drops what was kept for the instance `instanceId` (it was deleted). */
  drop(instanceId: string): void {
    this.#kept.delete(instanceId);
  }

  /** Drops what was kept for instances that are gone, or made again since (`current` reads an instance as the index has it now). */
  prune(current: (instanceId: string) => InstanceLife | undefined): void {
    for (const [instanceId, kept] of this.#kept) if (current(instanceId)?.createdAt !== kept.createdAt) this.#kept.delete(instanceId);
  }
}

/**
 * `${variable}` interpolation and the step from a model's command to an executor's
 * (seed 002): variables and secrets are filled in outside the model, and the session id
 * is injected, so the model never writes either and never sees a secret.
 */
import type { JsonObject } from '../core/blocks.js';
import { GolemError, type Result } from '../core/errors.js';
import { VARIABLE_REFERENCE } from './browser-commands.js';
import type { AIGeneratedCommand, ExecutorCommand } from './types.js';

const REFERENCE = new RegExp(VARIABLE_REFERENCE.source, 'g');
/** The parameters variables are filled into; selectors and variable names are taken as written. */
const INTERPOLATED = new Set(['url', 'text']);

/** The variable names a text refers to, in order of first use. */
export function variableReferences(text: string): string[] {
  return [...new Set([...text.matchAll(REFERENCE)].map((m) => m[1] as string))];
}

/** What `${name}` may stand for: saved variables, and secrets the user gave (never shown to the model). */
export interface VariableScope {
  variables: Readonly<Record<string, string>>;
  secrets?: Readonly<Record<string, string>>;
}

/** The text with every `${name}` filled in, or VARIABLE_NOT_FOUND naming the missing ones and those there are. */
export function interpolate(text: string, scope: VariableScope): Result<string> {
  const missing = variableReferences(text).filter((name) => lookup(scope, name) === undefined);
  if (missing.length > 0) {
    const known = [...Object.keys(scope.variables), ...Object.keys(scope.secrets ?? {})];
    return {
      ok: false,
      error: new GolemError(
        'VARIABLE_NOT_FOUND',
        `no variable named ${missing.map((m) => `"${m}"`).join(', ')}; ${known.length === 0 ? 'none is saved yet (SAVE_VARIABLE saves one)' : `the variables are ${known.join(', ')}`}`,
        { details: { missing, known } },
      ),
    };
  }
  return { ok: true, value: text.replace(REFERENCE, (_whole, name: string) => lookup(scope, name) as string) };
}

/**
 * A model's command as the executor takes it: variables filled into `url` and `text`, the
 * session id injected. Secrets go into `text` only (typed into a field): a secret in a URL
 * would travel in the clear to wherever the page sends it.
 */
export function toExecutorCommand(command: AIGeneratedCommand, sessionId: string, scope: VariableScope): Result<ExecutorCommand> {
  const parameters: JsonObject = {};
  for (const [key, value] of Object.entries(command.parameters)) {
    if (typeof value === 'string' && INTERPOLATED.has(key)) {
      const secret = key === 'text' ? undefined : variableReferences(value).find((name) => scope.secrets !== undefined && Object.hasOwn(scope.secrets, name));
      if (secret !== undefined) {
        return {
          ok: false,
          error: new GolemError('INVALID_ARGUMENT', `\${${secret}} is a secret: secrets are typed into fields with INPUT_TEXT, never put in a ${key}`, {
            details: { parameter: key, secret },
          }),
        };
      }
      const filled = interpolate(value, scope);
      if (!filled.ok) return filled;
      parameters[key] = filled.value;
    } else {
      parameters[key] = value;
    }
  }
  return { ok: true, value: { sessionId, action: command.action, parameters } };
}

/**
 * The text with every secret's value replaced by its `${name}`: what may be shown or
 * stored. The forms a page or a URL may turn a value into are caught too: URL-encoded
 * (as a component and as a submitted form), JSON-escaped and HTML-escaped.
 */
export function redactSecrets(text: string, secrets: Readonly<Record<string, string>> | undefined): string {
  if (secrets === undefined) return text;
  const forms: [string, string][] = [];
  for (const [name, value] of Object.entries(secrets)) {
    if (value === '') continue;
    const encoded = encodeURIComponent(value);
    const form = new URLSearchParams({ v: value }).toString().slice(2); // a submitted form's encoding
    const variants = new Set([value, encoded, encoded.replace(/%20/g, '+'), form, JSON.stringify(value).slice(1, -1), escapeHtml(value)]);
    for (const variant of variants) forms.push([variant, `\${${name}}`]);
  }
  if (forms.length === 0) return text;
  // One pass, longest first (a secret inside another is not left half-shown); placeholders
  // already there are matched first and kept, so redacting twice changes nothing.
  forms.sort((a, b) => b[0].length - a[0].length);
  const placeholders = new Map(forms);
  const pattern = new RegExp(`\\$\\{[a-zA-Z_][a-zA-Z0-9_]*\\}|${forms.map(([v]) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')}`, 'g');
  return text.replace(pattern, (match) => placeholders.get(match) ?? match);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function lookup(scope: VariableScope, name: string): string | undefined {
  const own = (record: Readonly<Record<string, string>> | undefined) => (record !== undefined && Object.hasOwn(record, name) ? record[name] : undefined);
  return own(scope.secrets) ?? own(scope.variables);
}

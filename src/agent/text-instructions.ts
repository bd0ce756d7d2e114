/**
 * Instructions a model writes in its answer's text instead of calling a tool (seed 000):
 *   {"type":"workspace_action","action":"update_editable_status","params":{"fieldName":"...","value":"..."}}
 * or the short form {"action":"update_editable_status","fieldName":"...","value":"..."}.
 * Extraction finds every JSON object in the text, wherever it stands (code fences, prose
 * around it, several in one answer), and reports the ones it cannot read, never swallowing them.
 */
import type { JsonObject, JsonValue } from '../core/blocks.js';

/** An action the text asks for. */
export interface ActionRequest {
  action: string;
  params: JsonObject;
  /** The JSON text it was read from. */
  source: string;
}

/** Something that looked like an instruction but could not be read; the model is told. */
export interface InstructionError {
  message: string;
  /** The text in question (at most 200 characters). */
  snippet: string;
}

/** Braces not closed that are read (each to the end of the text) before the rest is left unread: the reading stays linear. */
const MAX_UNCLOSED = 50;

export function extractInstructions(text: string): { requests: ActionRequest[]; errors: InstructionError[] } {
  const requests: ActionRequest[] = [];
  const errors: InstructionError[] = [];
  let unclosed = 0;
  for (let at = text.indexOf('{'); at !== -1;) {
    const end = matchingBrace(text, at);
    if (end === -1 && ++unclosed > MAX_UNCLOSED) {
      errors.push({
        message: `more than ${MAX_UNCLOSED} "{" are not closed; the rest of the answer was not read for instructions`,
        snippet: text.slice(at, at + 200),
      });
      break;
    }
    if (end === -1) {
      // Not closed: a stray brace in prose, or a cut-off instruction. Report the latter; read on either way.
      const rest = text.slice(at);
      const next = text.indexOf('{', at + 1);
      const own = next === -1 ? rest : text.slice(at, next);
      if (/"action"\s*:/.test(own)) errors.push({ message: 'an instruction is not closed (a "}" is missing)', snippet: own.slice(0, 200) });
      at = next;
      continue;
    }
    const source = text.slice(at, end + 1);
    const parsed = parse(source);
    if (parsed.ok) {
      const request = asRequest(parsed.value, source);
      if (request instanceof Error) errors.push({ message: request.message, snippet: source.slice(0, 200) });
      else if (request !== undefined) requests.push(request);
    } else if (/"action"\s*:|workspace_action/.test(source)) {
      errors.push({ message: `an instruction is not valid JSON: ${parsed.error}`, snippet: source.slice(0, 200) });
    }
    at = text.indexOf('{', end + 1);
  }
  return { requests, errors };
}

/** The index of the `}` closing the `{` at `start`, minding strings and escapes; -1 when there is none. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/** JSON, forgiving the trailing commas models like to write. */
function parse(source: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(source) as unknown };
  } catch (error) {
    const repaired = source.replace(/,(\s*[}\]])/g, '$1');
    if (repaired !== source) {
      try {
        return { ok: true, value: JSON.parse(repaired) as unknown };
      } catch {
        // the original error says more
      }
    }
    return { ok: false, error: (error as Error).message };
  }
}

/** The request an object makes, undefined when it is not an instruction at all, an Error when it is a broken one. */
function asRequest(value: unknown, source: string): ActionRequest | Error | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, JsonValue>;
  if (!('action' in o)) return o.type === 'workspace_action' ? new Error('a workspace_action names no "action"') : undefined;
  if (typeof o.action !== 'string' || o.action === '') return new Error('"action" must be the name of an action');
  if ('params' in o) {
    const params = o.params;
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return new Error(`the params of ${o.action} must be an object`);
    return { action: o.action, params: params, source };
  }
  // The short form: every other property is a parameter.
  const { action, type: _type, ...params } = o;
  return { action, params, source };
}

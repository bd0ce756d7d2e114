/**
 * What an MCP server's request for input (elicitation) asks, as fields any front end can ask
 * (the page builds a form of them, the terminal asks them one by one), and the answers typed
 * back as the server's schema says, with what is wrong named.
 */
import type { JsonValue } from '../core/blocks.js';
import type { ElicitationAnswer, ElicitationRequest } from './connection.js';

export interface ElicitField {
  key: string;
  label: string;
  description?: string;
  kind: 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'list';
  /** A choice's options; a list's allowed items, when the schema names them. */
  choices?: { value: string; label: string }[];
  default?: string | number | boolean | string[];
  required: boolean;
}

interface Property {
  type?: string;
  title?: string;
  description?: string;
  default?: JsonValue;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: { const?: unknown; title?: string }[];
  items?: { enum?: unknown[]; anyOf?: { const?: unknown; title?: string }[] };
}

const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** The fields of a form request (none for a link to open). */
export function elicitationFields(request: ElicitationRequest): ElicitField[] {
  if (request.mode !== 'form') return [];
  const schema = request.requestedSchema as { properties?: Record<string, Property>; required?: string[] };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([key, p]) => {
    const base = {
      key,
      label: p.title ?? key,
      required: required.has(key),
      ...(p.description !== undefined && { description: p.description }),
    };
    const withDefault = <T extends ElicitField>(field: T): T => {
      const d = p.default;
      if (d === undefined || d === null) return field;
      return { ...field, default: Array.isArray(d) ? d.map(text) : typeof d === 'object' ? text(d) : d };
    };
    const choices =
      p.oneOf?.flatMap((o) => (o.const === undefined ? [] : [{ value: text(o.const), label: o.title ?? text(o.const) }])) ??
      p.enum?.map((v, i) => ({ value: text(v), label: p.enumNames?.[i] ?? text(v) }));
    if (p.type === 'array') {
      const items =
        p.items?.anyOf?.flatMap((o) => (o.const === undefined ? [] : [{ value: text(o.const), label: o.title ?? text(o.const) }])) ??
        p.items?.enum?.map((v) => ({ value: text(v), label: text(v) }));
      return withDefault({ ...base, kind: 'list', ...(items !== undefined && { choices: items }) });
    }
    if (choices !== undefined && choices.length > 0) return withDefault({ ...base, kind: 'choice', choices });
    if (p.type === 'boolean') return withDefault({ ...base, kind: 'boolean' });
    if (p.type === 'number' || p.type === 'integer') return withDefault({ ...base, kind: p.type });
    return withDefault({ ...base, kind: 'text' });
  });
}

/**
 * The answer to send for the values given (by key, as typed or picked): typed as each field
 * says, an empty value left out. `problems` names what cannot be sent (a required field left
 * empty, a number that is not one, a choice not offered); the answer is then not to be sent.
 */
export function elicitationContent(
  fields: readonly ElicitField[],
  values: Readonly<Record<string, JsonValue | undefined>>,
): { answer: ElicitationAnswer; problems: string[] } {
  const content: NonNullable<ElicitationAnswer['content']> = {};
  const problems: string[] = [];
  for (const field of fields) {
    const raw = values[field.key];
    if (raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0)) {
      if (field.required) problems.push(`${field.label} is required`);
      continue;
    }
    if (field.kind === 'boolean') content[field.key] = raw === true || raw === 'true' || raw === 'y' || raw === 'yes';
    else if (field.kind === 'number' || field.kind === 'integer') {
      const n = typeof raw === 'number' ? raw : Number(text(raw).trim());
      if (!Number.isFinite(n) || (field.kind === 'integer' && !Number.isInteger(n)))
        problems.push(`${field.label} must be ${field.kind === 'integer' ? 'a whole number' : 'a number'}`);
      else content[field.key] = n;
    } else if (field.kind === 'list') {
      const items = (Array.isArray(raw) ? raw.map(text) : text(raw).split(',')).map((v) => v.trim()).filter((v) => v !== '');
      const unknown = field.choices === undefined ? [] : items.filter((v) => !field.choices?.some((c) => c.value === v || c.label === v));
      if (unknown.length > 0) problems.push(`${field.label}: ${unknown.join(', ')} is not one of ${field.choices?.map((c) => c.value).join(', ')}`);
      else content[field.key] = items.map((v) => field.choices?.find((c) => c.label === v)?.value ?? v);
    } else if (field.kind === 'choice') {
      const value = text(raw);
      const choice = field.choices?.find((c) => c.value === value || c.label === value);
      if (choice === undefined) problems.push(`${field.label}: ${value} is not one of ${field.choices?.map((c) => c.value).join(', ')}`);
      else content[field.key] = choice.value;
    } else content[field.key] = text(raw);
  }
  return { answer: { action: 'accept', content }, problems };
}

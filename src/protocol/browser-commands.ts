/**
 * The browser executor's five commands (seed 002 "Web Automation Command Schemas"), their
 * parameters declared once as Zod schemas: the schema manager shows them to the model
 * and the browser actions validate with the same schemas.
 */
import { z } from 'zod';
import type { JsonObject } from '../core/blocks.js';
import type { CommandAction, CommandSpec } from './types.js';

/** A variable name (seed 002: `^[a-zA-Z_][a-zA-Z0-9_]*$`). */
export const VARIABLE_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** A `${name}` reference to a saved variable (or a secret), filled in outside the model. */
export const VARIABLE_REFERENCE = /\$\{([a-zA-Z_][a-zA-Z0-9_]*)\}/;

const Selector = z.string().min(1).describe('A CSS selector, or ref=<id> for an element of a snapshot of the page, e.g. ref=e7');

/** The parameters of each command. */
export const BROWSER_COMMAND_INPUTS = {
  OPEN_PAGE: z.strictObject({
    url: z.union([z.url(), z.string().regex(VARIABLE_REFERENCE)]).describe('URL to navigate to; may use ${variable}'),
  }),
  CLICK_ELEMENT: z.strictObject({ selector: Selector }),
  INPUT_TEXT: z.strictObject({
    selector: Selector,
    text: z.string().describe('Text to type into the field (it replaces what is there); ${variable} is filled in for you'),
  }),
  SAVE_VARIABLE: z.strictObject({
    selector: Selector,
    variableName: z.string().regex(VARIABLE_NAME).describe("Name to save the element's text (or a field's value) under, for ${name} later"),
  }),
  GET_DOM: z.strictObject({
    page: z.number().int().min(1).optional().describe('Which page of a snapshot too long for one answer (default 1)'),
    query: z.string().min(1).max(200).optional().describe('Show only the elements whose text, name or role has these words, with their containers'),
  }),
} as const satisfies Record<CommandAction, z.ZodType>;

/**
 * What each command does, as the model is told: in envelope mode in the system prompt of
 * every step, in tool mode as the tools' descriptions. The five are offered together (one
 * refers to another rather than say it twice), and short: they are paid for at every step.
 */
export const BROWSER_COMMAND_DESCRIPTIONS: Record<CommandAction, string> = {
  OPEN_PAGE: 'Open a URL; answers as CLICK_ELEMENT.',
  // What a result or an error says by itself (a stale ref's way out, the next page of a long snapshot) is not told here.
  CLICK_ELEMENT:
    'Click "ref=e7" (the element shown [ref=e7]) or a CSS selector; click a checkbox or radio button to change it. Answers with the lines changed since the last snapshot (+ added, ~ changed, as now, - removed; the others are as they were), or a snapshot after a page load.',
  INPUT_TEXT: "Replace a field's text, or pick a select's option by label; selector and answer as CLICK_ELEMENT.",
  SAVE_VARIABLE: "Save an element's text or a field's value as variableName (say price); ${price} in a later url or text is replaced by it.",
  GET_DOM: 'The page as a snapshot, repeated items a line each; "query": only the lines with all its words.',
};

let definitions: CommandSpec[] | undefined;

/** The five commands as the schema manager takes them (their JSON Schemas generated once). */
export function browserCommandDefinitions(): CommandSpec[] {
  definitions ??= (Object.keys(BROWSER_COMMAND_INPUTS) as CommandAction[]).map((name) => {
    const { $schema: _dialect, ...parameters } = z.toJSONSchema(BROWSER_COMMAND_INPUTS[name]) as JsonObject;
    return { name, description: BROWSER_COMMAND_DESCRIPTIONS[name], parameters };
  });
  return definitions.map((d) => ({ ...d, parameters: structuredClone(d.parameters) }));
}

/**
 * Builds the JSON Schema of a response (seed 002 "Response Schema Structure"): the
 * decision, the reasoning, one optional command (one branch per command, told apart by
 * its `action`), and the decision rules (RETRY needs a command, ABORT forbids one).
 */
import type { JsonObject } from '../core/blocks.js';
import { DECISION_ACTIONS, type CommandSpec, type ResponseSchema, type SchemaOptions } from './types.js';

export const RESPONSE_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

const str = (description: string, minLength = 0): JsonObject => ({ type: 'string', ...(minLength > 0 && { minLength }), description });
const strings = (description: string): JsonObject => ({ type: 'array', items: { type: 'string' }, description });

/** seed 002 `buildDecisionSchema`. */
export function buildDecisionSchema(options: Required<SchemaOptions>): JsonObject {
  const closed = options.validationMode === 'strict';
  return {
    type: 'object',
    description: 'What you decide after looking at the result of the previous command.',
    properties: {
      action: {
        type: 'string',
        enum: [...DECISION_ACTIONS],
        description:
          'PROCEED: the last step worked; go on (with a command) or finish (without one). RETRY: it did not; a corrective command is required. ABORT: unrecoverable; no command.',
      },
      ...(options.includeOptionalFields && {
        resultValidation: {
          type: 'object',
          description: 'Your check of the previous execution.',
          properties: {
            success: { type: 'boolean', description: 'Did it do what was expected?' },
            expectedElements: strings('Elements that should be present'),
            actualState: str('What the page shows now'),
            issues: strings('Problems you found'),
          },
          required: ['success', 'expectedElements', 'actualState'],
          additionalProperties: !closed,
        },
      }),
      message: str('Your decision in one sentence (when finishing: the answer or outcome)', 1),
    },
    required: ['action', 'message'],
    additionalProperties: !closed,
  };
}

/** seed 002 `buildReasoningSchema`. */
export function buildReasoningSchema(options: Required<SchemaOptions>): JsonObject {
  return {
    type: 'object',
    description: 'Why you decided so.',
    properties: {
      analysis: str('The current page state and the previous result', 1),
      rationale: str('Why this decision', 1),
      expectedOutcome: str('What the decision will lead to', 1),
      ...(options.includeOptionalFields && {
        // Seed 002's example responses all carry it, though its ReasoningSchema does not list it.
        confidence: { type: 'number', minimum: 0, maximum: 1, description: 'How sure you are of this decision, from 0 to 1' },
        alternatives: str('Other approaches you considered'),
      }),
    },
    required: ['analysis', 'rationale', 'expectedOutcome'],
    additionalProperties: options.validationMode !== 'strict',
  };
}

/** One command as the `command` value (seed 002 `AutomationCommandSchemas`). */
export function commandBranch(command: CommandSpec, options: Pick<Required<SchemaOptions>, 'includeOptionalFields'>): JsonObject {
  return {
    type: 'object',
    description: command.description,
    properties: {
      action: { const: command.name },
      parameters: command.parameters,
      ...(options.includeOptionalFields && { reasoning: { type: 'string', description: 'Why this command' } }),
    },
    required: ['action', 'parameters'],
    additionalProperties: false,
  };
}

/** seed 002 `assembleCommandSchemas`: one branch per command, selected by its action. */
export function assembleCommandSchemas(commands: readonly CommandSpec[], options: Required<SchemaOptions>): JsonObject {
  return {
    type: 'object',
    description: 'The one command to run next.',
    properties: { action: { type: 'string', enum: commands.map((c) => c.name), description: 'Type of command to execute' } },
    required: ['action'],
    discriminator: { propertyName: 'action' },
    oneOf: commands.map((c) => commandBranch(c, options)),
  };
}

/** The whole response schema. */
export function buildResponseSchema(commands: readonly CommandSpec[], options: Required<SchemaOptions>, version: string): ResponseSchema {
  // `type: 'object'` at both levels: without it a response or a decision that is not an
  // object matches every `if` vacuously, and gets the RETRY and ABORT rules' errors.
  const decisionIs = (action: string): JsonObject => ({
    type: 'object',
    properties: { decision: { type: 'object', properties: { action: { const: action } }, required: ['action'] } },
    required: ['decision'],
  });
  return {
    $schema: RESPONSE_SCHEMA_DIALECT,
    $id: `golem:response/${version}`,
    type: 'object',
    properties: {
      decision: buildDecisionSchema(options),
      reasoning: buildReasoningSchema(options),
      ...(commands.length > 0 && { command: assembleCommandSchemas(commands, options) }),
      ...(options.includeOptionalFields && {
        context: {
          type: 'object',
          description: 'What to carry to your next step.',
          properties: { progress: str('What is done so far'), notes: str('Anything worth remembering') },
          additionalProperties: options.validationMode !== 'strict',
        },
      }),
    },
    required: options.requireReasoning ? ['decision', 'reasoning'] : ['decision'],
    additionalProperties: options.validationMode !== 'strict',
    allOf: [
      { if: decisionIs('RETRY'), then: { required: ['command'] } },
      { if: decisionIs('ABORT'), then: { not: { required: ['command'] } } },
    ],
    'x-golem-version': version,
    'x-golem-options': { ...options },
  };
}

/**
 * The schema as a provider's structured-output mode takes it: the Golem-only keywords
 * and those providers reject (the decision rules, `discriminator`, formats) left out. The
 * response is still validated against the full schema.
 */
export function providerSchema(schema: ResponseSchema): JsonObject {
  const DROP = new Set(['allOf', 'discriminator', 'format', '$id', '$schema']);
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (DROP.has(key) || key.startsWith('x-golem')) continue;
      // A map of names to schemas: the names are data, not keywords.
      out[key] =
        (key === 'properties' || key === '$defs') && child !== null && typeof child === 'object'
          ? (Object.fromEntries(Object.entries(child as JsonObject).map(([name, s]) => [name, strip(s)])) as JsonObject)
          : (strip(child) as JsonObject);
    }
    return out;
  };
  return strip(schema) as JsonObject;
}

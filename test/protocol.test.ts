/**
 * The structured response protocol (seed 002): schema generation and its options, response
 * validation (objects and the model's raw text), registered commands, schema versions, the
 * security policy, `${variable}` interpolation and the provider's form of the schema.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  COMMAND_ACTIONS,
  createSchemaManager,
  GolemError,
  interpolate,
  PROTOCOL_VERSION,
  providerSchema,
  redactSecrets,
  toExecutorCommand,
  variableReferences,
  type CommandSpec,
  type ResponseSchema,
  type SchemaValidationError,
  type ValidationResult,
} from '../src/index.js';

type Json = Record<string, unknown>;

const reasoning = { analysis: 'The page shows a login form.', rationale: 'The form is ready.', expectedOutcome: 'The name is typed.' };
/** A response with the given decision (and command, when given). */
const response = (action: 'PROCEED' | 'RETRY' | 'ABORT', command?: Json, extra: Json = {}): Json => ({
  decision: { action, message: `decided ${action}` },
  reasoning,
  ...(command !== undefined && { command }),
  ...extra,
});
const openPage = (url: string): Json => ({ action: 'OPEN_PAGE', parameters: { url } });
const click = (selector: string): Json => ({ action: 'CLICK_ELEMENT', parameters: { selector } });

const lookup: CommandSpec = {
  name: 'lookup',
  description: 'Looks a topic up in the encyclopedia.',
  parameters: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'], additionalProperties: false },
};

/** The error at `field`, failing when there is none. */
function errorAt(result: ValidationResult, field: string): SchemaValidationError {
  const found = result.errors.find((e) => e.field === field);
  expect(found, `an error at "${field}" in ${JSON.stringify(result.errors)}`).toBeDefined();
  return found as SchemaValidationError;
}

/** Runs `f`, which must throw a GolemError with `code`; returns it. */
function thrown(f: () => unknown, code: string): GolemError {
  let caught: unknown;
  try {
    f();
  } catch (error) {
    caught = error;
  }
  expect(GolemError.isInstance(caught), `expected a GolemError, got ${String(caught)}`).toBe(true);
  expect((caught as GolemError).code).toBe(code);
  return caught as GolemError;
}

const props = (schema: unknown): Json => (schema as { properties: Json }).properties;

describe('generateResponseSchema', () => {
  it('makes the full schema by default: decision, reasoning, command, context, the decision rules and the version', () => {
    const manager = createSchemaManager();
    const schema = manager.generateResponseSchema();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['decision', 'reasoning']);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties).sort()).toEqual(['command', 'context', 'decision', 'reasoning']);
    expect(Object.keys(props(schema.properties.decision)).sort()).toEqual(['action', 'message', 'resultValidation']);
    expect(props(schema.properties.decision).action).toMatchObject({ type: 'string', enum: ['PROCEED', 'RETRY', 'ABORT'] });
    expect(Object.keys(props(schema.properties.reasoning)).sort()).toEqual(['alternatives', 'analysis', 'confidence', 'expectedOutcome', 'rationale']);
    expect(props(schema.properties.command).action).toMatchObject({ enum: [...COMMAND_ACTIONS] });
    expect(schema.allOf).toHaveLength(2);
    expect(schema['x-golem-version']).toBe(PROTOCOL_VERSION);
    expect(PROTOCOL_VERSION).toBe('1.0.0');
    expect(schema['x-golem-options']).toEqual({ includeOptionalFields: true, requireReasoning: true, validationMode: 'strict' });
  });

  it('includeOptionalFields: false leaves out resultValidation, alternatives, context and a command reasoning, and refuses them', () => {
    const manager = createSchemaManager();
    const schema = manager.generateResponseSchema({ includeOptionalFields: false });
    expect(Object.keys(schema.properties).sort()).toEqual(['command', 'decision', 'reasoning']);
    expect(Object.keys(props(schema.properties.decision)).sort()).toEqual(['action', 'message']);
    expect(Object.keys(props(schema.properties.reasoning)).sort()).toEqual(['analysis', 'expectedOutcome', 'rationale']);
    const branches = (schema.properties.command as { oneOf: Json[] }).oneOf;
    expect(branches).toHaveLength(5);
    for (const branch of branches) expect(Object.keys(props(branch)).sort()).toEqual(['action', 'parameters']);

    expect(manager.validateAIResponse(response('PROCEED'), schema).valid).toBe(true);
    const withContext = manager.validateAIResponse(response('PROCEED', undefined, { context: { progress: 'half' } }), schema);
    expect(withContext.valid).toBe(false);
    expect(errorAt(withContext, 'context')).toMatchObject({ path: ['context'], expectedType: 'no such property', value: { progress: 'half' } });
    const checked = {
      ...response('PROCEED'),
      decision: { action: 'PROCEED', message: 'm', resultValidation: { success: true, expectedElements: [], actualState: 'ok' } },
    };
    expect(errorAt(manager.validateAIResponse(checked, schema), 'decision.resultValidation').path).toEqual(['decision', 'resultValidation']);
    const alternatives = { ...response('PROCEED'), reasoning: { ...reasoning, alternatives: 'none' } };
    expect(errorAt(manager.validateAIResponse(alternatives, schema), 'reasoning.alternatives').expectedType).toBe('no such property');
    const commandReason = response('PROCEED', { ...click('#go'), reasoning: 'because' });
    expect(errorAt(manager.validateAIResponse(commandReason, schema), 'command.reasoning').expectedType).toBe('no such property');
    // The full schema takes all of them.
    const full = manager.generateResponseSchema();
    for (const r of [checked, alternatives, commandReason, response('PROCEED', undefined, { context: { progress: 'half' } })]) {
      expect(manager.validateAIResponse(r, full)).toMatchObject({ valid: true, errors: [] });
    }
  });

  it('requireReasoning: false makes the reasoning optional; by default it is required', () => {
    const manager = createSchemaManager();
    const { reasoning: _omitted, ...bare } = response('PROCEED');
    const optional = manager.generateResponseSchema({ requireReasoning: false });
    expect(optional.required).toEqual(['decision']);
    expect(manager.validateAIResponse(bare, optional)).toMatchObject({ valid: true, errors: [] });
    // Given, it is still checked.
    const partial = manager.validateAIResponse({ ...bare, reasoning: { analysis: 'a' } }, optional);
    expect(partial.valid).toBe(false);
    expect(partial.errors.map((e) => e.field).sort()).toEqual(['reasoning.expectedOutcome', 'reasoning.rationale']);

    const required = manager.validateAIResponse(bare, manager.generateResponseSchema());
    expect(required.valid).toBe(false);
    expect(errorAt(required, 'reasoning')).toMatchObject({ path: ['reasoning'], expectedType: 'object', message: 'reasoning is required' });
    // The manager's default follows its configuration.
    const lax = createSchemaManager({ schema: { reasoningRequired: false } });
    expect(lax.validateAIResponse(bare, lax.generateResponseSchema()).valid).toBe(true);
  });

  it('strict: an unknown envelope field is an error; lenient: a warning, while command parameters stay strict', () => {
    const manager = createSchemaManager();
    const strict = manager.generateResponseSchema({ validationMode: 'strict' });
    const lenient = manager.generateResponseSchema({ validationMode: 'lenient' });
    expect(strict.additionalProperties).toBe(false);
    expect(lenient.additionalProperties).toBe(true);
    const extra = { ...response('PROCEED'), mood: 'happy', decision: { action: 'PROCEED', message: 'm', confidence: 0.9 } };

    const s = manager.validateAIResponse(extra, strict);
    expect(s.valid).toBe(false);
    expect(s.warnings).toEqual([]);
    expect(errorAt(s, 'mood')).toMatchObject({ path: ['mood'], value: 'happy', expectedType: 'no such property' });
    expect(errorAt(s, 'decision.confidence')).toMatchObject({ path: ['decision', 'confidence'], value: 0.9 });

    const l = manager.validateAIResponse(extra, lenient);
    expect(l).toMatchObject({ valid: true, errors: [], executorCompatible: true });
    expect(l.warnings).toEqual(expect.arrayContaining([expect.stringContaining('"mood"'), expect.stringContaining('"decision.confidence"')]));
    expect(l.warnings).toHaveLength(2);

    const parameters = manager.validateAIResponse(response('PROCEED', { action: 'GET_DOM', parameters: { full: true } }), lenient);
    expect(parameters.valid).toBe(false);
    expect(parameters.executorCompatible).toBe(false);
    expect(errorAt(parameters, 'command.parameters.full')).toMatchObject({
      path: ['command', 'parameters', 'full'],
      value: true,
      expectedType: 'no such property',
    });
    const commandField = manager.validateAIResponse(response('PROCEED', { ...click('#a'), priority: 1 }), lenient);
    expect(errorAt(commandField, 'command.priority').expectedType).toBe('no such property');
    // The manager's default mode follows its configuration.
    const laxManager = createSchemaManager({ schema: { validationMode: 'lenient' } });
    expect(laxManager.validateAIResponse(extra, laxManager.generateResponseSchema()).valid).toBe(true);
  });

  it('caches the schema per options (the same object) and freezes it deeply', () => {
    const manager = createSchemaManager();
    const a = manager.generateResponseSchema();
    expect(manager.generateResponseSchema()).toBe(a);
    expect(manager.generateResponseSchema({ includeOptionalFields: true, requireReasoning: true, validationMode: 'strict' })).toBe(a);
    const lenient = manager.generateResponseSchema({ validationMode: 'lenient' });
    expect(lenient).not.toBe(a);
    expect(manager.generateResponseSchema({ validationMode: 'lenient' })).toBe(lenient);

    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.properties)).toBe(true);
    expect(Object.isFrozen(a.properties.decision)).toBe(true);
    expect(Object.isFrozen(a.allOf)).toBe(true);
    expect(Object.isFrozen((a.properties.command as { oneOf: Json[] }).oneOf[0])).toBe(true);
    expect(() => {
      (a as unknown as Json).additionalProperties = true;
    }).toThrow(TypeError);
    expect(() => {
      (a.required as string[]).push('command');
    }).toThrow(TypeError);
    expect(a.additionalProperties).toBe(false);

    const uncached = createSchemaManager({ schema: { cacheEnabled: false } });
    const first = uncached.generateResponseSchema();
    const second = uncached.generateResponseSchema();
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
    expect(Object.isFrozen(second)).toBe(true);
  });

  it('refuses a validationMode other than strict or lenient', () => {
    const manager = createSchemaManager();
    const error = thrown(() => manager.generateResponseSchema({ validationMode: 'loose' as 'strict' }), 'INVALID_ARGUMENT');
    expect(error.message).toContain('loose');
  });
});

describe('validateAIResponse', () => {
  const manager = createSchemaManager();
  const schema = manager.generateResponseSchema();

  it('accepts PROCEED with and without a command, RETRY with one and ABORT without one', () => {
    const finished = manager.validateAIResponse(response('PROCEED'), schema);
    expect(finished).toEqual({ valid: true, errors: [], warnings: [], executorCompatible: true, response: response('PROCEED') });
    const next = response('PROCEED', {
      action: 'INPUT_TEXT',
      parameters: { selector: "input[name='username']", text: '${saved_username}' },
      reasoning: 'first step',
    });
    expect(manager.validateAIResponse(next, schema)).toMatchObject({ valid: true, errors: [], executorCompatible: true, response: next });
    expect(manager.validateAIResponse(response('RETRY', click('ref=s2/e7')), schema)).toMatchObject({ valid: true, executorCompatible: true });
    expect(manager.validateAIResponse(response('ABORT'), schema)).toMatchObject({ valid: true, executorCompatible: true });
    for (const command of [
      openPage('https://example.com/login'),
      openPage('https://${site}/login'),
      { action: 'SAVE_VARIABLE', parameters: { selector: '#total', variableName: 'order_total' } },
      { action: 'GET_DOM', parameters: {} },
    ]) {
      expect(manager.validateAIResponse(response('PROCEED', command), schema), JSON.stringify(command)).toMatchObject({
        valid: true,
        errors: [],
        executorCompatible: true,
      });
    }
  });

  it("accepts seed 002's three example responses as the seed writes them (confidence included), in the default strict mode", () => {
    const { examples } = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'seed-002-examples.json'), 'utf8')) as { examples: Json[] };
    expect(examples.map((e) => (e.decision as Json).action)).toEqual(['RETRY', 'PROCEED', 'ABORT']);
    for (const example of examples) {
      const result = manager.validateAIResponse(example, schema);
      expect(result, JSON.stringify(example.decision)).toMatchObject({ valid: true, errors: [], warnings: [] });
      expect(result.response?.reasoning.confidence).toBe((example.reasoning as Json).confidence);
    }
    // As a model's text too, with the prose a model puts around it.
    const text = `Here is my step:\n\`\`\`json\n${JSON.stringify(examples[0], null, 2)}\n\`\`\``;
    expect(manager.validateAIResponse(text, schema).valid).toBe(true);
    // Confidence is a number from 0 to 1, and one of the optional fields.
    const sure = (confidence: unknown) => ({ ...examples[1], reasoning: { ...(examples[1]?.reasoning as Json), confidence } });
    expect(errorAt(manager.validateAIResponse(sure(1.5), schema), 'reasoning.confidence').message).toMatch(/1/);
    expect(manager.validateAIResponse(sure('high'), schema).valid).toBe(false);
    const bare = manager.generateResponseSchema({ includeOptionalFields: false });
    expect(errorAt(manager.validateAIResponse(sure(0.5), bare), 'reasoning.confidence').expectedType).toBe('no such property');
  });

  it('RETRY without a command and ABORT with one are refused, with messages a model can act on', () => {
    const retry = manager.validateAIResponse(response('RETRY'), schema);
    expect(retry.valid).toBe(false);
    expect(retry.errors).toEqual([
      { field: 'command', path: ['command'], value: undefined, expectedType: 'a command', message: expect.stringContaining('RETRY') },
    ]);
    expect(retry.errors[0]?.message).toContain('is required');
    expect(retry.response).toBeUndefined();

    const abort = manager.validateAIResponse(response('ABORT', click('#x')), schema);
    expect(abort.valid).toBe(false);
    expect(abort.errors).toEqual([
      { field: 'command', path: ['command'], value: click('#x'), expectedType: 'no command', message: expect.stringContaining('ABORT') },
    ]);
    expect(abort.errors[0]?.message).toContain('must be left out');
    expect(abort.executorCompatible).toBe(false);
  });

  it('reports wrong types with field, path, expected type and the value found', () => {
    const bad = {
      decision: { action: 'MAYBE', message: 42, resultValidation: { success: 'yes', expectedElements: ['ok', 7], actualState: '' } },
      reasoning: ['not', 'an', 'object'],
    };
    const result = manager.validateAIResponse(bad, schema);
    expect(result.valid).toBe(false);
    expect(result.response).toBeUndefined();
    expect(errorAt(result, 'decision.action')).toEqual({
      field: 'decision.action',
      path: ['decision', 'action'],
      value: 'MAYBE',
      expectedType: 'one of PROCEED, RETRY, ABORT',
      message: 'decision.action must be one of PROCEED, RETRY, ABORT',
    });
    expect(errorAt(result, 'decision.message')).toMatchObject({
      path: ['decision', 'message'],
      value: 42,
      expectedType: 'string',
      message: 'decision.message must be a string',
    });
    expect(errorAt(result, 'decision.resultValidation.success')).toMatchObject({ value: 'yes', expectedType: 'boolean' });
    expect(errorAt(result, 'decision.resultValidation.expectedElements.1')).toMatchObject({
      path: ['decision', 'resultValidation', 'expectedElements', '1'],
      value: 7,
      expectedType: 'string',
    });
    expect(errorAt(result, 'reasoning')).toMatchObject({
      path: ['reasoning'],
      value: ['not', 'an', 'object'],
      expectedType: 'object',
      message: 'reasoning must be an object',
    });
    // Required strings must not be empty.
    const empty = manager.validateAIResponse({ ...response('PROCEED'), decision: { action: 'PROCEED', message: '' } }, schema);
    expect(errorAt(empty, 'decision.message')).toMatchObject({ value: '', message: 'decision.message must not be empty' });
  });

  it('a decision that is not an object gets that error only, not the RETRY or ABORT rules', () => {
    const withCommand = manager.validateAIResponse({ decision: 'PROCEED', reasoning, command: click('#go') }, schema);
    expect(withCommand.errors).toEqual([
      { field: 'decision', path: ['decision'], value: 'PROCEED', expectedType: 'object', message: 'decision must be an object' },
    ]);
    const withoutCommand = manager.validateAIResponse({ decision: 'RETRY', reasoning }, schema);
    expect(withoutCommand.errors.map((e) => e.field)).toEqual(['decision']);
    // A string is the model's text: '"PROCEED"' is JSON for a string.
    for (const [input, value] of [
      [42, 42],
      ['"PROCEED"', 'PROCEED'],
      [[response('PROCEED')], [response('PROCEED')]],
      [null, null],
      ['true', true],
    ] as const) {
      const result = manager.validateAIResponse(input, schema);
      expect(result.errors, JSON.stringify(input)).toEqual([{ field: '', path: [], value, expectedType: 'object', message: 'the response must be an object' }]);
    }
  });

  it("reads the model's raw text: bare JSON, a ```json fence, JSON inside prose", () => {
    const r = response('PROCEED', click('#next'));
    const json = JSON.stringify(r);
    const texts = [
      json,
      `  \n${JSON.stringify(r, null, 2)}\n`,
      `\`\`\`json\n${json}\n\`\`\``,
      `Here is my answer:\n\`\`\`\n${json}\n\`\`\`\nDone.`,
      `Sure! ${json} Hope that helps.`,
    ];
    for (const text of texts) {
      expect(manager.validateAIResponse(text, schema), text).toMatchObject({ valid: true, errors: [], response: r });
    }
    // A fence inside one of the answer's strings does not stand for the answer.
    const fenced = response('PROCEED', undefined, {});
    (fenced.decision as Json).message = 'Type ```true``` into the box';
    expect(manager.validateAIResponse(`My answer: ${JSON.stringify(fenced)} (end)`, schema)).toMatchObject({ valid: true, response: fenced });
  });

  it('text that is not JSON is one clear error at the response itself', () => {
    for (const text of ['I think we should click the button.', '', '   ', '{"decision": {"action": "PROCEED",', '```json\n{oops}\n```']) {
      const result = manager.validateAIResponse(text, schema);
      expect(result, JSON.stringify(text)).toMatchObject({ valid: false, executorCompatible: false, warnings: [] });
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatchObject({ field: '', path: [], expectedType: 'object', message: expect.stringContaining('not a JSON object') });
      expect(result.errors[0]?.message).toContain('answer with exactly one JSON object');
    }
    const long = 'no JSON here '.repeat(100);
    const value = manager.validateAIResponse(long, schema).errors[0]?.value as string;
    expect(value.length).toBeLessThanOrEqual(200);
    // JSON that is not an object is read, then refused by the schema.
    expect(manager.validateAIResponse('[1, 2]', schema).errors).toEqual([
      { field: '', path: [], value: [1, 2], expectedType: 'object', message: 'the response must be an object' },
    ]);
  });

  it('values that are not JSON data are an error, not an exception', () => {
    const cycle: Json = { ...response('PROCEED') };
    cycle.self = cycle;
    const getter = Object.defineProperty({ ...response('PROCEED') }, 'boom', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    for (const input of [cycle, { ...response('PROCEED'), n: 10n }, getter]) {
      const result = manager.validateAIResponse(input, schema);
      expect(result.valid).toBe(false);
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatchObject({ field: '', path: [], message: expect.stringContaining('not JSON data') });
    }
    expect(manager.validateAIResponse(undefined, schema).errors[0]).toMatchObject({ field: '', expectedType: 'object' });
    expect(manager.validateAIResponse(() => 1, schema).valid).toBe(false);
  });

  it('an unknown command action is invalid and not executor compatible', () => {
    const result = manager.validateAIResponse(response('PROCEED', { action: 'FORMAT_DISK', parameters: {} }), schema);
    expect(result).toMatchObject({ valid: false, executorCompatible: false });
    expect(result.errors).toEqual([
      {
        field: 'command.action',
        path: ['command', 'action'],
        value: 'FORMAT_DISK',
        expectedType: 'one of OPEN_PAGE, CLICK_ELEMENT, INPUT_TEXT, SAVE_VARIABLE, GET_DOM',
        message: 'command.action must be one of OPEN_PAGE, CLICK_ELEMENT, INPUT_TEXT, SAVE_VARIABLE, GET_DOM',
      },
    ]);
    const missing = manager.validateAIResponse(response('PROCEED', { parameters: {} }), schema);
    expect(missing).toMatchObject({ valid: false, executorCompatible: false });
    expect(errorAt(missing, 'command.action').path).toEqual(['command', 'action']);
    const noParameters = manager.validateAIResponse(response('PROCEED', { action: 'GET_DOM' }), schema);
    expect(errorAt(noParameters, 'command.parameters')).toMatchObject({ expectedType: 'object', message: 'command.parameters is required' });
    expect(noParameters.executorCompatible).toBe(false);
  });

  it('refuses bad parameters: a missing url, dangerous schemes, a selector too long, a variable name against the pattern', () => {
    const cases: [Json, string, string][] = [
      [{ action: 'OPEN_PAGE', parameters: {} }, 'command.parameters.url', 'is required'],
      [openPage('javascript:alert(1)'), 'command.parameters.url', 'the scheme "javascript:" is not allowed'],
      [openPage('file:///etc/passwd'), 'command.parameters.url', 'the scheme "file:" is not allowed'],
      [openPage('data:text/html,<script>alert(1)</script>'), 'command.parameters.url', 'the scheme "data:" is not allowed'],
      [openPage('example.com/login'), 'command.parameters.url', 'must be a valid uri'],
      [click('a'.repeat(1001)), 'command.parameters.selector', 'at most 1000 are accepted'],
      [click(''), 'command.parameters.selector', 'must not be empty'],
      [click('internal:text="x"'), 'command.parameters.selector', 'is not allowed'],
      [click('js=document.cookie'), 'command.parameters.selector', 'the selector engine "js=" is not allowed'],
      [click('ref=oops'), 'command.parameters.selector', 'is not a snapshot ref'],
      [click('div\u0000span'), 'command.parameters.selector', 'control characters'],
      [
        { action: 'SAVE_VARIABLE', parameters: { selector: '#x', variableName: '1total' } },
        'command.parameters.variableName',
        'must match ^[a-zA-Z_][a-zA-Z0-9_]*$',
      ],
      [{ action: 'SAVE_VARIABLE', parameters: { selector: '#x', variableName: 'a-b' } }, 'command.parameters.variableName', 'must match'],
      [{ action: 'INPUT_TEXT', parameters: { selector: '#x' } }, 'command.parameters.text', 'is required'],
      [{ action: 'INPUT_TEXT', parameters: { selector: '#x', text: 5 } }, 'command.parameters.text', 'must be a string'],
    ];
    for (const [command, field, message] of cases) {
      let result: ValidationResult | undefined;
      expect(() => (result = manager.validateAIResponse(response('PROCEED', command), schema))).not.toThrow();
      const label = JSON.stringify(command).slice(0, 120);
      expect(result, label).toMatchObject({ valid: false, executorCompatible: false });
      const error = errorAt(result as ValidationResult, field);
      expect(error.message, label).toContain(message);
      expect(error.path).toEqual(field.split('.'));
    }
    const long = errorAt(manager.validateAIResponse(response('PROCEED', click('a'.repeat(5000))), schema), 'command.parameters.selector');
    expect((long.value as string).length).toBeLessThanOrEqual(200);
    expect(long.expectedType).toBe('an allowed selector');
  });

  it('a schema that is missing or not the protocol is reported, never thrown on', () => {
    for (const bogus of [null, undefined, {}, { 'x-golem-version': 7 }]) {
      const result = manager.validateAIResponse(response('PROCEED'), bogus as unknown as ResponseSchema);
      expect(result, JSON.stringify(bogus) ?? 'undefined').toMatchObject({ valid: false, executorCompatible: false });
      expect(result.errors).toEqual([expect.objectContaining({ field: '$schema', path: ['$schema'], expectedType: 'a schema of version 1.x' })]);
    }
    const uncompilable = { ...structuredClone(schema), type: 'no-such-type' } as unknown as ResponseSchema;
    const result = manager.validateAIResponse(response('PROCEED'), uncompilable);
    expect(result.errors).toEqual([
      expect.objectContaining({ field: '$schema', expectedType: 'a valid JSON Schema', message: expect.stringContaining('cannot be compiled') }),
    ]);
  });

  it("validates against a schema read back from storage (a copy that is not the manager's object)", () => {
    const copy = JSON.parse(JSON.stringify(schema)) as ResponseSchema;
    expect(manager.validateAIResponse(response('PROCEED', click('#a')), copy)).toMatchObject({ valid: true, executorCompatible: true });
    expect(manager.validateAIResponse(response('RETRY'), copy).errors.map((e) => e.field)).toEqual(['command']);
  });
});

describe('registerCommands and getExecutorMethodSchemas', () => {
  it('a registered command can be used in a response; the executor schemas list the five and the registered ones', () => {
    const manager = createSchemaManager();
    const before = manager.generateResponseSchema();
    manager.registerCommands([lookup]);
    const schema = manager.generateResponseSchema();
    expect(schema).not.toBe(before);
    expect(props(schema.properties.command).action).toMatchObject({ enum: [...COMMAND_ACTIONS, 'lookup'] });

    const ok = response('PROCEED', { action: 'lookup', parameters: { topic: 'golems' } });
    expect(manager.validateAIResponse(ok, schema)).toMatchObject({ valid: true, errors: [], executorCompatible: true, response: ok });
    const missing = manager.validateAIResponse(response('PROCEED', { action: 'lookup', parameters: {} }), schema);
    expect(errorAt(missing, 'command.parameters.topic')).toMatchObject({ expectedType: 'string', message: 'command.parameters.topic is required' });
    const wrong = manager.validateAIResponse(response('PROCEED', { action: 'lookup', parameters: { topic: 3 } }), schema);
    expect(errorAt(wrong, 'command.parameters.topic')).toMatchObject({ value: 3, expectedType: 'string' });
    const extra = manager.validateAIResponse(response('PROCEED', { action: 'lookup', parameters: { topic: 't', depth: 2 } }), schema);
    expect(errorAt(extra, 'command.parameters.depth').expectedType).toBe('no such property');
    // The schema generated before the registration does not know it.
    expect(manager.validateAIResponse(ok, before)).toMatchObject({ valid: false, executorCompatible: false });

    const methods = manager.getExecutorMethodSchemas();
    expect(Object.keys(methods)).toEqual([...COMMAND_ACTIONS, 'lookup']);
    for (const [name, branch] of Object.entries(methods)) {
      expect(branch).toMatchObject({
        type: 'object',
        properties: { action: { const: name } },
        required: ['action', 'parameters'],
        additionalProperties: false,
      });
    }
    expect(props(methods.lookup).parameters).toEqual(lookup.parameters);
    expect(props(props(methods.OPEN_PAGE).parameters)).toHaveProperty('url');
    expect((props(methods.SAVE_VARIABLE).parameters as Json).required).toEqual(['selector', 'variableName']);
    expect(props(methods.GET_DOM).parameters).toMatchObject({ type: 'object', properties: {}, additionalProperties: false });
    // A copy: changing it changes nothing.
    (methods.lookup as Json).description = 'changed';
    expect(manager.getExecutorMethodSchemas().lookup?.description).toBe(lookup.description);
    expect(manager.commands().map((c) => c.name)).toEqual([...COMMAND_ACTIONS, 'lookup']);
  });

  it('registering the same command again is a no-op; a clash, a bad name or a non-object schema is refused', () => {
    const manager = createSchemaManager();
    manager.registerCommands([lookup]);
    const schema = manager.generateResponseSchema();
    manager.registerCommands([lookup]);
    expect(manager.generateResponseSchema()).toBe(schema);
    thrown(() => manager.registerCommands([{ ...lookup, parameters: { type: 'object', properties: {} } }]), 'INVALID_ARGUMENT');
    thrown(() => manager.registerCommands([{ ...lookup, name: 'look up' }]), 'INVALID_ARGUMENT');
    thrown(() => manager.registerCommands([{ ...lookup, name: '' }]), 'INVALID_ARGUMENT');
    thrown(() => manager.registerCommands([{ ...lookup, name: 'x'.repeat(65) }]), 'INVALID_ARGUMENT');
    thrown(() => manager.registerCommands([{ ...lookup, name: 'arr', parameters: { type: 'array' } }]), 'INVALID_ARGUMENT');
    thrown(
      () => manager.registerCommands([{ ...lookup, name: 'broken', parameters: { type: 'object', properties: { a: { type: 'no-such-type' } } } }]),
      'INVALID_ARGUMENT',
    );
    // A refused batch adds nothing, not even its valid commands.
    thrown(
      () =>
        manager.registerCommands([
          { ...lookup, name: 'fine' },
          { ...lookup, name: 'not fine' },
        ]),
      'INVALID_ARGUMENT',
    );
    expect(manager.commands().map((c) => c.name)).toEqual([...COMMAND_ACTIONS, 'lookup']);
    expect(manager.generateResponseSchema()).toBe(schema);
  });

  it('a manager made with its own commands only knows those', () => {
    const manager = createSchemaManager({ commands: [lookup] });
    const schema = manager.generateResponseSchema();
    expect(Object.keys(manager.getExecutorMethodSchemas())).toEqual(['lookup']);
    expect(manager.validateAIResponse(response('PROCEED', { action: 'lookup', parameters: { topic: 'x' } }), schema).valid).toBe(true);
    expect(manager.validateAIResponse(response('PROCEED', click('#a')), schema)).toMatchObject({ valid: false, executorCompatible: false });
  });
});

describe('updateSchemaVersion', () => {
  it('refuses a version that is not semver with a typed error, and keeps the old one', () => {
    const manager = createSchemaManager();
    for (const bad of ['2', '1.0', 'v1.0.0', '01.0.0', '', '1.0.0.0', 'latest']) {
      const error = thrown(() => manager.updateSchemaVersion(bad), 'INVALID_ARGUMENT');
      expect(error.message).toContain('semantic version');
    }
    expect(manager.version).toBe('1.0.0');
    thrown(() => createSchemaManager({ schema: { version: 'one' } }), 'INVALID_ARGUMENT');
    expect(createSchemaManager({ schema: { version: '3.1.4-beta.1' } }).generateResponseSchema()['x-golem-version']).toBe('3.1.4-beta.1');
  });

  it('a new major version refuses the schemas made before it; a new schema validates', () => {
    const manager = createSchemaManager();
    const old = manager.generateResponseSchema();
    manager.updateSchemaVersion('2.0.0');
    expect(manager.version).toBe('2.0.0');
    const refused = manager.validateAIResponse(response('PROCEED'), old);
    expect(refused).toMatchObject({ valid: false, executorCompatible: false });
    expect(refused.errors).toEqual([
      {
        field: '$schema',
        path: ['$schema'],
        value: '1.0.0',
        expectedType: 'a schema of version 2.x',
        message: expect.stringContaining('generate a new schema'),
      },
    ]);
    const fresh = manager.generateResponseSchema();
    expect(fresh).not.toBe(old);
    expect(fresh['x-golem-version']).toBe('2.0.0');
    expect(fresh.$id).not.toBe(old.$id);
    expect(manager.validateAIResponse(response('PROCEED'), fresh).valid).toBe(true);
  });

  it('a minor or patch bump keeps the old schemas compatible', () => {
    const manager = createSchemaManager();
    const old = manager.generateResponseSchema();
    manager.updateSchemaVersion('1.4.2');
    expect(manager.validateAIResponse(response('PROCEED', click('#a')), old)).toMatchObject({ valid: true, executorCompatible: true });
    const fresh = manager.generateResponseSchema();
    expect(fresh).not.toBe(old);
    expect(fresh['x-golem-version']).toBe('1.4.2');
    expect(manager.validateAIResponse(response('PROCEED'), fresh).valid).toBe(true);
  });
});

describe('the security policy', () => {
  const manager = createSchemaManager({ security: { allowedDomains: ['example.com', '*.test.local'] } });
  const schema = manager.generateResponseSchema();
  const open = (url: string) => manager.validateAIResponse(response('PROCEED', openPage(url)), schema);

  it('opens only hosts on the allowlist: exact names and subdomain wildcards', () => {
    for (const url of [
      'https://example.com/',
      'http://EXAMPLE.com/a?b=c',
      'https://test.local/',
      'https://shop.test.local/cart',
      'https://a.b.test.local:8443/x',
    ]) {
      expect(open(url), url).toMatchObject({ valid: true, errors: [], executorCompatible: true });
    }
    for (const url of [
      'https://evil.com/',
      'https://www.example.com/',
      'https://example.com.evil.com/',
      'https://example.com@evil.com/',
      'https://eviltest.local/',
      'https://test.local.evil.com/',
    ]) {
      const result = open(url);
      expect(result, url).toMatchObject({ valid: false, executorCompatible: false });
      expect(errorAt(result, 'command.parameters.url')).toMatchObject({
        value: url,
        expectedType: 'an allowed URL',
        message: expect.stringContaining('is not on the allowlist'),
      });
    }
    expect(manager.security.allowedDomains).toEqual(['example.com', '*.test.local']);
    expect(Object.isFrozen(manager.security)).toBe(true);
  });

  it('a URL with a ${variable} is left to the executor, which checks it once filled in', () => {
    expect(open('https://${host}/login')).toMatchObject({ valid: true, executorCompatible: true });
  });

  it('allowedSchemes replaces http and https; a host of any allowed scheme is held to the allowlist', () => {
    const httpsOnly = createSchemaManager({ security: { allowedSchemes: ['https'] } });
    const s = httpsOnly.generateResponseSchema();
    expect(httpsOnly.validateAIResponse(response('PROCEED', openPage('https://anywhere.org/')), s).valid).toBe(true);
    expect(errorAt(httpsOnly.validateAIResponse(response('PROCEED', openPage('http://anywhere.org/')), s), 'command.parameters.url').message).toContain(
      'the scheme "http:" is not allowed (allowed: https:)',
    );

    const withFtp = createSchemaManager({ security: { allowedSchemes: ['https', 'ftp', 'file'], allowedDomains: ['example.com'] } });
    const f = withFtp.generateResponseSchema();
    expect(withFtp.validateAIResponse(response('PROCEED', openPage('ftp://example.com/pub')), f).valid).toBe(true);
    expect(withFtp.validateAIResponse(response('PROCEED', openPage('file:///tmp/report.html')), f).valid).toBe(true);
    for (const url of ['ftp://evil.com/pub', 'file://evil.com/share']) {
      expect(errorAt(withFtp.validateAIResponse(response('PROCEED', openPage(url)), f), 'command.parameters.url').message, url).toContain(
        'is not on the allowlist',
      );
    }
  });

  it('maxSelectorLength sets the longest selector accepted', () => {
    const tight = createSchemaManager({ security: { maxSelectorLength: 10 } });
    const s = tight.generateResponseSchema();
    expect(tight.validateAIResponse(response('PROCEED', click('#abcdefghi')), s).valid).toBe(true);
    expect(errorAt(tight.validateAIResponse(response('PROCEED', click('#abcdefghij')), s), 'command.parameters.selector').message).toContain('at most 10');
  });
});

describe('interpolation', () => {
  it('variableReferences lists the names once each, in order of first use', () => {
    expect(variableReferences('${b} and ${a}, again ${b}; not $c, ${1x}, ${ a } or {d}')).toEqual(['b', 'a']);
    expect(variableReferences('nothing here')).toEqual([]);
  });

  it('interpolate fills every reference, secrets before variables, values taken literally', () => {
    expect(interpolate('Hello ${first} ${last}!', { variables: { first: 'Ada', last: 'Lovelace' } })).toEqual({ ok: true, value: 'Hello Ada Lovelace!' });
    expect(interpolate('${pw}', { variables: { pw: 'visible' }, secrets: { pw: 's3cret' } })).toEqual({ ok: true, value: 's3cret' });
    expect(interpolate('${x}', { variables: { x: '$& $1 ${y}' } })).toEqual({ ok: true, value: '$& $1 ${y}' });
    expect(interpolate('no references', { variables: {} })).toEqual({ ok: true, value: 'no references' });
  });

  it('a missing variable is VARIABLE_NOT_FOUND, naming the missing ones and those there are', () => {
    const result = interpolate('${user} / ${gone} / ${toString}', { variables: { user: 'ada' }, secrets: { token: 't' } });
    expect(result.ok).toBe(false);
    const error = result.error as GolemError;
    expect(GolemError.isInstance(error)).toBe(true);
    expect(error.code).toBe('VARIABLE_NOT_FOUND');
    expect(error.details).toEqual({ missing: ['gone', 'toString'], known: ['user', 'token'] });
    expect(error.message).toContain('"gone"');
    const none = interpolate('${a}', { variables: {} });
    expect(none.error?.message).toContain('SAVE_VARIABLE');
  });

  it('toExecutorCommand injects the session id and fills url and text, leaving selectors and variable names as written', () => {
    const scope = { variables: { site: 'example.com', user: 'ada', field: 'name' }, secrets: { password: 'hunter2' } };
    const open = toExecutorCommand({ action: 'OPEN_PAGE', parameters: { url: 'https://${site}/login' } }, 'session-1', scope);
    expect(open).toEqual({ ok: true, value: { sessionId: 'session-1', action: 'OPEN_PAGE', parameters: { url: 'https://example.com/login' } } });
    const input = { action: 'INPUT_TEXT', parameters: { selector: 'input[name=${field}]', text: '${password}' }, reasoning: 'log in' };
    const typed = toExecutorCommand(input, 's2', scope);
    expect(typed).toEqual({ ok: true, value: { sessionId: 's2', action: 'INPUT_TEXT', parameters: { selector: 'input[name=${field}]', text: 'hunter2' } } });
    expect(input.parameters.text).toBe('${password}');
    const save = toExecutorCommand({ action: 'SAVE_VARIABLE', parameters: { selector: '#total', variableName: '${user}' } }, 's3', scope);
    expect(save.value?.parameters).toEqual({ selector: '#total', variableName: '${user}' });
    const other = toExecutorCommand({ action: 'lookup', parameters: { topic: '${user}', url: '${user}', depth: 2, nested: { text: '${user}' } } }, 's4', scope);
    expect(other.value?.parameters).toEqual({ topic: '${user}', url: 'ada', depth: 2, nested: { text: '${user}' } });

    const missing = toExecutorCommand({ action: 'INPUT_TEXT', parameters: { selector: '#a', text: '${nope}' } }, 's5', scope);
    expect(missing.ok).toBe(false);
    expect(missing.error?.code).toBe('VARIABLE_NOT_FOUND');
  });

  it('redactSecrets shows each secret as its ${name}, the longest first', () => {
    const secrets = { pin: '1234', account: '123456789', password: 'hunter2' };
    expect(redactSecrets('account 123456789, pin 1234, password hunter2 (hunter2)', secrets)).toBe(
      'account ${account}, pin ${pin}, password ${password} (${password})',
    );
    expect(redactSecrets('nothing secret', secrets)).toBe('nothing secret');
    expect(redactSecrets('1234', undefined)).toBe('1234');
    expect(redactSecrets('abc', { empty: '' })).toBe('abc');
  });
});

describe('providerSchema', () => {
  it('leaves out the keywords providers reject, and keeps properties named like them', () => {
    const manager = createSchemaManager();
    const exporter: CommandSpec = {
      name: 'export',
      description: 'Exports the page.',
      parameters: {
        type: 'object',
        properties: {
          format: { type: 'string', enum: ['pdf', 'html'] },
          allOf: { type: 'boolean' },
          discriminator: { type: 'string', format: 'uri' },
          'x-golem-tag': { type: 'string' },
        },
        required: ['format'],
        additionalProperties: false,
      },
    };
    manager.registerCommands([exporter]);
    const schema = manager.generateResponseSchema();
    const out = providerSchema(schema);

    const keywords = new Set<string>();
    const walk = (value: unknown, inMap: boolean): void => {
      if (Array.isArray(value)) return value.forEach((v) => walk(v, false));
      if (value === null || typeof value !== 'object') return;
      for (const [key, child] of Object.entries(value)) {
        if (!inMap) keywords.add(key);
        walk(child, !inMap && (key === 'properties' || key === '$defs'));
      }
    };
    walk(out, false);
    for (const dropped of ['allOf', 'discriminator', 'format', '$id', '$schema', 'x-golem-version', 'x-golem-options'])
      expect(keywords.has(dropped), dropped).toBe(false);
    expect([...keywords].filter((k) => k.startsWith('x-golem'))).toEqual([]);
    expect(keywords.has('oneOf')).toBe(true);
    expect(keywords.has('anyOf')).toBe(true);

    const branches = (props(out).command as { oneOf: Json[] }).oneOf;
    const exportBranch = branches.find((b) => (props(b).action as Json).const === 'export') as Json;
    expect(props(props(exportBranch).parameters)).toEqual({
      format: { type: 'string', enum: ['pdf', 'html'] },
      allOf: { type: 'boolean' },
      discriminator: { type: 'string' },
      'x-golem-tag': { type: 'string' },
    });
    expect((props(exportBranch).parameters as Json).required).toEqual(['format']);
    const openBranch = branches.find((b) => (props(b).action as Json).const === 'OPEN_PAGE') as Json;
    expect(props(props(openBranch).parameters).url).toMatchObject({ anyOf: [{ type: 'string' }, { type: 'string', pattern: expect.any(String) }] });
    expect(out).toMatchObject({ type: 'object', required: ['decision', 'reasoning'], additionalProperties: false });
    // The manager's schema is untouched.
    expect(schema.allOf).toHaveLength(2);
    expect(schema.$id).toBe('golem:response/1.0.0');
  });
});

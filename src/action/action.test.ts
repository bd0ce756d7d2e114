import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GolemError } from '../core/errors.js';
import { defineAction } from './action.js';

const search = defineAction({
  name: 'semantic_search',
  description: 'Ranks the pages of the shelf against a query.',
  input: z.object({
    query: z.string().min(1).describe('What to look for'),
    limit: z.number().int().min(1).max(20).optional(),
    mode: z.enum(['pages', 'books']).optional(),
  }),
  run: ({ query, limit }) => ({ query, limit: limit ?? 5 }),
});

describe('actions', () => {
  it('generate their JSON Schema once, from the Zod schema, as the tool the model sees', () => {
    expect(search.toTool()).toEqual({
      name: 'semantic_search',
      description: 'Ranks the pages of the shelf against a query.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'What to look for' },
          limit: { type: 'integer', minimum: 1, maximum: 20 },
          mode: { type: 'string', enum: ['pages', 'books'] },
        },
        required: ['query'],
        additionalProperties: false,
      },
    });
    expect(search.trust).toBe('autonomous');
  });

  it('validate input before it runs, with every problem said in words a model can act on', async () => {
    expect(search.validate({ query: 'heart', limit: 3 })).toEqual({ ok: true, value: { query: 'heart', limit: 3 } });
    const bad = search.validate({ limit: 50, mode: 'chapters', extra: true });
    expect(bad.ok).toBe(false);
    expect(bad.error?.code).toBe('ACTION_INPUT_INVALID');
    expect(bad.error?.details.issues).toEqual(
      expect.arrayContaining([
        { path: '', message: 'is missing the required property "query"' },
        { path: '', message: 'has a property "extra" that is not allowed' },
        { path: '/limit', message: 'must be <= 20' },
        { path: '/mode', message: 'must be one of ["pages","books"]' },
      ]),
    );
    expect(bad.error?.message).toContain('Correct it and call semantic_search again.');
    expect(search.validate('a string').error?.details.issues).toEqual([{ path: '', message: 'must be object' }]);
    expect(await search.run({ query: 'x' }, {})).toEqual({ query: 'x', limit: 5 });
  });

  it('let Zod refine what JSON Schema cannot say', () => {
    const even = defineAction({
      name: 'even',
      description: 'd',
      input: z.object({ n: z.number().refine((n) => n % 2 === 0, 'must be even') }),
      run: () => null,
    });
    expect(even.validate({ n: 3 }).error?.details.issues).toEqual([{ path: '/n', message: 'must be even' }]);
    expect(even.validate({ n: 4 }).ok).toBe(true);
  });

  it('refuse names providers would refuse, and inputs that are not objects', () => {
    expect(() => defineAction({ name: 'has space', description: 'd', input: z.object({}), run: () => null })).toThrow(GolemError);
    expect(() => defineAction({ name: 'x', description: 'd', input: z.string() as never, run: () => null })).toThrow(/object schema/);
    expect(() => defineAction({ name: 'y', description: 'd', input: z.object({ when: z.date() }), run: () => null })).toThrow(/cannot be a JSON Schema/);
  });

  it('never accept what the schema rejects, and never throw (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const result = search.validate(input);
        if (result.ok) {
          const value = result.value;
          expect(typeof value.query === 'string' && value.query.length > 0).toBe(true);
          expect(value.limit === undefined || (Number.isInteger(value.limit) && value.limit >= 1 && value.limit <= 20)).toBe(true);
        } else expect(result.error.code).toBe('ACTION_INPUT_INVALID');
      }),
      { numRuns: 2000 },
    );
  });
});

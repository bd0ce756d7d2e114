import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractInstructions } from './text-instructions.js';

describe('instructions in an answer', () => {
  it("reads the seed's long and short forms, in fences and prose, in order", () => {
    const text = [
      'I will open the book first.',
      '```json',
      '{"type":"workspace_action","action":"update_editable_status","params":{"fieldName":"selected_book_name","value":"Physiology"}}',
      '```',
      'Then the page: {"action": "update_editable_status", "fieldName": "current_page", "value": "42"} and a search',
      '{ "action": "semantic_search", "params": { "query": "heart {valves}" }, }',
    ].join('\n');
    const { requests, errors } = extractInstructions(text);
    expect(errors).toEqual([]);
    expect(requests.map((r) => [r.action, r.params])).toEqual([
      ['update_editable_status', { fieldName: 'selected_book_name', value: 'Physiology' }],
      ['update_editable_status', { fieldName: 'current_page', value: '42' }],
      ['semantic_search', { query: 'heart {valves}' }],
    ]);
  });

  it('ignores objects that are not instructions, and reports broken ones instead of swallowing them', () => {
    const { requests, errors } = extractInstructions(
      'Here is data {"pages": 12}. Broken: {"action": "update_editable_status", "fieldName": "current_page", "value": } and {"type":"workspace_action","params":{}} and {"action": 7} and {"action":"x","params":[1]} and finally {"action": "semantic_search"',
    );
    expect(requests).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining('not valid JSON'),
      'a workspace_action names no "action"',
      '"action" must be the name of an action',
      'the params of x must be an object',
      'an instruction is not closed (a "}" is missing)',
    ]);
  });

  it('reads on past a stray brace in the prose', () => {
    const { requests, errors } = extractInstructions('Sets look like {a, b and then {"action": "next_page"} follows.');
    expect(requests.map((r) => r.action)).toEqual(['next_page']);
    expect(errors).toEqual([]);
  });

  it('finds every instruction embedded in any prose (property)', () => {
    const prose = fc.string().map((s) => s.replace(/[{}"\\]/g, ''));
    const request = fc.record({
      action: fc.constantFrom('update_editable_status', 'semantic_search', 'next_page'),
      params: fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue()),
    });
    fc.assert(
      fc.property(fc.array(fc.tuple(prose, request, fc.boolean())), prose, (parts, tail) => {
        const text =
          parts.map(([before, r, fenced]) => `${before}${fenced ? '\n```json\n' : ' '}${JSON.stringify(r)}${fenced ? '\n```\n' : ' '}`).join('') + tail;
        const { requests, errors } = extractInstructions(text);
        expect(errors).toEqual([]);
        expect(requests.map((r) => ({ action: r.action, params: r.params }))).toEqual(parts.map(([, r]) => JSON.parse(JSON.stringify(r)) as unknown));
      }),
      { numRuns: 500 },
    );
  });
});

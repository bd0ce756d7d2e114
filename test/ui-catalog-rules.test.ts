/**
 * The rules a model-built UI follows without a model round trip (src/ui/rules.ts, shared by the
 * engine, the server and the page): templates, visibility, each built-in input type's value
 * checks (shape, required, min/max, step, pattern), and handlers compiled to patches.
 */
import { describe, expect, it } from 'vitest';
import { accepts, fillTemplate, handlerPatches, isVisible, readPath, valueProblem, type RuleField, type RuleState } from '../src/ui/rules.js';

const state: RuleState = {
  params: { name: 'Ada', n: 3, zero: 0, off: false, empty: '', list: [], tags: ['a'], obj: { a: 1 }, nothing: null },
  runtime: { job: { done: 2, steps: { last: 'x' } }, status: 'ok' },
};

describe('templates', () => {
  it('fill a string as it is, another value as JSON, a missing or null one as nothing', () => {
    expect(fillTemplate('Hi ${state.params.name}!', state)).toBe('Hi Ada!');
    expect(fillTemplate('${state.params.n} of ${state.runtime.job.done}', state)).toBe('3 of 2');
    expect(fillTemplate('${ state.runtime.job.steps.last }', state)).toBe('x');
    expect(fillTemplate('${state.params.obj}|${state.params.tags}|${state.params.off}', state)).toBe('{"a":1}|["a"]|false');
    expect(fillTemplate('[${state.params.missing}][${state.params.nothing}][${state.runtime.job.nope.deeper}]', state)).toBe('[][][]');
    expect(fillTemplate('no templates, $ and {} alone', state)).toBe('no templates, $ and {} alone');
    expect(fillTemplate('${state.params.name}', undefined)).toBe('');
    // Only state paths: anything else stays as it is (the engine refuses it in what a model writes).
    expect(fillTemplate('${foo} ${state.params.__proto__}', state)).toBe('${foo} ');
  });

  it('readPath reads own keys only', () => {
    expect(readPath(state, 'state.runtime.job.steps.last')).toBe('x');
    expect(readPath(state, 'state.params.toString')).toBeUndefined();
    expect(readPath(state, 'state.params.name.length')).toBeUndefined();
    expect(readPath(state, 'params.name')).toBeUndefined();
  });
});

describe('visibility', () => {
  const shown = (rule: Parameters<typeof isVisible>[0]) => isVisible(rule, state);
  it('equals, notEquals, in, truthy, and no comparator (truthy)', () => {
    expect(shown(undefined)).toBe(true);
    expect(shown({ path: 'state.params.name', equals: 'Ada' })).toBe(true);
    expect(shown({ path: 'state.params.name', equals: 'Bob' })).toBe(false);
    expect(shown({ path: 'state.params.obj', equals: { a: 1 } })).toBe(true);
    expect(shown({ path: 'state.params.n', equals: '3' })).toBe(false);
    expect(shown({ path: 'state.params.name', notEquals: 'Bob' })).toBe(true);
    expect(shown({ path: 'state.params.name', notEquals: 'Ada' })).toBe(false);
    expect(shown({ path: 'state.params.missing', notEquals: 'Ada' })).toBe(true);
    expect(shown({ path: 'state.params.n', in: [1, 2, 3] })).toBe(true);
    expect(shown({ path: 'state.params.n', in: [1, 2] })).toBe(false);
    expect(shown({ path: 'state.params.missing', in: [null] })).toBe(false);
    expect(shown({ path: 'state.params.nothing', in: [null] })).toBe(true);
    expect(shown({ path: 'state.runtime.job.done' })).toBe(true);
    for (const path of ['zero', 'off', 'empty', 'list', 'nothing', 'missing']) {
      expect(shown({ path: `state.params.${path}` }), path).toBe(false);
      expect(shown({ path: `state.params.${path}`, truthy: false }), path).toBe(true);
    }
    expect(shown({ path: 'state.params.tags', truthy: true })).toBe(true);
  });

  it('a list holds when every rule does', () => {
    expect(shown([{ path: 'state.params.name' }, { path: 'state.runtime.status', equals: 'ok' }])).toBe(true);
    expect(shown([{ path: 'state.params.name' }, { path: 'state.runtime.status', equals: 'failed' }])).toBe(false);
    expect(shown([])).toBe(true);
  });
});

describe('valueProblem: each built-in input type', () => {
  const problem = (field: Partial<RuleField> & { type: string }, value: Parameters<typeof valueProblem>[1]) => valueProblem({ key: 'k', ...field }, value);

  it('an absent value breaks only required (a required checkbox or switch must be on)', () => {
    for (const value of [undefined, null, '', []]) {
      expect(problem({ type: 'text' }, value)).toBeUndefined();
      expect(problem({ type: 'text', required: true }, value)).toBe('required');
      expect(problem({ type: 'tags', required: true, min: 2 }, value)).toBe('required');
    }
    expect(problem({ type: 'checkbox', required: true }, undefined)).toBe('required');
    expect(problem({ type: 'switch', required: true }, null)).toBe('required');
    expect(problem({ type: 'checkbox', required: true }, false)).toBe('required');
    expect(problem({ type: 'checkbox', required: true }, true)).toBeUndefined();
    expect(problem({ type: 'switch' }, false)).toBeUndefined();
  });

  it('text and textarea: a string, its length within min/max, the whole of it matching the pattern', () => {
    expect(problem({ type: 'text' }, 5)).toMatch(/text/);
    expect(problem({ type: 'textarea', min: 3 }, 'ab')).toBe('at least 3 characters');
    expect(problem({ type: 'text', max: 3 }, 'abcd')).toBe('at most 3 characters');
    expect(problem({ type: 'text', min: 2, max: 3 }, 'abc')).toBeUndefined();
    expect(problem({ type: 'text', pattern: '[a-z]+' }, 'abc')).toBeUndefined();
    expect(problem({ type: 'text', pattern: '[a-z]+' }, 'abc1')).toMatch(/pattern/);
    // Anchored: a match inside is not enough; an alternation is anchored as a whole.
    expect(problem({ type: 'text', pattern: 'b' }, 'abc')).toMatch(/pattern/);
    expect(problem({ type: 'text', pattern: 'a|b' }, 'ab')).toMatch(/pattern/);
    expect(problem({ type: 'text', pattern: '\\p{L}+' }, 'Ödön')).toBeUndefined();
  });

  it('number and slider: a finite number within min/max, a multiple of step from min', () => {
    for (const type of ['number', 'slider']) {
      expect(problem({ type }, '3')).toBe('a number');
      expect(problem({ type, min: 1 }, 0)).toBe('at least 1');
      expect(problem({ type, max: 10 }, 11)).toBe('at most 10');
      expect(problem({ type, min: 0, max: 1, step: 0.1 }, 0.3)).toBeUndefined();
      expect(problem({ type, min: 0, max: 1, step: 0.1 }, 0.35)).toMatch(/multiple of 0.1/);
      expect(problem({ type, min: 1, step: 2 }, 5)).toBeUndefined();
      expect(problem({ type, min: 1, step: 2 }, 4)).toBe('a multiple of 2 from 1');
      expect(problem({ type, step: 5 }, -10)).toBeUndefined();
      expect(problem({ type, step: 5 }, 7)).toBe('a multiple of 5');
    }
  });

  it('date: a real day, YYYY-MM-DD, within min/max', () => {
    for (const bad of ['2026-02-30', '2026-02-29', '2026-13-01', '2026-00-10', '2026-1-1', '26-01-01', '2026-01-01T00:00:00Z', 20260101])
      expect(problem({ type: 'date' }, bad), String(bad)).toBe('a date, YYYY-MM-DD');
    expect(problem({ type: 'date' }, '2024-02-29')).toBeUndefined();
    expect(problem({ type: 'date', min: '2026-01-01' }, '2025-12-31')).toBe('on or after 2026-01-01');
    expect(problem({ type: 'date', max: '2026-06-30' }, '2026-07-01')).toBe('on or before 2026-06-30');
    expect(problem({ type: 'date', min: '2026-01-01', max: '2026-01-01' }, '2026-01-01')).toBeUndefined();
  });

  it('select, radio and multiselect: option values only, each once, as many as min/max say', () => {
    const options = [{ value: 'a' }, { value: 'b' }, { value: 'c' }];
    for (const type of ['select', 'radio']) {
      expect(problem({ type, options }, 'b')).toBeUndefined();
      expect(problem({ type, options }, 'd')).toMatch(/one of "a", "b", "c"/);
      expect(problem({ type, options }, ['a'])).toMatch(/one of/);
    }
    expect(problem({ type: 'multiselect', options }, ['a', 'c'])).toBeUndefined();
    expect(problem({ type: 'multiselect', options }, ['a', 'd'])).toMatch(/a list of/);
    expect(problem({ type: 'multiselect', options }, 'a')).toMatch(/a list of/);
    expect(problem({ type: 'multiselect', options }, ['a', 'a'])).toBe('each option once');
    expect(problem({ type: 'multiselect', options, min: 2 }, ['a'])).toBe('at least 2 choices');
    expect(problem({ type: 'multiselect', options, max: 1 }, ['a', 'b'])).toBe('at most 1 choices');
  });

  it('checkbox and switch: true or false', () => {
    for (const type of ['checkbox', 'switch']) {
      expect(problem({ type }, true)).toBeUndefined();
      expect(problem({ type }, 'true')).toBe('true or false');
      expect(problem({ type }, 1)).toBe('true or false');
    }
  });

  it('tags: short non-empty strings, each once, as many as min/max say, each matching the pattern', () => {
    expect(problem({ type: 'tags' }, ['a', 'b'])).toBeUndefined();
    expect(problem({ type: 'tags' }, ['a', 'a'])).toBe('each tag once');
    expect(problem({ type: 'tags' }, ['a', ''])).toMatch(/a list of up to/);
    expect(problem({ type: 'tags' }, ['x'.repeat(201)])).toMatch(/a list of up to/);
    expect(problem({ type: 'tags' }, [1])).toMatch(/a list of up to/);
    expect(problem({ type: 'tags' }, 'a')).toMatch(/a list of up to/);
    expect(problem({ type: 'tags', min: 2 }, ['a'])).toBe('at least 2 tags');
    expect(problem({ type: 'tags', max: 1 }, ['a', 'b'])).toBe('at most 1 tags');
    expect(problem({ type: 'tags', pattern: '[a-z]+' }, ['ok', 'Bad'])).toBe('the tag "Bad" does not match the pattern [a-z]+');
  });

  it('file: exactly { sha256, name, mediaType, size }, within maxBytes, of an accepted type', () => {
    const file = { sha256: 'a'.repeat(64), name: 'r.pdf', mediaType: 'application/pdf', size: 10 };
    expect(problem({ type: 'file' }, file)).toBeUndefined();
    for (const bad of [
      { ...file, sha256: 'A'.repeat(64) },
      { ...file, sha256: 'a'.repeat(63) },
      { ...file, size: -1 },
      { ...file, size: 1.5 },
      { ...file, name: 'x'.repeat(256) },
      { ...file, extra: 1 },
      { sha256: file.sha256, name: 'r.pdf', size: 10 },
      [file],
      'r.pdf',
    ])
      expect(problem({ type: 'file' }, bad as never), JSON.stringify(bad)).toMatch(/an uploaded file/);
    expect(problem({ type: 'file', maxBytes: 9 }, file)).toBe('a file of at most 9 bytes');
    expect(problem({ type: 'file' }, { ...file, size: 5 * 1024 * 1024 + 1 })).toMatch(/at most 5242880 bytes/);
    expect(problem({ type: 'file', accept: ['image/*'] }, file)).toBe('a file of type image/*');
    expect(problem({ type: 'file', accept: ['image/*', 'application/pdf'] }, file)).toBeUndefined();
    expect(accepts(['image/*'], 'IMAGE/PNG; q=1')).toBe(true);
    expect(accepts(['image/*'], 'imagex/png')).toBe(false);
    expect(accepts(['image/png'], 'image/pngx')).toBe(false);
    expect(accepts([], 'anything/at-all')).toBe(true);
  });

  it('json takes anything; a type it does not know is the catalog’s to check', () => {
    expect(problem({ type: 'json' }, { deep: [1, { x: null }] })).toBeUndefined();
    expect(problem({ type: 'rating' }, 'whatever')).toBeUndefined();
  });
});

describe('handlerPatches', () => {
  const run = (handlers: Parameters<typeof handlerPatches>[0], on: RuleState = state) => handlerPatches(handlers, on);

  it('increment and decrement: by 1 or by, from 0 when missing or null; refused on a non-number', () => {
    expect(run({ type: 'increment', path: 'state.params.n' })).toMatchObject({ ok: true, patches: [{ op: 'set', path: 'state.params.n', value: 4 }] });
    expect(run({ type: 'increment', path: 'state.params.missing', by: 5 })).toMatchObject({ ok: true, patches: [{ value: 5 }] });
    expect(run({ type: 'decrement', path: 'state.params.nothing', by: 2 })).toMatchObject({ ok: true, patches: [{ value: -2 }] });
    expect(run({ type: 'decrement', path: 'state.runtime.job' })).toMatchObject({ ok: false, message: expect.stringContaining('not a number') as unknown });
    expect(run({ type: 'increment', path: 'state.params.name' })).toEqual({
      ok: false,
      message: 'state.params.name holds "Ada", not a number to increment',
    });
  });

  it('toggle: flips a boolean, missing is false; refused on a non-boolean', () => {
    expect(run({ type: 'toggle', path: 'state.params.off' })).toMatchObject({ ok: true, patches: [{ value: true }] });
    expect(run({ type: 'toggle', path: 'state.params.missing' })).toMatchObject({ ok: true, patches: [{ value: true }] });
    expect(run({ type: 'toggle', path: 'state.params.zero' })).toMatchObject({ ok: false });
  });

  it('set, and a template reading what an earlier handler of the list wrote; the state given is not changed', () => {
    const before = structuredClone(state);
    const out = run([
      { type: 'set', path: 'state.params.name', value: 'Grace' },
      { type: 'increment', path: 'state.runtime.clicks' },
      { type: 'template', path: 'state.runtime.msg', template: '${state.params.name} clicked ${state.runtime.clicks} time(s)' },
    ]);
    expect(out).toEqual({
      ok: true,
      patches: [
        { op: 'set', path: 'state.params.name', value: 'Grace' },
        { op: 'set', path: 'state.runtime.clicks', value: 1 },
        { op: 'set', path: 'state.runtime.msg', value: 'Grace clicked 1 time(s)' },
      ],
      state: expect.objectContaining({ runtime: expect.objectContaining({ clicks: 1, msg: 'Grace clicked 1 time(s)' }) }) as unknown,
    });
    expect(state).toEqual(before);
  });

  it('refuses a path that is not one key of state.params or state.runtime, and a prototype key', () => {
    for (const path of ['meta.status', 'state.params', 'state.params.a.b', 'state.other.x', 'state.params.__proto__', 'state.runtime.constructor'])
      expect(run({ type: 'set', path, value: 1 }), path).toMatchObject({ ok: false });
    expect(run({ type: 'multiply', path: 'state.params.n' } as never)).toMatchObject({ ok: false });
    // A refusal anywhere in the list refuses the whole list.
    expect(
      run([
        { type: 'set', path: 'state.params.a', value: 1 },
        { type: 'toggle', path: 'state.params.name' },
      ]),
    ).toMatchObject({ ok: false });
  });
});

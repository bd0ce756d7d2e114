import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../core/blocks.js';
import { fitJson } from './fit-json.js';

const json = fc.jsonValue() as fc.Arbitrary<JsonValue>;
const size = (value: JsonValue) => JSON.stringify(value).length;

describe('fitJson', () => {
  it('keeps a value that fits as it is, and never answers more than the limit', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 1, max: 400 }), (value, maxChars) => {
        const before = JSON.stringify(value);
        const fitted = fitJson(value, maxChars);
        // The value given is not changed.
        expect(JSON.stringify(value)).toBe(before);
        if (size(value) <= maxChars) expect(fitted).toEqual({ fits: true, value, cuts: [] });
        else if (!fitted.fits) expect(fitted.chars).toBe(size(value));
        else {
          expect(size(fitted.value)).toBeLessThanOrEqual(maxChars);
          // What was cut is said: a value that had to shrink names at least one cut.
          expect(fitted.cuts.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('cuts long texts, long lists and many keys, naming each by its path, and keeps "__proto__" a key', () => {
    const value = JSON.parse(
      JSON.stringify({
        state: {
          params: { notes: 'n'.repeat(50_000), short: 'kept' },
          runtime: { rows: Array.from({ length: 1_000 }, (_, i) => ({ i })) },
        },
        many: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i])),
      }),
    ) as { [key: string]: JsonValue };
    const withProto = JSON.parse('{"__proto__": {"polluted": true}, "x": "y"}') as JsonValue;
    const fitted = fitJson({ ...value, odd: withProto }, 10_000);
    expect(fitted.fits).toBe(true);
    if (!fitted.fits) return;
    expect(size(fitted.value)).toBeLessThanOrEqual(10_000);
    const shown = fitted.value as { state: { params: { notes: string; short: string }; runtime: { rows: unknown[] } }; odd: object };
    expect(shown.state.params.short).toBe('kept');
    expect(shown.state.params.notes).toMatch(/^n+…$/);
    expect(shown.state.runtime.rows.length).toBeLessThan(1_000);
    expect(Object.hasOwn(shown.odd, '__proto__')).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(fitted.cuts.map((c) => c.path)).toEqual(expect.arrayContaining(['state.params.notes', 'state.runtime.rows', 'many']));
    expect(fitted.cuts.find((c) => c.path === 'state.params.notes')?.what).toMatch(/^a text of 50,000 characters, its first [\d,]+ shown/);
  });

  it('does not end a cut text inside a surrogate pair', () => {
    const fitted = fitJson({ text: '😀'.repeat(10_000) }, 5_000);
    expect(fitted.fits && (fitted.value as { text: string }).text).toMatch(/^(😀)+…$/u);
  });

  it('says so when even the tightest cut does not fit', () => {
    // Eight keys of 5,000 characters each: keys are never cut.
    const value = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`${i}${'k'.repeat(5_000)}`, i]));
    expect(fitJson(value, 20_000)).toEqual({ fits: false, chars: size(value) });
  });
});

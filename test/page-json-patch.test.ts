/**
 * The page's RFC 6902 applier (web/src/json-patch.ts, on fast-json-patch): every operation of
 * the RFC, pointers with escaped characters, what must be refused (a missing value, a test that
 * fails, a path that does not exist, a prototype), and a refused patch changing nothing.
 */
import { describe, expect, it } from 'vitest';
import { applyPatch, parsePointer, PatchError } from '../web/src/json-patch.js';
import type { PatchOp } from '../web/src/types.js';

const doc = () => ({ a: { b: [1, 2, 3], 'x/y': 'slash', 'm~n': 'tilde' }, list: ['p', 'q'], flag: true });

describe("the page's JSON Patch", () => {
  const cases: [string, PatchOp[], unknown][] = [
    ['add to an object', [{ op: 'add', path: '/a/c', value: 4 }], { ...doc(), a: { ...doc().a, c: 4 } }],
    [
      'add inside an array, and at its end with -',
      [
        { op: 'add', path: '/list/1', value: 'mid' },
        { op: 'add', path: '/list/-', value: 'end' },
      ],
      { ...doc(), list: ['p', 'mid', 'q', 'end'] },
    ],
    ['remove from an array', [{ op: 'remove', path: '/a/b/0' }], { ...doc(), a: { ...doc().a, b: [2, 3] } }],
    ['replace the whole document', [{ op: 'replace', path: '', value: { only: 1 } }], { only: 1 }],
    ['move between parents', [{ op: 'move', from: '/a/b', path: '/moved' }], { ...doc(), a: { 'x/y': 'slash', 'm~n': 'tilde' }, moved: [1, 2, 3] }],
    ['move within an array', [{ op: 'move', from: '/list/0', path: '/list/1' }], { ...doc(), list: ['q', 'p'] }],
    ['copy', [{ op: 'copy', from: '/list', path: '/again' }], { ...doc(), again: ['p', 'q'] }],
    [
      'escaped pointers (~1 is /, ~0 is ~)',
      [
        { op: 'replace', path: '/a/x~1y', value: 1 },
        { op: 'remove', path: '/a/m~0n' },
      ],
      { ...doc(), a: { b: [1, 2, 3], 'x/y': 1 } },
    ],
    [
      'a test that holds (objects equal whatever their key order)',
      [{ op: 'test', path: '/a', value: { 'm~n': 'tilde', 'x/y': 'slash', b: [1, 2, 3] } }],
      doc(),
    ],
    ['a null value is a value', [{ op: 'replace', path: '/flag', value: null }], { ...doc(), flag: null }],
  ];
  for (const [name, ops, expected] of cases) {
    it(name, () => {
      const before = doc();
      expect(applyPatch(before, ops)).toEqual(expected);
      expect(before).toEqual(doc()); // applied to a copy
    });
  }

  const refused: [string, PatchOp[]][] = [
    ['an add without a value (not read as null)', [{ op: 'add', path: '/z' }]],
    ['a replace without a value', [{ op: 'replace', path: '/flag' }]],
    ['a test that fails', [{ op: 'test', path: '/flag', value: false }]],
    ['a path that does not exist', [{ op: 'remove', path: '/nope/deeper' }]],
    ['a move from nowhere', [{ op: 'move', from: '/nope', path: '/x' }]],
    ['an operation that is none', [{ op: 'frobnicate', path: '/x', value: 1 }]],
    ['a path through a prototype', [{ op: 'add', path: '/__proto__/polluted', value: true }]],
    ['an array index past its end', [{ op: 'add', path: '/list/9', value: 'x' }]],
  ];
  for (const [name, ops] of refused) {
    it(`refuses ${name}, changing nothing`, () => {
      const before = doc();
      // A patch whose first operation would succeed still changes nothing when a later one is refused.
      expect(() => applyPatch(before, [{ op: 'add', path: '/first', value: 1 }, ...ops])).toThrow(PatchError);
      expect(before).toEqual(doc());
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    });
  }

  it('reads pointers as RFC 6901 says', () => {
    expect(parsePointer('')).toEqual([]);
    expect(parsePointer('/instances/a~1b/m~0n')).toEqual(['instances', 'a/b', 'm~n']);
    expect(() => parsePointer('instances')).toThrow(PatchError);
  });
});

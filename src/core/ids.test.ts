import { describe, expect, it } from 'vitest';
import { uuidv7 } from './ids.js';

describe('uuidv7', () => {
  it('makes RFC 9562 version 7 UUIDs that sort in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => uuidv7(1_700_000_000_000 + Math.floor(i / 1000)));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]?.slice(0, 13)).toBe('018bcfe5-6800');
  });

  it('never goes backwards when the clock does', () => {
    const later = uuidv7(1_800_000_000_000);
    const earlier = uuidv7(1_700_000_000_000);
    expect(earlier > later).toBe(true);
  });

  it('writes all 48 bits of the milliseconds, big-endian', () => {
    expect(uuidv7(2 ** 48 - 1).slice(0, 13)).toBe('ffffffff-ffff');
    expect(uuidv7(2 ** 48 - 1).slice(14, 15)).toBe('7');
  });
});

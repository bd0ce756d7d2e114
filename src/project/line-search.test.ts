import { describe, expect, it } from 'vitest';
import { LineSearch } from './line-search.js';

describe('LineSearch', () => {
  it('finds the matching lines with their numbers and where each match starts, without a phantom last line', async () => {
    const search = new LineSearch('b+|^$', { ignoreCase: false, budgetMs: 10_000 });
    try {
      expect(await search.lines('abbc\r\n\nxyz\n', 10)).toEqual([
        { line: 1, index: 1, text: 'abbc' },
        { line: 2, index: 0, text: '' },
      ]);
      expect(await search.lines('b\nb\nb', 2)).toHaveLength(2);
    } finally {
      await search.close();
    }
  });

  it('stops a search over its budget with SEARCH_TIMEOUT, and the main thread runs meanwhile', async () => {
    // Linear, but a thousand states over a megabyte: seconds of work, done in the worker.
    let seed = 7;
    const line = Array.from({ length: 1 << 20 }, () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) < 2 ** 30 ? 'a' : 'b')).join('');
    const search = new LineSearch('[ab]*a[ab]{500}\\s', { ignoreCase: false, budgetMs: 300 });
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 10);
    try {
      await expect(search.lines(line, 10)).rejects.toMatchObject({ code: 'SEARCH_TIMEOUT', message: expect.stringContaining('narrow it') });
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(ticking);
      await search.close();
    }
  });

  it('stops when the run is stopped', async () => {
    const controller = new AbortController();
    const search = new LineSearch('[ab]*a[ab]{500}\\s', { ignoreCase: false, budgetMs: 60_000, signal: controller.signal });
    const searching = search.lines('ab'.repeat(1 << 19), 10);
    setTimeout(() => controller.abort(new Error('stopped by the user')), 50);
    await expect(searching).rejects.toThrow('stopped by the user');
    await search.close();
  });
});

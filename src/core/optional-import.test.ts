import { describe, expect, it } from 'vitest';
import { GolemError } from './errors.js';
import { importOptional } from './optional-import.js';

describe('importOptional', () => {
  it('turns a missing package into DEPENDENCY_MISSING naming what to install', async () => {
    const name = 'golem-test-no-such-package';
    const failure: unknown = await importOptional(() => import(name) as Promise<unknown>, { packages: [name, 'ws'], purpose: 'this test' }).catch(
      (e: unknown) => e,
    );
    expect(GolemError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ code: 'DEPENDENCY_MISSING', details: { packages: [name, 'ws'], missing: name } });
    expect((failure as GolemError).message).toBe(`this test needs the packages ${name}, ws (npm install ${name} ws)`);
  });

  it('takes the code the part uses for it', async () => {
    const name = 'golem-test-no-such-package';
    await expect(importOptional(() => import(name), { packages: [name], purpose: 'the browser', code: 'BROWSER_UNAVAILABLE' })).rejects.toMatchObject({
      code: 'BROWSER_UNAVAILABLE',
    });
  });

  it('passes other failures through untouched, and loads what is installed', async () => {
    const broken = new Error('the module threw while loading');
    await expect(importOptional(() => Promise.reject(broken), { packages: ['ws'], purpose: 'this test' })).rejects.toBe(broken);
    const other = Object.assign(new Error("Cannot find package 'left-pad' imported from x"), { code: 'ERR_MODULE_NOT_FOUND' });
    await expect(importOptional(() => Promise.reject(other), { packages: ['ws'], purpose: 'this test' })).rejects.toBe(other);
    const { WebSocketServer } = await importOptional(() => import('ws'), { packages: ['ws'], purpose: 'this test' });
    expect(typeof WebSocketServer).toBe('function');
  });
});

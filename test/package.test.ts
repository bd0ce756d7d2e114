/** The package as users import it: its entry points resolve, and the light ones stay light. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..');

/** Every bare import reachable from a built file through relative imports. */
function bareImports(file: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  if (seen.has(file)) return out;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const match of source.matchAll(/^import\s[^'"]*['"]([^'"]+)['"]/gm)) {
    const spec = match[1] as string;
    if (spec.startsWith('.')) for (const s of bareImports(resolve(dirname(file), spec), seen)) out.add(s);
    else out.add(spec);
  }
  return out;
}

describe('the package', () => {
  it('exposes golem, golem/test and golem/test/conformance', async () => {
    const script = `
      const golem = await import('golem');
      const test = await import('golem/test');
      const conformance = await import('golem/test/conformance');
      console.log(typeof golem.createWorkspace, typeof golem.resolveModel, typeof test.scriptedModel, typeof conformance.describeStoreConformance);
    `;
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    expect(stdout.trim()).toBe('function function function function');
  });

  it('loads neither vitest with golem/test, nor the provider packages or the PDF reader with golem (they load on first use)', () => {
    const light = bareImports(join(root, 'dist/test/index.js'));
    expect([...light].filter((s) => s.includes('vitest'))).toEqual([]);
    const main = bareImports(join(root, 'dist/index.js'));
    expect([...main].filter((s) => s.startsWith('@ai-sdk/') && s !== '@ai-sdk/provider')).toEqual([]);
    expect([...main].filter((s) => s === 'gpt-tokenizer' || s === 'unpdf')).toEqual([]);
  });
});

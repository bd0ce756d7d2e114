import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.js';
import { createWorkspace } from '../src/index.js';
import { tempDir, text } from './helpers.js';

const exec = promisify(execFile);

async function golem(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd }, env);
  return { code, stdout, stderr };
}

describe('golem status', () => {
  it('creates the workspace in ./.golem and prints its summary', async () => {
    const cwd = tempDir();
    const { code, stdout, stderr } = await golem(['status'], cwd);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(existsSync(join(cwd, '.golem', 'workspace.db'))).toBe(true);
    expect(stdout).toMatch(/^sessions\s+0$/m);
    expect(stdout).toMatch(/^turns\s+0$/m);
    expect(stdout).toContain(join(cwd, '.golem'));
  });

  it('counts what the workspace holds', async () => {
    const cwd = tempDir();
    const ws = await createWorkspace({ dir: join(cwd, 'ws') });
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('a')] });
    await s.addTurn({ role: 'assistant', blocks: [text('b')] });
    await ws.blobs.register(new Uint8Array(2048), { mediaType: 'application/octet-stream' });
    await ws.close();
    const { code, stdout } = await golem(['status', '--dir', 'ws', '--json'], cwd);
    expect(code).toBe(0);
    const summary = JSON.parse(stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ sessions: 1, turns: 2, blobs: 1, blobBytes: 2048, store: 'sqlite', commands: 5 });
    expect(summary.bytesOnDisk).toBeGreaterThan(2048);
  });

  it('takes the folder from GOLEM_DIR', async () => {
    const cwd = tempDir();
    const { code } = await golem(['status'], cwd, { GOLEM_DIR: 'elsewhere' });
    expect(code).toBe(0);
    expect(existsSync(join(cwd, 'elsewhere', 'workspace.db'))).toBe(true);
  });

  it('explains bad usage with exit code 2', async () => {
    const cwd = tempDir();
    const unknown = await golem(['frobnicate'], cwd);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(unknown.stderr).toContain('Usage: golem');
    const badFlag = await golem(['status', '--nope'], cwd);
    expect(badFlag.code).toBe(2);
    expect(existsSync(join(cwd, '.golem'))).toBe(false);
  });

  it('reports a workspace it cannot open with its error code', async () => {
    const cwd = tempDir();
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(join(cwd, '.golem'));
    writeFileSync(join(cwd, '.golem', 'workspace.db'), 'not a database, only some text that fills a header......');
    const { code, stderr } = await golem(['status'], cwd);
    expect(code).toBe(1);
    expect(stderr).toContain('[STORE_ERROR]');
  });

  it('runs as the real binary', async () => {
    const cwd = tempDir();
    const bin = join(import.meta.dirname, '..', 'bin', 'golem.js');
    const { stdout } = await exec(process.execPath, [bin, 'status'], { cwd });
    expect(stdout).toMatch(/^sessions\s+0$/m);
    const version = await exec(process.execPath, [bin, '--version'], { cwd });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

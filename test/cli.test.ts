import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.js';
import { createWorkspace } from '../src/index.js';
import { tempDir, text } from './helpers.js';
import { startFakeProvider } from './servers/fake-provider.js';

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
    expect(unknown.stderr).toBe('golem: unknown command "frobnicate"; golem --help for all\n');
    const badFlag = await golem(['status', '--nope'], cwd);
    expect(badFlag.code).toBe(2);
    expect(existsSync(join(cwd, '.golem'))).toBe(false);
  });

  it('answers a mistyped flag or command with one line: what was wrong and the nearest right one', async () => {
    const cwd = tempDir();
    const cases: [string[], string][] = [
      [['--nwe'], 'golem: unknown option --nwe (did you mean --new?); golem --help for all\n'],
      [['--sesion', 'abc'], 'golem: unknown option --sesion (did you mean --session?); golem --help for all\n'],
      [['status', '--jsno'], 'golem: unknown option --jsno (did you mean --json?); golem --help for all\n'],
      [['--nope'], 'golem: unknown option --nope; golem --help for all\n'],
      [['--model'], 'golem: option --model needs a value (--model <value>); golem --help for all\n'],
      [['--new=yes'], 'golem: option --new takes no value; golem --help for all\n'],
      [['sesions', 'list'], 'golem: unknown command "sesions list" (did you mean sessions?); golem --help for all\n'],
      [['chat', 'now'], 'golem: unknown command "chat now"; golem --help for all\n'],
    ];
    for (const [args, line] of cases) {
      const result = await golem(args, cwd);
      expect({ args, code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({ args, code: 2, stderr: line, stdout: '' });
    }
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

describe('golem ask', () => {
  it('streams the answer of the configured model and records the exchange', async () => {
    const server = await startFakeProvider('openai', [{ text: 'Four chambers.' }, { text: 'Two atria.' }]);
    try {
      const cwd = tempDir();
      const env = { GOLEM_MODEL: `openai-compatible:${server.url}#local-model` };
      const first = await golem(['ask', 'How many chambers has the heart?'], cwd, env);
      expect(first.code).toBe(0);
      expect(first.stdout).toBe('Four chambers.\n');
      expect(first.stderr).toMatch(/openai-compatible:local-model/);
      const second = await golem(['ask', 'Which', 'ones?'], cwd, env);
      expect(second.stdout).toBe('Two atria.\n');
      // The second question went to the same session, with the first exchange as history.
      const messages = server.requests[1]?.body.messages as { role: string; content: unknown }[];
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(messages[2]?.content).toBe('Which ones?');
      const ws = await createWorkspace({ dir: join(cwd, '.golem') });
      expect(ws.sessions.list()).toHaveLength(1);
      expect((await ws.summary()).turns).toBe(4);
      await ws.close();
    } finally {
      await server.close();
    }
  });

  it('takes the question back when the model cannot be reached, so asking again sends it once', async () => {
    const server = await startFakeProvider('openai', [{ text: 'Here.' }]);
    const url = server.url;
    await server.close();
    const cwd = tempDir();
    const env = { GOLEM_MODEL: `openai-compatible:${url}#m` };
    const failed = await golem(['ask', 'Fish heart?'], cwd, env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^golem \[MODEL_UNREACHABLE\]: cannot reach/);
    const ws = await createWorkspace({ dir: join(cwd, '.golem') });
    expect((await ws.summary()).turns).toBe(0);
    await ws.close();
  });

  it('will not answer in a session another process runs, and says who runs it', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'script.json'), JSON.stringify([{ text: 'Mine.' }]));
    const ws = await createWorkspace({ dir: join(cwd, '.golem') });
    const session = await ws.sessions.create({ label: 'busy' });
    const holder = 'another-process';
    const claimed = await ws.manager.dispatch({
      type: 'run:claim',
      payload: { sessionId: session.id, holder, by: 'golem serve, pid 1 on elsewhere', runId: 'r', ttlMs: 60_000 },
    });
    expect(claimed.ok).toBe(true);
    await ws.close();
    const busy = await golem(['ask', 'hello', '--session', session.id, '--model', 'scripted:script.json'], cwd, {});
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('[SESSION_BUSY]');
    expect(busy.stderr).toContain('golem serve, pid 1 on elsewhere');
    // Nothing was written to it; another session answers, and its lease is let go after.
    const other = await golem(['ask', 'hello', '--new', '--model', 'scripted:script.json'], cwd, {});
    expect(other.stdout).toContain('Mine.');
    const again = await createWorkspace({ dir: join(cwd, '.golem') });
    expect((await again.sessions.open(session.id))?.record().length).toBe(0);
    expect([...again.manager.workspace().collection('run').values()].map((l) => l.holder)).toEqual([holder]);
    await again.close();
  });

  it('says how to configure a model when none is', async () => {
    const cwd = tempDir();
    const { code, stderr } = await golem(['ask', 'hello'], cwd, {});
    expect(code).toBe(2);
    expect(stderr).toContain('Set GOLEM_MODEL');
    expect(stderr).toContain('openai-compatible:<baseURL>#<model>');
    const bad = await golem(['ask', 'hello', '--model', 'openai:gpt-4.1'], cwd, {});
    expect(bad.stderr).toContain('OPENAI_API_KEY');
  });
});

describe('the scripted model of the command line (scripted:<file.json>)', () => {
  it('plays its script once per conversation: a new session starts it again, the same session goes on after a restart', async () => {
    const { cliModel } = await import('../src/cli/cli-model.js');
    const cwd = tempDir();
    writeFileSync(join(cwd, 'script.json'), JSON.stringify([{ text: 'first' }, { text: 'second' }]));
    const dir = join(cwd, '.golem');
    const answer = async (ws: Awaited<ReturnType<typeof createWorkspace>>, id: string) => {
      const s = ws.sessions.get(id);
      if (s === undefined) throw new Error('no session');
      await s.addTurn({ role: 'user', blocks: [text('go')] });
      const turn = await s.respond({ model: cliModel('scripted:script.json', { cwd, env: {}, ws }) });
      return turn.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
    };
    let ws = await createWorkspace({ dir });
    const a = (await ws.sessions.create()).id;
    expect(await answer(ws, a)).toBe('first');
    const b = (await ws.sessions.create()).id; // golem --new: the script again from its start
    expect(await answer(ws, b)).toBe('first');
    await ws.close();
    ws = await createWorkspace({ dir }); // a restart: each conversation goes on where it was
    expect(await answer(ws, a)).toBe('second');
    expect(await answer(ws, b)).toBe('second');
    await expect(answer(ws, a)).rejects.toMatchObject({ code: 'MODEL_SCRIPT_EXHAUSTED' });
    await ws.close();
  });
});

/**
 * Clearance as seed 003 has it (issue 19): a push to a branch commits there and leaves the
 * files; a file that is not text is a binary output of its own; the root's context lists
 * what waits; the chat's review asks the terminal's getClearanceDecision; the terminal hears
 * of each change (onClearanceStateChange); `golem clearance push` with no id pushes the one
 * waiting, or says which there are.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { chat } from '../src/cli/chat.js';
import { run } from '../src/cli/main.js';
import { createWorkspace, defineAction, projectActions, type Workspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { tempDir } from './helpers.js';

/** app.ts: a port at the top, a host at the bottom (far enough apart to merge). */
const APP = (host: string, port = '80') => `const port = ${port};\n// one\n// two\n// three\n// four\nconst host = ${host};\n`;

/** A git repository with one committed file, and a workspace in it. */
async function project(): Promise<{ root: string; git: (...args: string[]) => string; ws: Workspace }> {
  const root = tempDir();
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(root, 'app.ts'), APP('"a"'));
  writeFileSync(join(root, '.gitignore'), '.golem/\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  const ws = await createWorkspace({ dir: join(root, '.golem') });
  return { root, git, ws };
}

/** Has the model stage one edit of app.ts; returns the clearance item's id. */
async function stageEdit(ws: Workspace, root: string, from: string, to: string): Promise<string> {
  const session = await ws.sessions.create();
  const model = scriptedModel([{ toolCalls: [{ name: 'edit_file', input: { path: 'app.ts', old_string: from, new_string: to } }] }, { text: 'Staged.' }]);
  await ws.worker({ session, model, actions: projectActions(), project: { root } }).run('edit');
  const item = ws.clearance.list().at(-1);
  if (item === undefined) throw new Error('nothing staged');
  return item.id;
}

describe('clearance', () => {
  it('pushes a staged commit to a branch: committed there, the files and the branch checked out left alone', async () => {
    const { root, git, ws } = await project();
    const id = await stageEdit(ws, root, '80', '8080');
    const pushed = await ws.clearance.push(id, { target: 'golem/port' });
    expect(pushed).toMatchObject({
      status: 'pushed',
      outcome: expect.stringMatching(/^Committed to branch golem\/port \([0-9a-f]{12}\): app\.ts; the files on disk/),
    });
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toContain('const port = 80;');
    expect(git('status', '--porcelain')).toBe('');
    expect(git('rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
    expect(git('show', 'golem/port:app.ts')).toBe(APP('"a"', '8080'));
    expect(git('rev-parse', 'golem/port~1').trim()).toBe(git('rev-parse', 'main').trim()); // on HEAD, one commit
    expect(git('branch', '--list', 'golem/staged/*').trim()).toBe(''); // the staging branch is gone
    await ws.close();
  });

  it('merges with what the branch changed since, refuses a conflict with nothing done, and refuses the branch checked out', async () => {
    const { root, git, ws } = await project();
    git('branch', 'feature');
    git('checkout', '-q', 'feature');
    writeFileSync(join(root, 'app.ts'), APP('"b"'));
    git('commit', '-qam', 'host b');
    git('checkout', '-q', 'main');
    const merged = await stageEdit(ws, root, '80', '8080');
    await ws.clearance.push(merged, { target: 'feature' });
    expect(git('show', 'feature:app.ts')).toBe(APP('"b"', '8080'));

    const clashing = await stageEdit(ws, root, '"a"', '"c"');
    const before = git('rev-parse', 'feature').trim();
    await expect(ws.clearance.push(clashing, { target: 'feature' })).rejects.toMatchObject({ code: 'CLEARANCE_CONFLICT', details: { files: ['app.ts'] } });
    expect(git('rev-parse', 'feature').trim()).toBe(before);
    expect(ws.clearance.get(clashing).status).toBe('pending');
    await expect(ws.clearance.push(clashing, { target: 'main' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('checked out'),
    });
    // Names git would resolve to something else, ref paths, options: refused as they are, nothing made.
    for (const bad of ['bad..name', '@', '@{-1}', 'HEAD', 'refs/heads/x', '-x', 'golem/staged/y']) {
      await expect(ws.clearance.push(clashing, { target: bad }), bad).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    // A branch checked out in another work tree is left alone too.
    git('worktree', 'add', '-q', join(tempDir(), 'wt'), 'feature');
    await expect(ws.clearance.push(clashing, { target: 'feature' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('work tree'),
    });
    expect(git('for-each-ref', '--format=%(refname)', 'refs/heads').split('\n').filter(Boolean).sort()).toEqual([
      'refs/heads/feature',
      'refs/heads/golem/staged/' + clashing,
      'refs/heads/main',
    ]);
    expect(ws.clearance.get(clashing).status).toBe('pending');
    // Without a target it is written into the files as before.
    await ws.clearance.push(clashing);
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toContain('const host = "c";');
    await ws.close();
  });

  it('refuses a branch where the project is not in a git repository', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'app.ts'), 'const port = 80;\n');
    const ws = await createWorkspace({ dir: join(root, '.golem') });
    const id = await stageEdit(ws, root, '80', '8080');
    await expect(ws.clearance.push(id, { target: 'feature' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('not in a git repository'),
    });
    expect(ws.clearance.get(id).status).toBe('pending');
    await ws.close();
  });

  it('stages a file that is not text as a binary output of its own, described, and pushes its bytes', async () => {
    const { root, ws } = await project();
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 0), Buffer.from('chart')]);
    const render = defineAction({
      name: 'render_chart',
      description: 'Renders the chart as a PNG, and notes it in the changelog.',
      input: z.object({ path: z.string() }),
      trust: 'manual',
      stages: true,
      run: async ({ path }, ctx) => {
        await ctx.files?.write(path, png);
        await ctx.files?.write('CHANGELOG.md', Buffer.from('- a chart\n'));
        return { path };
      },
    });
    const session = await ws.sessions.create();
    const model = scriptedModel([{ toolCalls: [{ name: 'render_chart', input: { path: 'docs/chart.png' } }] }, { text: 'Rendered.' }]);
    await ws.worker({ session, model, actions: [render], project: { root } }).run('chart it');
    const items = ws.clearance.list();
    expect(items.map((i) => [i.type, i.description])).toEqual([
      ['staged_commit', 'Changes to CHANGELOG.md'],
      ['binary_output', 'Binary output: docs/chart.png (77 bytes, PNG image)'],
    ]);
    expect(existsSync(join(root, 'docs', 'chart.png'))).toBe(false);
    // The model is told where each went, and not that later reads see the binary file.
    const told = JSON.stringify((await session.transcript()).flatMap((t) => t.blocks.filter((b) => b.type === 'tool_result')));
    expect(told).toContain(`The file docs/chart.png (not text) waits for the user's review as clearance item ${items[1]?.id}`);
    expect(told).toContain('not seen by later reads');
    expect(told).toContain(`Staged for the user's review as clearance item ${items[0]?.id}`);
    expect(await ws.clearance.diff(items[1]?.id ?? '')).toContain('Binary files');
    await ws.clearance.push(items[1]?.id ?? '');
    expect(readFileSync(join(root, 'docs', 'chart.png')).equals(png)).toBe(true);
    expect(existsSync(join(root, 'CHANGELOG.md'))).toBe(false); // the text change waits on its own
    await ws.close();
  });

  it("lists what waits in the root's context, and not once it is decided", async () => {
    const { root, ws } = await project();
    const session = await ws.sessions.create();
    const model = scriptedModel([
      { toolCalls: [{ name: 'edit_file', input: { path: 'app.ts', old_string: '80', new_string: '8080' } }] },
      { text: 'Staged.' },
      { text: 'It waits for your review.' },
      { text: 'Done.' },
    ]);
    const worker = ws.worker({ session, model, actions: projectActions(), project: { root } });
    await worker.run('use 8080');
    expect(model.calls[0]?.system).not.toContain("Waiting for the user's clearance");
    await worker.run('is it in?');
    const [item] = ws.clearance.list();
    expect(model.calls[2]?.system).toContain(`## Waiting for the user's clearance`);
    expect(model.calls[2]?.system).toContain(`- ${item?.id} (staged commit, pending): Changes to app.ts`);
    await ws.clearance.discard(item?.id ?? '');
    await worker.run('and now?');
    expect(model.calls[3]?.system).not.toContain("Waiting for the user's clearance");
    await ws.close();
  });

  it('/clearance review shows each diff and asks for the decision at the terminal, and the status line hears of the change', async () => {
    const { root, ws } = await project();
    const first = await stageEdit(ws, root, '80', '8080');
    const input = new PassThrough();
    const output = new PassThrough();
    output.setEncoding('utf8');
    let shown = '';
    output.on('data', (chunk: string) => (shown += chunk));
    const session = ws.sessions.get(ws.clearance.get(first).sessionId);
    if (session === undefined) throw new Error('no session');
    const done = chat({ ws, session, model: undefined, root, input, output } as Parameters<typeof chat>[0]);
    input.write('/clearance review\n');
    input.write('p golem/review\n');
    input.write('/exit\n');
    expect(await done).toBe(0);
    expect(shown).toContain('+const port = 8080;');
    expect(shown).toContain('[Clearance] Changes to app.ts');
    expect(shown).toMatch(/✓ Pushed: Changes to app\.ts \(Committed to branch golem\/review/);
    expect(ws.clearance.get(first).status).toBe('pushed');
    await ws.close();
  });

  it('golem clearance push with no id pushes the one waiting, and with several names them', async () => {
    const { root, git, ws } = await project();
    const first = await stageEdit(ws, root, '80', '8080');
    await ws.close();
    const golem = async (...args: string[]) => {
      let stdout = '';
      let stderr = '';
      const input = Object.assign(new PassThrough(), { isTTY: false });
      const code = await run(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd: root, input });
      return { code, stdout, stderr };
    };
    const one = await golem('clearance', 'push');
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(`Pushed ${first}.`);
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toContain('8080');
    git('commit', '-qam', 'port 8080');
    const again = await createWorkspace({ dir: join(root, '.golem') });
    const a = await stageEdit(again, root, '"a"', '"x"');
    const b = await stageEdit(again, root, '8080', '9090');
    await again.close();
    const several = await golem('clearance', 'push');
    expect(several.code).not.toBe(0);
    expect(several.stderr).toContain('2 items wait for clearance; name one: golem clearance push <id>');
    expect(several.stderr).toContain(a);
    expect(several.stderr).toContain(b);
    const toBranch = await golem('clearance', 'push', b, '--to', 'golem/port');
    expect(toBranch.code).toBe(0);
    expect(toBranch.stdout).toContain('Committed to branch golem/port');
    const none = await golem('clearance', 'discard', a);
    expect(none.code).toBe(0);
    const empty = await golem('clearance', 'push');
    expect(empty.stderr).toContain('nothing waits for clearance');
  });

  it('a write of the content a file already has stages nothing: no empty "Changes to " item, and the model is told', async () => {
    const { root, ws } = await project();
    const session = await ws.sessions.create();
    const model = scriptedModel([{ toolCalls: [{ name: 'write_file', input: { path: 'app.ts', content: APP('"a"') } }] }, { text: 'Nothing changed.' }]);
    await ws.worker({ session, model, actions: projectActions(), project: { root } }).run('write it as it is');
    expect(ws.clearance.list({ all: true })).toEqual([]);
    expect(JSON.stringify(model.calls[1]?.messages)).toContain('Nothing to stage: the files already hold this content.');
    await ws.close();
  });

  it('a command that exits badly is a failed call: marked so, and the model reads it as an error with the exit code', async () => {
    const { root, ws } = await project();
    const session = await ws.sessions.create();
    const model = scriptedModel([{ toolCalls: [{ name: 'run_command', input: { command: 'echo one failing; exit 3' } }] }, { text: 'It failed.' }]);
    const outcome = await ws.worker({ session, model, actions: projectActions(), project: { root }, trust: { run_command: 'autonomous' } }).run('run it');
    expect(outcome.actions).toEqual([{ name: 'run_command', input: { command: 'echo one failing; exit 3' }, ok: false }]);
    const result = (await session.transcript()).flatMap((t) => t.blocks).find((b) => b.type === 'tool_result');
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('"exitCode":3') }] });
    await ws.close();
  });

  it('an edit undone by a later write leaves the open item holding no change: pushing it writes nothing', async () => {
    const { root, ws } = await project();
    const session = await ws.sessions.create();
    const model = scriptedModel([
      { toolCalls: [{ name: 'edit_file', input: { path: 'app.ts', old_string: '80', new_string: '8080' } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'app.ts', content: APP('"a"') } }] },
      { text: 'Put it back.' },
    ]);
    await ws.worker({ session, model, actions: projectActions(), project: { root } }).run('change it, then undo');
    const [item] = ws.clearance.list();
    expect(item?.description).toBe('No changes left: the staged edits were undone');
    expect(await ws.clearance.diff(item?.id ?? '')).toBe('');
    await ws.clearance.push(item?.id ?? '');
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe(APP('"a"'));
    await ws.close();
  });
});

/**
 * Git's data and Golem's workspace are not the project's files (issue 35, findings 5 and 8).
 * Their names are refused however they are spelled (any case, Unicode lookalikes that fold to
 * them, trailing dots and spaces, NTFS streams and 8.3 short names) at any depth, on every
 * write path (write_file, edit_file, a staging view, a staged push) and every read; a
 * workspace kept elsewhere inside the project is refused too, the whole of its folder (its
 * chat history and whatever else it holds, on SQLite and on PostgreSQL), and search never
 * reaches a hidden file. Golem's own git calls never run what the repository's config names
 * (fsmonitor, hooks, pager). Real git repositories, real workspaces on disk and on
 * PostgreSQL, `createGolemHandler` with two users.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Action, ActionContext } from '../src/action/action.js';
import { createWorkspace, projectActions } from '../src/index.js';
import { createGolemHandler, type GolemHandler, type GolemHandlerOptions } from '../src/serve/index.js';
import { scriptedModel, type ScriptedModel, type ScriptedResponse } from '../src/test/index.js';
import { GitStaging, type StageRef } from '../src/project/git-staging.js';
import { DiskFiles } from '../src/project/project-files.js';
import { workspaceFiles } from '../src/agent/workspace-files.js';
import { historyPath, InputHistory } from '../src/cli/input-history.js';
import { tempDir } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const actions = projectActions();

/** Validates then runs, as the worker does. */
async function call(name: string, input: unknown, ctx: ActionContext): Promise<unknown> {
  const action = actions.find((a: Action) => a.name === name);
  if (action === undefined) throw new Error(`no action ${name}`);
  const valid = action.validate(input);
  if (!valid.ok) throw valid.error;
  return action.run(valid.value, ctx);
}

function gitIn(root: string) {
  return (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd: root, encoding: 'utf8' });
}

/** A repository with one commit, and a nested repository `sub` inside it. */
function repository(): { root: string; git: (...args: string[]) => string } {
  const root = tempDir();
  const git = gitIn(root);
  git('init', '-q', '-b', 'main');
  writeFileSync(join(root, 'app.ts'), 'export const a = 1;\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  mkdirSync(join(root, 'sub'));
  gitIn(join(root, 'sub'))('init', '-q', '-b', 'main');
  return { root, git };
}

/** Every file under `dir`, as '/' paths, but for what git itself keeps in `.git/` (the test's own git commands write there). */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    `${prefix}${e.name}` === '.git' ? [] : e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/** Spellings of .git and .golem that a case-insensitive, Unicode-folding or Windows file system takes for them. */
const DISGUISED = [
  '.GIT/hooks/pre-commit',
  '.Git/config',
  'sub/.git/config',
  'sub/.Git/hooks/post-checkout',
  '.git./config',
  '.git /config',
  '.git. . /config',
  '.git::$INDEX_ALLOCATION/config',
  'GIT~1/config',
  'sub/git~1/config',
  '\uFF0E\uFF47\uFF49\uFF54/config', // fullwidth ．ｇｉｔ (NFKC folds it)
  '.g\u200Cit/config', // a zero-width non-joiner, which HFS+ ignores
  '.g\u0131t/config', // a dotless ı, which NTFS upper-cases to I
  '.GOLEM/workspace.db',
  'sub/.Golem/blobs/x',
  'GOLEM~1/workspace.db',
  'sub\\.git\\config', // a backslash is a separator on Windows
];

describe('.git and .golem, however they are spelled, at any depth', () => {
  it('write_file and edit_file refuse them with PATH_PROTECTED and write nothing', async () => {
    const { root } = repository();
    const before = filesUnder(root).sort();
    const ctx = { files: new DiskFiles(root) };
    for (const path of DISGUISED) {
      await expect(call('write_file', { path, content: '#!/bin/sh\ntouch pwned\n' }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
      await expect(call('edit_file', { path, old_string: '[core]', new_string: '[evil]' }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
    }
    expect(filesUnder(root).sort()).toEqual(before);
    expect(existsSync(join(root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(root, '.git', 'config'), 'utf8')).not.toContain('evil');
    expect(existsSync(join(root, 'pwned'))).toBe(false);
  });

  it('reads, listings, searches and a command’s folder leave them out too', async () => {
    const { root } = repository();
    writeFileSync(join(root, 'notes.md'), 'a note\n');
    symlinkSync(join(root, '.git'), join(root, 'gitlink'));
    const ctx = { files: new DiskFiles(root) };
    for (const path of ['.git/config', '.GIT/config', 'sub/.git/HEAD', '.git./HEAD', 'gitlink/config']) {
      await expect(call('read_file', { path }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
      await expect(call('search_files', { pattern: 'core', path }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
    }
    for (const path of ['.git', 'sub/.git', '.git/hooks', 'gitlink']) {
      await expect(call('list_files', { path }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
      await expect(call('run_command', { command: 'touch made-here', cwd: path }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
    }
    expect(await call('search_files', { pattern: 'repositoryformatversion|a note' }, ctx)).toBe('notes.md:1: a note');
    expect(await call('list_files', { path: 'sub' }, ctx)).toBe('No files in "sub".'); // an untracked nested repository is not listed by git
    expect(existsSync(join(root, '.git', 'made-here'))).toBe(false);
  });

  it('a staging view, staging and a push of a staged change refuse them, writing nothing', async () => {
    const { root, git } = repository();
    const staging = await GitStaging.open({ root, shadowDir: join(root, '.golem', 'staging.git') });
    const view = staging.view(null, new DiskFiles(root));
    for (const path of DISGUISED) {
      await expect(view.write(path, Buffer.from('evil')), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
      await expect(staging.stage('item-1', null, [{ path, content: Buffer.from('evil') }], 'Evil'), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
    }
    expect(view.changes()).toEqual([]);
    expect(git('branch', '--list', 'golem/staged/*')).toBe('');

    // A staged change that names such a file (built with git's plumbing, as a forged record would be) is not pushed.
    const before = filesUnder(root).sort();
    const base = git('rev-parse', 'HEAD').trim();
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: root, input: '#!/bin/sh\ntouch pwned\n', encoding: 'utf8' }).trim();
    const mktree = (entries: string) => execFileSync('git', ['mktree'], { cwd: root, input: entries, encoding: 'utf8' }).trim();
    const hooks = mktree(`100755 blob ${blob}\tpre-commit\n`);
    for (const [folder, files] of [
      ['.GIT', ['.GIT/hooks/pre-commit']],
      ['.git.', ['.git./hooks/pre-commit']],
    ] as const) {
      const dotGit = mktree(`040000 tree ${hooks}\thooks\n`);
      const tree = mktree(`${git('ls-tree', base)}040000 tree ${dotGit}\t${folder}\n`);
      const head = git('commit-tree', tree, '-p', base, '-m', 'forged').trim();
      const ref: StageRef = { branch: 'golem/staged/forged', base, head, files: [...files] };
      await expect(staging.push(ref), folder).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
    }
    expect(filesUnder(root).sort()).toEqual(before);
  });
});

/** Scripts at the paths a repository's config names, each leaving a marker file when run. */
function trap(root: string): { markers: string } {
  const markers = tempDir();
  const scripts = tempDir();
  const script = (name: string) => {
    const path = join(scripts, `${name}.sh`);
    writeFileSync(path, `#!/bin/sh\ntouch '${join(markers, name)}'\n`);
    chmodSync(path, 0o755);
    return path;
  };
  const hooks = join(root, '.githooks');
  mkdirSync(hooks);
  for (const name of [
    'pre-commit',
    'post-commit',
    'reference-transaction',
    'post-index-change',
    'post-checkout',
    'post-merge',
    'pre-auto-gc',
    'post-rewrite',
  ]) {
    writeFileSync(join(hooks, name), `#!/bin/sh\ntouch '${join(markers, name)}'\n`);
    chmodSync(join(hooks, name), 0o755);
  }
  const git = gitIn(root);
  git('config', 'core.fsmonitor', script('fsmonitor'));
  git('config', 'core.hooksPath', hooks);
  git('config', 'core.pager', script('pager'));
  git('config', 'pager.ls-files', script('pager-ls-files'));
  // Hooks in the usual place, too.
  for (const name of ['reference-transaction', 'post-index-change']) {
    writeFileSync(join(root, '.git', 'hooks', name), `#!/bin/sh\ntouch '${join(markers, `git-${name}`)}'\n`);
    chmodSync(join(root, '.git', 'hooks', name), 0o755);
  }
  return { markers };
}

describe('Golem’s own git calls', () => {
  it('never run the fsmonitor, hooks or pager a repository’s config names: listing, search, staging, diff, push, push to a branch', async () => {
    const { root, git } = repository();
    const { markers } = trap(root);
    // Sanity: git run plainly does run them.
    gitIn(root)('ls-files');
    expect(readdirSync(markers)).toContain('fsmonitor');
    for (const name of readdirSync(markers)) execFileSync('rm', [join(markers, name)]);

    const ctx = { files: new DiskFiles(root) };
    expect(await call('list_files', {}, ctx)).toContain('app.ts');
    expect(await call('search_files', { pattern: 'export' }, ctx)).toContain('app.ts:1:');
    const staging = await GitStaging.open({ root, shadowDir: join(root, '.golem', 'staging.git') });
    const ref = await staging.stage('item-1', null, [{ path: 'app.ts', content: Buffer.from('export const a = 2;\n') }], 'Edit');
    expect(await staging.diff(ref)).toContain('+export const a = 2;');
    await staging.push(ref);
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe('export const a = 2;\n');
    git('commit', '-qam', 'two', '--no-verify');
    for (const name of readdirSync(markers)) execFileSync('rm', [join(markers, name)]); // the test's own commit ran hooks
    const again = await staging.stage('item-2', null, [{ path: 'app.ts', content: Buffer.from('export const a = 3;\n') }], 'Edit');
    await staging.pushTo(again, 'golem/three');
    expect(git('show', 'golem/three:app.ts')).toBe('export const a = 3;\n');
    expect(readdirSync(markers)).toEqual([]);
  });
});

describe('another user’s agent and the workspace’s files (a folder that is not a repository)', () => {
  const SECRET = 'receipt-4711 of ann';
  const byHeader: GolemHandlerOptions = { auth: false, user: (request) => request.headers.get('x-user') };

  /** Sends `body` to the handler as `user`. */
  const as =
    (handler: GolemHandler, user: string) =>
    async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await handler.fetch(
        new Request(`http://app.test${path}`, {
          method,
          headers: { 'content-type': 'application/json', 'x-user': user, ...headers },
          ...(body !== undefined && { body: body instanceof Uint8Array ? Uint8Array.from(body) : JSON.stringify(body) }),
        }),
      );
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };

  /** The tool results in the prompts the model was given, by the call they answer. */
  const results = (model: ScriptedModel) =>
    new Map(
      model.calls
        .flatMap((prompt) => prompt.messages.flatMap((m) => m.content))
        .flatMap((part) => (part.type === 'tool-result' ? [[part.callId, JSON.stringify(part.output)] as const] : [])),
    );

  it.each([
    ['.golem', ['.golem/blobs', '.golem/workspace.db', '.GOLEM/blobs', '.golem./workspace.db']],
    ['data/ws', ['data/ws/blobs', 'data/ws/workspace.db', 'DATA/WS/blobs', 'data/ws/workspace.db-wal']],
  ])('with the workspace in %s: user B’s agent neither lists, searches nor reads user A’s upload', async (dir, workspacePaths) => {
    const root = tempDir();
    writeFileSync(join(root, 'notes.md'), 'a note\n');
    const ws = await createWorkspace({ dir: join(root, dir) });
    const cleanup: (() => Promise<void>)[] = [() => ws.close()];
    try {
      const [blobs, db, blobsSpelled, dbSpelled] = workspacePaths as [string, string, string, string];
      const script: ScriptedResponse[] = [];
      const model = scriptedModel((_prompt, call) => script[call] ?? { text: 'Done.' });
      const golem = await createGolemHandler(ws, { ...byHeader, agent: { model, actions: projectActions(), project: { root } } });
      cleanup.unshift(() => golem.close());
      const ann = as(golem, 'ann');
      const bob = as(golem, 'bob');

      // Ann uploads a file to a form her agent built.
      const anns = (await ann('POST', '/api/sessions', {})).json as { id: string };
      await ws.ui.patch(
        {
          instanceId: '__CREATE__',
          newInstanceId: 'receipt',
          patches: [
            {
              op: 'set',
              path: 'blocks',
              value: [{ id: 'f', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Receipt', key: 'r', type: 'file' }] } }],
            },
          ],
        },
        { builtBy: anns.id },
      );
      const upload = await ann('POST', '/api/ui/receipt/files/r', new TextEncoder().encode(SECRET), { 'content-type': 'text/plain', 'x-file-name': 'r.txt' });
      expect(upload.status).toBe(201);
      const sha256 = upload.json.sha256 as string;
      expect(readFileSync(join(root, dir, 'blobs', sha256), 'utf8')).toBe(SECRET); // where it is on disk

      // Bob's agent goes looking for it.
      script.push({
        toolCalls: [
          { name: 'list_files', input: {}, callId: 'list' },
          { name: 'search_files', input: { pattern: 'receipt-\\d+' }, callId: 'search' },
          { name: 'search_files', input: { pattern: 'receipt-\\d+', path: blobs }, callId: 'search-blobs' },
          { name: 'list_files', input: { path: blobs }, callId: 'list-blobs' },
          { name: 'read_file', input: { path: `${blobs}/${sha256}` }, callId: 'read-blob' },
          { name: 'read_file', input: { path: db }, callId: 'read-db' },
          { name: 'read_file', input: { path: `${blobsSpelled}/${sha256}` }, callId: 'read-spelled' },
          { name: 'read_file', input: { path: dbSpelled }, callId: 'read-db-spelled' },
        ],
      });
      const bobs = (await bob('POST', '/api/sessions', {})).json as { id: string };
      expect((await bob('POST', `/api/sessions/${bobs.id}/messages`, { text: 'find receipts' })).status).toBeLessThan(300);
      await golem.settled(bobs.id);

      const seen = results(model);
      expect(seen.get('list')).toBe(JSON.stringify({ type: 'text', text: 'notes.md' }));
      expect(seen.get('search')).toBe(JSON.stringify({ type: 'text', text: 'No matches for /receipt-\\d+/.' }));
      for (const id of ['search-blobs', 'list-blobs', 'read-blob', 'read-db', 'read-spelled', 'read-db-spelled'])
        expect(seen.get(id), id).toMatch(/failed: PATH_PROTECTED: .* is inside .*, which actions may not read or change/);
      expect([...seen.values()].join('\n')).not.toContain('4711');
    } finally {
      for (const close of cleanup) await close();
    }
  });
});

describe('a workspace kept in a folder of the project (`golem serve --dir data`)', () => {
  const SECRET = 'sk-live-4711';

  it('kept in the project folder itself (`--dir .`): the database, blobs and chat history are still refused', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'notes.md'), 'a note\n');
    const ws = await createWorkspace({ dir: root });
    try {
      new InputHistory(historyPath(root, root)).add(`deploy with ${SECRET}`);
      const ctx = { files: new DiskFiles(root, { hidden: workspaceFiles(ws.manager) }) };
      for (const path of ['history', 'HISTORY', 'workspace.db', 'blobs']) {
        await expect(call('read_file', { path }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
      }
      expect(await call('search_files', { pattern: SECRET }, ctx)).toBe(`No matches for /${SECRET}/.`);
      expect(await call('read_file', { path: 'notes.md' }, ctx)).toContain('a note');
    } finally {
      await ws.close();
    }
  });

  it.each([
    ['SQLite', () => ({})],
    ['PostgreSQL', () => ({ env: { GOLEM_DATABASE_URL: PG_URL, GOLEM_DATABASE_SCHEMA: freshSchema('protect') } })],
  ])('on %s: all of the folder (chat history, logs, locks) is refused to every project action, and nothing is written there', async (_store, options) => {
    const root = tempDir();
    writeFileSync(join(root, 'notes.md'), 'a note\n');
    const dir = join(root, 'data');
    const ws = await createWorkspace({ dir, ...options() });
    try {
      // What Golem keeps there besides the store: the chat prompt's history (the CLI's), and whatever else lands in the folder.
      mkdirSync(dir, { recursive: true });
      new InputHistory(historyPath(dir, root)).add(`deploy with ${SECRET}`);
      writeFileSync(join(dir, 'serve.log'), `started with ${SECRET}\n`);
      const kept = () => ['history', 'serve.log', 'run.lock'].map((f) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : null));
      const before = kept();
      expect(before).toEqual([`"deploy with ${SECRET}"\n`, `started with ${SECRET}\n`, null]);

      // The files the worker, staging and clearance are given.
      const ctx = { files: new DiskFiles(root, { hidden: workspaceFiles(ws.manager) }) };
      for (const path of ['data/history', 'DATA/History', 'data./serve.log']) {
        await expect(call('read_file', { path }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
        await expect(call('search_files', { pattern: 'sk', path }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
        await expect(call('write_file', { path, content: 'x' }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
        await expect(call('edit_file', { path, old_string: 'deploy', new_string: 'x' }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
      }
      await expect(call('write_file', { path: 'data/run.lock', content: 'x' }, ctx)).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
      for (const path of ['data', 'Data']) {
        await expect(call('list_files', { path }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
        await expect(call('run_command', { command: 'touch made-here', cwd: path }, ctx), path).rejects.toMatchObject({ code: 'PATH_PROTECTED' });
      }
      expect(await call('list_files', {}, ctx)).toBe('notes.md');
      expect(await call('search_files', { pattern: SECRET }, ctx)).toBe(`No matches for /${SECRET}/.`);

      // A worker's run, whose writes are staged for clearance (manual mode), is refused the same.
      const model = scriptedModel([
        {
          toolCalls: [
            { name: 'read_file', input: { path: 'data/history' } },
            { name: 'list_files', input: {} },
            { name: 'search_files', input: { pattern: SECRET } },
            { name: 'write_file', input: { path: 'data/history', content: '"rm -rf ~"\n' } },
            { name: 'edit_file', input: { path: 'data/serve.log', old_string: 'started', new_string: 'stopped' } },
            { name: 'write_file', input: { path: 'data/run.lock', content: 'x' } },
          ],
        },
        { text: 'Done.' },
      ]);
      const session = await ws.sessions.create();
      const outcome = await ws.worker({ session, model, actions: projectActions(), project: { root } }).run('look around');
      expect(outcome.actions.map((a) => [a.name, a.ok])).toEqual([
        ['read_file', false],
        ['list_files', true],
        ['search_files', true],
        ['write_file', false],
        ['edit_file', false],
        ['write_file', false],
      ]);
      const told = JSON.stringify((await session.transcript()).flatMap((t) => t.blocks.filter((b) => b.type === 'tool_result')));
      expect(told).not.toMatch(/deploy with|started with/); // what the files hold
      expect(told).toContain(JSON.stringify({ type: 'text', text: 'notes.md' }));
      expect(told.match(/is inside Golem's workspace, which actions may not read or change/g)).toHaveLength(4);
      expect(ws.clearance.list()).toEqual([]);
      expect(kept()).toEqual(before);
      expect(existsSync(join(dir, 'made-here'))).toBe(false);
    } finally {
      await ws.close();
    }
  });

  it('search_files never reaches a hidden file: not read, not counted, not named', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'notes.md'), 'a note\n');
    mkdirSync(join(root, 'data'));
    writeFileSync(join(root, 'data', 'small.log'), `${SECRET}\n`);
    // Over the 1 MiB a search reads: a search that reached it would say it skipped one large file.
    writeFileSync(join(root, 'data', 'big.log'), `${SECRET}\n${'x'.repeat(2 * 1024 * 1024)}\n`);
    const ctx = { files: new DiskFiles(root, { hidden: [join(root, 'data')] }) };
    expect(await call('search_files', { pattern: SECRET }, ctx)).toBe(`No matches for /${SECRET}/.`);
    expect(await call('search_files', { pattern: 'note|sk-' }, ctx)).toBe('notes.md:1: a note');
    expect(await call('list_files', {}, ctx)).toBe('notes.md');
  });
});

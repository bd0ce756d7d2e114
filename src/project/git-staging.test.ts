import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitStaging, type StageRef } from './git-staging.js';
import { DiskFiles } from './project-files.js';
import { GolemError } from '../core/errors.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary folder (real path), removed after the test. */
function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'golem-staging-test-')));
  dirs.push(dir);
  return dir;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Tester',
  GIT_AUTHOR_EMAIL: 'tester@example.com',
  GIT_COMMITTER_NAME: 'Tester',
  GIT_COMMITTER_EMAIL: 'tester@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });
}

function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A git repository with `files` committed on main. */
function repo(files: Record<string, string | Buffer>): string {
  const dir = temp();
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

const read = (root: string, path: string) => readFileSync(join(root, path), 'utf8');
const open = (root: string) => GitStaging.open({ root, shadowDir: join(temp(), 'shadow') });
const changes = (files: Record<string, string | Buffer | null>) =>
  Object.entries(files).map(([path, content]) => ({ path, content: typeof content === 'string' ? Buffer.from(content) : content }));
const branches = (dir: string) => git(dir, 'branch', '--list', 'golem/*', '--format=%(refname:short)').trim();

/** The GolemError `run` throws or rejects with. */
async function failure(run: () => unknown): Promise<GolemError> {
  try {
    await run();
  } catch (error) {
    if (GolemError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a GolemError');
}

const LINES = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n';

describe('GitStaging in a git repository', () => {
  it('stages an edit in git without touching the files, the index or HEAD', async () => {
    const dir = repo({ 'a.txt': LINES, 'b.txt': 'bee\n' });
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const index = readFileSync(join(dir, '.git/index'));
    const staging = await open(dir);
    expect(staging.mode).toBe('repository');
    expect(staging.root).toBe(dir);

    const ref = await staging.stage('item-1', null, changes({ 'a.txt': LINES.replace('two', 'TWO') }), 'Edit a');
    expect(ref.branch).toBe('golem/staged/item-1');
    expect(ref.files).toEqual(['a.txt']);
    expect(read(dir, 'a.txt')).toBe(LINES);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(git(dir, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    expect(readFileSync(join(dir, '.git/index')).equals(index)).toBe(true);
    // The branch is a real one: head on base on HEAD, authored by Golem.
    expect(git(dir, 'rev-parse', 'golem/staged/item-1').trim()).toBe(ref.head);
    expect(git(dir, 'rev-parse', `${ref.head}^`).trim()).toBe(ref.base);
    expect(git(dir, 'rev-parse', `${ref.base}^`).trim()).toBe(head);
    expect(git(dir, 'show', 'golem/staged/item-1:a.txt')).toBe(LINES.replace('two', 'TWO'));
    expect(git(dir, 'log', '-1', '--format=%s|%an|%ce', 'golem/staged/item-1').trim()).toBe('Edit a|Golem|golem@localhost');
    expect(git(dir, 'show', '--format=', '--name-only', 'golem/staged/item-1').trim()).toBe('a.txt');
  });

  it('gives a view that reads the staged content, its own writes, and the disk for the rest', async () => {
    const dir = repo({ 'a.txt': LINES, 'b.txt': 'bee\n' });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': 'staged\n', 'gone.txt': null }), 'Edit');
    const view = staging.view(ref, new DiskFiles(dir));
    expect(view.kind).toBe('staged');
    expect(view.root).toBe(dir);
    expect((await view.read('a.txt'))?.toString()).toBe('staged\n');
    expect((await view.read(join(dir, 'b.txt')))?.toString()).toBe('bee\n');
    expect(await view.read('missing.txt')).toBeNull();

    await view.write('c/new.txt', Buffer.from('new\n'));
    await view.write('b.txt', null);
    await view.write('a.txt', Buffer.from('again\n'));
    expect((await view.read('c/new.txt'))?.toString()).toBe('new\n');
    expect(await view.read('b.txt')).toBeNull();
    expect((await view.read('a.txt'))?.toString()).toBe('again\n');
    expect(view.changes()).toEqual([
      { path: 'a.txt', content: Buffer.from('again\n') },
      { path: 'b.txt', content: null },
      { path: 'c/new.txt', content: Buffer.from('new\n') },
    ]);
    // Nothing reached the disk.
    expect(read(dir, 'a.txt')).toBe(LINES);
    expect(read(dir, 'b.txt')).toBe('bee\n');
    expect(existsSync(join(dir, 'c'))).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // Without a ref the view reads the disk.
    expect((await staging.view(null, new DiskFiles(dir)).read('a.txt'))?.toString()).toBe(LINES);
  });

  it('diffs base..head with project-relative paths', async () => {
    const dir = repo({ 'a.txt': LINES, 'b.txt': 'bee\n' });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': LINES.replace('two', 'TWO'), 'dir/new.txt': 'hello\n' }), 'Edit');
    const diff = await staging.diff(ref);
    expect(diff).toContain('diff --git a/a.txt b/a.txt\n');
    expect(diff).toContain('\n-two\n+TWO\n');
    expect(diff).toContain('diff --git a/dir/new.txt b/dir/new.txt\nnew file mode 100644\n');
    expect(diff).toContain('+++ b/dir/new.txt\n@@ -0,0 +1 @@\n+hello\n');
    expect(diff).not.toContain('b.txt');
    expect(diff).toBe(git(dir, 'diff', '--no-color', ref.base, ref.head));
  });

  it('pushes edits, deletions and new files in new folders, then drops the branch', async () => {
    const dir = repo({ 'a.txt': LINES, 'gone/only.txt': 'bye\n', 'keep.txt': 'keep\n' });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': 'edited\n', 'gone/only.txt': null, 'new/deep/file.txt': 'created\n' }), 'Edit');
    expect(ref.files).toEqual(['a.txt', 'gone/only.txt', 'new/deep/file.txt']);

    expect(await staging.push(ref)).toEqual({ files: ['a.txt', 'gone/only.txt', 'new/deep/file.txt'] });
    expect(read(dir, 'a.txt')).toBe('edited\n');
    expect(existsSync(join(dir, 'gone/only.txt'))).toBe(false);
    expect(existsSync(join(dir, 'gone'))).toBe(false);
    expect(read(dir, 'new/deep/file.txt')).toBe('created\n');
    expect(read(dir, 'keep.txt')).toBe('keep\n');
    expect(git(dir, 'status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual([' D gone/only.txt', ' M a.txt', '?? new/']);
    expect(branches(dir)).toBe('');
  });

  it('merges the staged changes with changes the user made since to other lines of the same file', async () => {
    const dir = repo({ 'a.txt': LINES });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': LINES.replace('two', 'TWO') }), 'Edit');
    writeFileSync(join(dir, 'a.txt'), LINES.replace('nine', 'NINE'));

    expect(await staging.push(ref)).toEqual({ files: ['a.txt'] });
    expect(read(dir, 'a.txt')).toBe(LINES.replace('two', 'TWO').replace('nine', 'NINE'));
  });

  it('skips a file that already holds the staged content', async () => {
    const dir = repo({ 'a.txt': LINES, 'b.txt': 'bee\n' });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': 'done\n', 'b.txt': 'B\n' }), 'Edit');
    writeFileSync(join(dir, 'a.txt'), 'done\n');

    expect(await staging.push(ref)).toEqual({ files: ['b.txt'] });
    expect(read(dir, 'a.txt')).toBe('done\n');
    expect(read(dir, 'b.txt')).toBe('B\n');
  });

  it('refuses to push conflicting changes and writes no file at all', async () => {
    const dir = repo({ 'a.txt': LINES, 'b.txt': 'bee\n', 'c.txt': 'sea\n' });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': LINES.replace('two', 'TWO'), 'b.txt': 'clean edit\n', 'c.txt': null }), 'Edit');
    writeFileSync(join(dir, 'a.txt'), LINES.replace('two', 'deux'));
    writeFileSync(join(dir, 'c.txt'), 'user edit\n');

    const error = await failure(() => staging.push(ref));
    expect(error.code).toBe('CLEARANCE_CONFLICT');
    expect(error.details.files).toEqual(['a.txt', 'c.txt']);
    expect(read(dir, 'a.txt')).toBe(LINES.replace('two', 'deux'));
    expect(read(dir, 'b.txt')).toBe('bee\n');
    expect(read(dir, 'c.txt')).toBe('user edit\n');
    expect(branches(dir)).toBe('golem/staged/item-1');
  });

  it('discards: the files stay as they are and the branch goes, twice over', async () => {
    const dir = repo({ 'a.txt': LINES });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': 'x\n', 'new.txt': 'y\n' }), 'Edit');
    expect(branches(dir)).toBe('golem/staged/item-1');

    await staging.discard(ref);
    await staging.discard(ref);
    expect(branches(dir)).toBe('');
    expect(read(dir, 'a.txt')).toBe(LINES);
    expect(existsSync(join(dir, 'new.txt'))).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('accumulates stages of one item, capturing the base of newly touched files from the disk', async () => {
    const dir = repo({ 'a.txt': LINES, 'b.txt': 'bee\n' });
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const staging = await open(dir);
    const first = await staging.stage('item-1', null, changes({ 'a.txt': LINES.replace('two', 'TWO') }), 'First');

    // The second edit is made on what the first staged.
    const view = staging.view(first, new DiskFiles(dir));
    await view.write('a.txt', Buffer.from(((await view.read('a.txt'))?.toString() ?? '').replace('three', 'THREE')));
    const second = await staging.stage('item-1', first, view.changes(), 'Second');
    expect(second.base).toBe(first.base);
    expect(git(dir, 'rev-parse', `${second.head}^`).trim()).toBe(first.base);
    expect(git(dir, 'show', `${second.head}:a.txt`)).toBe(LINES.replace('two', 'TWO').replace('three', 'THREE'));
    expect(git(dir, 'rev-parse', 'golem/staged/item-1').trim()).toBe(second.head);

    // The user changes b.txt, then the model touches it: the user's version is its base.
    writeFileSync(join(dir, 'b.txt'), 'bee by the user\n');
    const third = await staging.stage('item-1', second, changes({ 'b.txt': 'bee by the user\nand the model\n' }), 'Third');
    expect(third.base).not.toBe(second.base);
    expect(third.files).toEqual(['a.txt', 'b.txt']);
    expect(git(dir, 'rev-parse', `${third.base}^`).trim()).toBe(head);
    expect(git(dir, 'show', `${third.base}:b.txt`)).toBe('bee by the user\n');
    expect(git(dir, 'show', `${third.base}:a.txt`)).toBe(LINES);
    const diff = await staging.diff(third);
    expect(diff).toContain('-two\n-three\n+TWO\n+THREE\n');
    expect(diff).toContain(' bee by the user\n+and the model\n');
    expect(diff).not.toContain('-bee\n');

    expect(await staging.push(third)).toEqual({ files: ['a.txt', 'b.txt'] });
    expect(read(dir, 'a.txt')).toBe(LINES.replace('two', 'TWO').replace('three', 'THREE'));
    expect(read(dir, 'b.txt')).toBe('bee by the user\nand the model\n');
  });

  it('refuses a ref of another item and ids that cannot name a branch', async () => {
    const dir = repo({ 'a.txt': LINES });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': 'x\n' }), 'Edit');
    expect((await failure(() => staging.stage('item-2', ref, changes({ 'a.txt': 'y\n' }), 'Edit'))).code).toBe('INVALID_ARGUMENT');
    for (const id of ['', '../x', 'a/b', '-x', 'a..b', 'x.lock', 'a b']) {
      expect((await failure(() => staging.stage(id, null, changes({ 'a.txt': 'y\n' }), 'Edit'))).code).toBe('INVALID_ARGUMENT');
    }
    const forged: StageRef = { ...ref, branch: 'main' };
    expect((await failure(() => staging.discard(forged))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(() => staging.diff({ ...ref, base: '--output=/tmp/x' }))).code).toBe('INVALID_ARGUMENT');
    expect(git(dir, 'rev-parse', 'main').trim()).toBe(git(dir, 'rev-parse', 'HEAD').trim());
  });

  it("takes the user's uncommitted changes as the base, so the diff shows only the model's edit", async () => {
    const dir = repo({ 'a.txt': LINES });
    writeFileSync(join(dir, 'a.txt'), LINES.replace('one', 'ONE by the user'));
    writeFileSync(join(dir, 'untracked.txt'), 'mine\n');
    const staging = await open(dir);
    const view = staging.view(null, new DiskFiles(dir));
    await view.write('a.txt', Buffer.from(((await view.read('a.txt'))?.toString() ?? '').replace('nine', 'NINE')));
    await view.write('untracked.txt', Buffer.from('mine\nand the model\n'));
    const ref = await staging.stage('item-1', null, view.changes(), 'Edit');

    const diff = await staging.diff(ref);
    expect(diff).toContain('-nine\n+NINE\n');
    expect(diff).not.toContain('-one');
    expect(diff).toContain('diff --git a/untracked.txt b/untracked.txt\nindex ');
    expect(diff).toContain(' mine\n+and the model\n');
    expect(git(dir, 'show', `${ref.base}:a.txt`)).toBe(LINES.replace('one', 'ONE by the user'));

    expect(await staging.push(ref)).toEqual({ files: ['a.txt', 'untracked.txt'] });
    expect(read(dir, 'a.txt')).toBe(LINES.replace('one', 'ONE by the user').replace('nine', 'NINE'));
    expect(read(dir, 'untracked.txt')).toBe('mine\nand the model\n');
  });

  it('round-trips binary content byte for byte', async () => {
    const bytes = Buffer.from(Array.from({ length: 1024 }, (_, i) => (i * 7) % 256));
    const dir = repo({ 'image.bin': Buffer.from([0, 1, 2, 0]) });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'image.bin': bytes, 'other.bin': Buffer.from([0xff, 0, 0xfe, 0x0a, 0x0d]) }), 'Binary');
    expect((await staging.view(ref, new DiskFiles(dir)).read('image.bin'))?.equals(bytes)).toBe(true);
    expect(await staging.diff(ref)).toContain('Binary files a/image.bin and b/image.bin differ');
    expect(readFileSync(join(dir, 'image.bin')).equals(Buffer.from([0, 1, 2, 0]))).toBe(true);

    await staging.push(ref);
    expect(readFileSync(join(dir, 'image.bin')).equals(bytes)).toBe(true);
    expect(readFileSync(join(dir, 'other.bin')).equals(Buffer.from([0xff, 0, 0xfe, 0x0a, 0x0d]))).toBe(true);
  });

  it('keeps the executable bit of a file', async () => {
    const dir = temp();
    git(dir, 'init', '-q', '-b', 'main');
    writeFiles(dir, { 'run.sh': '#!/bin/sh\necho hi\n' });
    chmodSync(join(dir, 'run.sh'), 0o755);
    git(dir, 'add', '-A');
    git(dir, 'update-index', '--chmod=+x', 'run.sh');
    git(dir, 'commit', '-q', '-m', 'initial');
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'run.sh': '#!/bin/sh\necho bye\n' }), 'Edit');

    expect(git(dir, 'ls-tree', ref.head, 'run.sh')).toMatch(/^100755 blob /);
    expect(git(dir, 'ls-tree', ref.base, 'run.sh')).toMatch(/^100755 blob /);
    expect(await staging.diff(ref)).not.toContain('mode');
    await staging.push(ref);
    expect(read(dir, 'run.sh')).toBe('#!/bin/sh\necho bye\n');
    expect(statSync(join(dir, 'run.sh')).mode & 0o111).toBe(0o111);
  });

  it('refuses paths outside the project and inside .git', async () => {
    const dir = repo({ 'a.txt': LINES });
    const outside = temp();
    symlinkSync(outside, join(dir, 'link'));
    const staging = await open(dir);
    const view = staging.view(null, new DiskFiles(dir));
    for (const [path, code] of [
      ['../evil.txt', 'PATH_OUTSIDE_PROJECT'],
      [join(outside, 'evil.txt'), 'PATH_OUTSIDE_PROJECT'],
      ['link/evil.txt', 'PATH_OUTSIDE_PROJECT'],
      ['.git/config', 'PATH_PROTECTED'],
      ['.git/hooks/pre-commit', 'PATH_PROTECTED'],
    ]) {
      expect((await failure(() => view.write(path!, Buffer.from('x')))).code).toBe(code);
      expect((await failure(() => staging.stage('item-1', null, changes({ [path!]: 'x' }), 'Evil'))).code).toBe(code);
    }
    expect((await failure(() => view.read('../evil.txt'))).code).toBe('PATH_OUTSIDE_PROJECT');
    expect(view.changes()).toEqual([]);
    expect(readdirSync(outside)).toEqual([]);
    expect(branches(dir)).toBe('');
  });

  it('works for a project in a subfolder of the repository, with paths relative to the project', async () => {
    const top = repo({ 'top.txt': 'top\n', 'pkg/app/a.txt': LINES, 'pkg/other.txt': 'other\n' });
    const dir = join(top, 'pkg/app');
    const staging = await open(dir);
    expect(staging.root).toBe(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': LINES.replace('two', 'TWO'), 'sub/new.txt': 'new\n' }), 'Edit');
    expect(ref.files).toEqual(['a.txt', 'sub/new.txt']);
    expect(git(top, 'show', `${ref.head}:pkg/app/a.txt`)).toBe(LINES.replace('two', 'TWO'));
    expect(git(top, 'show', `${ref.head}:top.txt`)).toBe('top\n');
    expect((await staging.view(ref, new DiskFiles(dir)).read('a.txt'))?.toString()).toBe(LINES.replace('two', 'TWO'));
    const diff = await staging.diff(ref);
    expect(diff).toContain('diff --git a/a.txt b/a.txt\n');
    expect(diff).toContain('diff --git a/sub/new.txt b/sub/new.txt\n');
    expect(diff).not.toContain('pkg/');
    expect(git(top, 'status', '--porcelain')).toBe('');

    expect(await staging.push(ref)).toEqual({ files: ['a.txt', 'sub/new.txt'] });
    expect(read(top, 'pkg/app/a.txt')).toBe(LINES.replace('two', 'TWO'));
    expect(read(top, 'pkg/app/sub/new.txt')).toBe('new\n');
    expect(existsSync(join(top, 'sub'))).toBe(false);
  });

  it('works in a repository without commits', async () => {
    const dir = temp();
    git(dir, 'init', '-q', '-b', 'main');
    writeFiles(dir, { 'a.txt': 'draft\n' });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': 'draft\nmore\n' }), 'Edit');
    expect(git(dir, 'rev-list', '--count', ref.head).trim()).toBe('2');
    expect(await staging.diff(ref)).toContain(' draft\n+more\n');
    await staging.push(ref);
    expect(read(dir, 'a.txt')).toBe('draft\nmore\n');
  });

  it('reports a failing git command as GIT_ERROR with the command and its stderr', async () => {
    const dir = repo({ 'a.txt': LINES });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': 'x\n' }), 'Edit');
    const error = await failure(() => staging.diff({ ...ref, head: 'deadbeef'.repeat(5) }));
    expect(error.code).toBe('GIT_ERROR');
    expect(error.details.command).toMatch(/^git .*diff-tree/);
    expect(error.details.stderr).toMatch(/deadbeef/);
  });

  it('leaves no temporary index or merge files behind', async () => {
    const ours = () => readdirSync(tmpdir()).filter((name) => name.startsWith('golem-index-') || name.startsWith('golem-merge-')).length;
    const before = ours();
    const dir = repo({ 'a.txt': LINES });
    const staging = await open(dir);
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': LINES.replace('two', 'TWO') }), 'Edit');
    writeFileSync(join(dir, 'a.txt'), LINES.replace('nine', 'NINE'));
    await staging.push(ref);
    await failure(() => staging.stage('item-2', { ...ref, branch: 'golem/staged/item-2', base: 'deadbeef'.repeat(5) }, changes({ 'b.txt': 'x' }), 'Edit'));
    expect(ours()).toBe(before);
  });
});

describe('GitStaging in a shadow repository', () => {
  it('stages, diffs and pushes for a project that is not in a git repository', async () => {
    const dir = temp();
    writeFiles(dir, { 'a.txt': LINES, 'b.txt': 'bee\n' });
    const shadowDir = join(temp(), 'shadow');
    const staging = await GitStaging.open({ root: dir, shadowDir });
    expect(staging.mode).toBe('shadow');
    const ref = await staging.stage('item-1', null, changes({ 'a.txt': LINES.replace('two', 'TWO'), 'new/c.txt': 'sea\n' }), 'Edit');

    expect(existsSync(join(dir, '.git'))).toBe(false);
    expect(git(shadowDir, 'rev-parse', '--is-bare-repository').trim()).toBe('true');
    expect(git(shadowDir, 'rev-parse', 'golem/staged/item-1').trim()).toBe(ref.head);
    expect(git(shadowDir, 'ls-tree', '-r', '--name-only', ref.base).trim()).toBe('a.txt');
    expect(read(dir, 'a.txt')).toBe(LINES);
    const diff = await staging.diff(ref);
    expect(diff).toContain('diff --git a/a.txt b/a.txt\n');
    expect(diff).toContain('-two\n+TWO\n');
    expect(diff).toContain('+++ b/new/c.txt\n');

    // A second opening reuses the shadow repository.
    const again = await GitStaging.open({ root: dir, shadowDir });
    expect((await again.view(ref, new DiskFiles(dir)).read('new/c.txt'))?.toString()).toBe('sea\n');
    expect(await again.push(ref)).toEqual({ files: ['a.txt', 'new/c.txt'] });
    expect(read(dir, 'a.txt')).toBe(LINES.replace('two', 'TWO'));
    expect(read(dir, 'new/c.txt')).toBe('sea\n');
    expect(read(dir, 'b.txt')).toBe('bee\n');
    expect(git(shadowDir, 'branch', '--list', 'golem/*').trim()).toBe('');
  });
});

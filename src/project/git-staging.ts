/**
 * Staged file changes kept in real git (seed 003 manual trust mode). A clearance item
 * is a branch `golem/staged/<itemId>` whose commit `head` sits on a commit `base`:
 * `base` holds the touched files as they were on disk when first touched, `head` the
 * model's version of them, so `git diff base head` is exactly the model's edits.
 *
 * Only git plumbing is used, with a temporary index: the user's working tree, index
 * and HEAD are never touched. Objects are written before the ref, and the returned
 * `StageRef` (not the branch) is the record of the item.
 */
import { realpathSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fail } from '../core/errors.js';
import type { FileAccess, FileChange } from '../action/files.js';
import { Git, gitEnv, gitError } from './git.js';
import { DiskFiles } from './project-files.js';
import { StagedView, type StagingView } from './staged-view.js';

export type { StagingView } from './staged-view.js';

/** Where a staged change lives in git: a branch whose commit `head` sits on `base`. */
export interface StageRef {
  /** `golem/staged/<itemId>`. */
  branch: string;
  /** The commit holding the touched files as they were on disk when first touched. */
  base: string;
  /** The commit holding the staged content; its parent is `base`. */
  head: string;
  /** Project-relative '/' paths whose content differs between base and head, sorted. */
  files: string[];
}

/** What `GitStaging.open` needs. */
export interface GitStagingOptions {
  /** The project root. */
  root: string;
  /** Where to keep a bare shadow repository when the project is not in a git repository. */
  shadowDir: string;
  /** The workspace's own files inside the project, never staged nor written (see `DiskFilesOptions.hidden`); the shadow repository is hidden too. */
  hidden?: readonly string[];
}

/** A tree entry: file mode and blob id. */
interface Entry {
  mode: string;
  type: string;
  sha: string;
}

/** What to put at a path when building a tree; null removes the path. */
type TreeEdit = { mode: string; sha: string } | null;

/** What push does with one file. */
type Plan = { path: string; action: 'skip' } | { path: string; action: 'write'; content: Buffer | null } | { path: string; action: 'conflict' };

const BRANCH_PREFIX = 'golem/staged/';
const ITEM_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const REGULAR = new Set(['100644', '100755']);

/** Where a project's shadow repository goes when none is named: `<root>/.golem/staging.git`. */
export function defaultStagingDir(root: string): string {
  return join(root, '.golem', 'staging.git');
}

/** Staged changes for one project, kept in its git repository or in a shadow one. */
export class GitStaging {
  /** The real path of the project root. */
  readonly root: string;
  /** 'repository' when the project is in a git repository, else 'shadow'. */
  readonly mode: 'repository' | 'shadow';
  readonly #git: Git;
  /** The project root's path inside the repository ('' or ending in '/'). */
  readonly #prefix: string;
  readonly #disk: DiskFiles;

  private constructor(root: string, mode: 'repository' | 'shadow', git: Git, prefix: string, hidden: readonly string[]) {
    this.root = root;
    this.mode = mode;
    this.#git = git;
    this.#prefix = prefix;
    this.#disk = new DiskFiles(root, { hidden });
  }

  /**
   * Opens staging for the project at `root`: in the git repository that contains root
   * if there is one ('repository'), else in a bare shadow repository created at
   * `shadowDir` ('shadow').
   */
  static async open(options: GitStagingOptions): Promise<GitStaging> {
    const root = realDirectory(options.root);
    const hidden = [...(options.hidden ?? []), options.shadowDir];
    const env = gitEnv();
    const probe = await new Git(root, env).exec(['rev-parse', '--is-inside-work-tree'], { allow: () => true });
    if (probe.code === 0 && probe.stdout.toString('utf8').trim() === 'true') {
      const [gitDir = '', top = '', prefix = ''] = await new Git(root, env).lines(['rev-parse', '--absolute-git-dir', '--show-toplevel', '--show-prefix']);
      return new GitStaging(root, 'repository', new Git(top, { ...env, GIT_DIR: gitDir }), prefix, hidden);
    }
    if (probe.code !== 0 && !/not a git repository/i.test(probe.stderr)) throw gitError(['rev-parse', '--is-inside-work-tree'], probe);
    const shadow = resolve(options.shadowDir);
    await mkdir(shadow, { recursive: true });
    await new Git(shadow, env).exec(['init', '--bare', '-q', '--initial-branch=main', shadow]);
    return new GitStaging(root, 'shadow', new Git(shadow, { ...env, GIT_DIR: shadow }), '', hidden);
  }

  /**
   * A FileAccess of kind 'staged' over `disk`: reads see the staged content of `ref`
   * (and writes made through this view since), else disk; writes are kept in memory
   * and returned by `changes()`.
   */
  view(ref: StageRef | null, disk: FileAccess): StagingView {
    if (disk.root !== this.root) throw fail('INVALID_ARGUMENT', `the files (${disk.root}) are not this project's (${this.root})`, { root: disk.root });
    if (ref !== null) checkRef(ref);
    return new StagedView(disk, (path) => (ref !== null && ref.files.includes(path) ? this.#readAt(ref.head, path) : null));
  }

  /**
   * Records `changes` as a new staged state of item `itemId` (on top of `ref` when
   * given, else a new item) and points `golem/staged/<itemId>` at it: returns the new ref.
   */
  async stage(itemId: string, ref: StageRef | null, changes: FileChange[], message: string): Promise<StageRef> {
    const branch = branchName(itemId);
    if (ref !== null) checkRef(ref, branch);
    const wanted = this.#normalize(changes);
    const known = new Set(ref?.files ?? []);
    const start = ref === null ? await this.#startPoint() : { tree: await this.#treeOf(ref.base), parents: await this.#parentsOf(ref.base) };
    const captured = await this.#capture(
      [...wanted.keys()].filter((path) => !known.has(path)),
      start.tree,
    );
    const base = await this.#stageBase(itemId, ref, start, captured);
    const head = await this.#stageHead(ref, base, ref === null ? new Map<string, TreeEdit>() : captured, wanted, message);
    const files = await this.#changedFiles(base.commit, head);
    await this.#git.exec(['update-ref', '-m', `golem: stage ${itemId}`, `refs/heads/${branch}`, head]);
    return { branch, base: base.commit, head, files };
  }

  /** The unified diff base..head (what the user reviews), with a/ b/ prefixes and project-relative paths. */
  async diff(ref: StageRef): Promise<string> {
    checkRef(ref);
    const args = [
      'diff-tree',
      '-r',
      '-p',
      '--no-color',
      '--no-ext-diff',
      '--no-renames',
      '--src-prefix=a/',
      '--dst-prefix=b/',
      ...this.#relativeArgs(),
      ref.base,
      ref.head,
    ];
    return (await this.#git.exec(args)).stdout.toString('utf8');
  }

  /**
   * Applies the staged changes to the files on disk, merging (3-way) with changes made
   * there since; throws CLEARANCE_CONFLICT, writing nothing, when a file cannot be
   * merged. Returns the files changed on disk, then deletes the branch.
   */
  async push(ref: StageRef): Promise<{ files: string[] }> {
    checkRef(ref);
    const plans: Plan[] = [];
    for (const path of ref.files) {
      this.#disk.writable(path);
      plans.push(await this.#plan(ref, path, await this.#disk.read(path)));
    }
    const conflicts = plans.filter((p) => p.action === 'conflict').map((p) => p.path);
    if (conflicts.length > 0) {
      throw fail('CLEARANCE_CONFLICT', `the staged changes conflict with changes made since to ${conflicts.join(', ')}`, {
        files: conflicts,
        branch: ref.branch,
      });
    }
    const written: string[] = [];
    for (const plan of plans) {
      if (plan.action !== 'write') continue;
      await this.#disk.write(plan.path, plan.content);
      if (plan.content === null) await this.#pruneEmptyFolders(plan.path);
      written.push(plan.path);
    }
    await this.#deleteBranch(ref.branch);
    return { files: written.sort() };
  }

  /**
   * Commits the staged changes on branch `target` instead of writing the files (seed 003's
   * push target): on its tip (a new branch starts at HEAD), merged (3-way) with what the
   * branch changed since, or CLEARANCE_CONFLICT with nothing done. The files on disk and the
   * branch checked out are left alone. Returns the new commit and the files it changed,
   * then deletes the staging branch.
   */
  async pushTo(ref: StageRef, target: string): Promise<{ commit: string; files: string[] }> {
    checkRef(ref);
    if (this.mode === 'shadow') {
      throw fail(
        'INVALID_ARGUMENT',
        `the project at ${this.root} is not in a git repository, so there is no branch to commit to; push without a target writes the files`,
        {
          target,
        },
      );
    }
    // The name as it is, never resolved (`@{-1}`, `@` or `HEAD` name other things); not a ref path, not an option, not Golem's own.
    const literal = await this.#git.exec(['check-ref-format', `refs/heads/${target}`], { allow: (code) => code <= 128 });
    if (literal.code !== 0 || /^(-|@$|HEAD$|refs\/|golem\/staged\/)/.test(target) || target.includes('@{'))
      throw fail('INVALID_ARGUMENT', `"${target}" is not a branch name to commit to`, { target });
    // A branch checked out here or in another worktree would have its files fall out of step with it.
    const worktrees = await this.#git.exec(['worktree', 'list', '--porcelain'], { allow: (code) => code <= 128 });
    if (worktrees.stdout.toString('utf8').split('\n').includes(`branch refs/heads/${target}`)) {
      throw fail('INVALID_ARGUMENT', `"${target}" is checked out in a work tree; push without a target to write the files, or name another branch`, { target });
    }
    const found = await this.#git.exec(['rev-parse', '--verify', '-q', `refs/heads/${target}^{commit}`], { allow: (code) => code <= 1 });
    const existing = found.code === 0 ? found.stdout.toString('utf8').trim() : null;
    const tip = existing ?? (await this.#startPoint()).parents[0] ?? null;
    // The same plan as a push into the files, with the branch's tip in the place of the disk.
    const plans: Plan[] = [];
    for (const path of ref.files) plans.push(await this.#plan(ref, path, tip === null ? null : await this.#readAt(tip, path)));
    const conflicts = plans.filter((p) => p.action === 'conflict').map((p) => p.path);
    if (conflicts.length > 0) {
      throw fail('CLEARANCE_CONFLICT', `the staged changes conflict with ${target}'s changes to ${conflicts.join(', ')}`, { files: conflicts, target });
    }
    const modes = await this.#entries(
      ref.head,
      ref.files.map((p) => this.#prefix + p),
    );
    const edits = new Map<string, TreeEdit>();
    const changed: string[] = [];
    for (const plan of plans) {
      if (plan.action !== 'write') continue;
      const mode = modes.get(this.#prefix + plan.path)?.mode ?? '100644';
      edits.set(plan.path, plan.content === null ? null : { mode, sha: await this.#hashBlob(plan.content) });
      changed.push(plan.path);
    }
    const tree = await this.#buildTree(tip === null ? null : await this.#treeOf(tip), edits);
    const commit = await this.#commitTree(tree, tip === null ? [] : [tip], `golem: ${ref.files.join(', ')}\n\nStaged on ${ref.branch}, pushed by the user.\n`);
    // Only if the branch is still where it was read: a commit made to it meanwhile is never lost.
    await this.#git.exec(['update-ref', '-m', `golem: push ${ref.branch}`, `refs/heads/${target}`, commit, existing ?? '0'.repeat(commit.length)]);
    await this.#deleteBranch(ref.branch);
    return { commit, files: changed.sort() };
  }

  /** Deletes the branch ref; the disk is untouched. Idempotent. */
  async discard(ref: StageRef): Promise<void> {
    checkBranch(ref.branch);
    await this.#deleteBranch(ref.branch);
  }

  // --- staging ---

  /** The changes keyed by their checked project path, the last change to a path winning. */
  #normalize(changes: FileChange[]): Map<string, Buffer | null> {
    if (!Array.isArray(changes)) throw fail('INVALID_ARGUMENT', 'changes must be a list', {});
    const out = new Map<string, Buffer | null>();
    for (const change of changes) {
      const path = this.#disk.writable(change.path);
      if (change.content !== null && !Buffer.isBuffer(change.content))
        throw fail('INVALID_ARGUMENT', `the content of "${path}" must be a Buffer or null`, { path });
      out.set(path, change.content);
    }
    return out;
  }

  /** Where a new item's base starts: HEAD's tree and HEAD as parent, or nothing. */
  async #startPoint(): Promise<{ tree: string | null; parents: string[] }> {
    if (this.mode === 'shadow') return { tree: null, parents: [] };
    const found = await this.#git.exec(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { allow: (code) => code <= 1 });
    const head = found.code === 0 ? found.stdout.toString('utf8').trim() : null;
    return head === null ? { tree: null, parents: [] } : { tree: await this.#treeOf(head), parents: [head] };
  }

  /** The disk content of `paths` as tree edits, keeping the mode `start` gives a regular file. */
  async #capture(paths: string[], start: string | null): Promise<Map<string, TreeEdit>> {
    const known =
      start === null
        ? new Map<string, Entry>()
        : await this.#entries(
            start,
            paths.map((p) => this.#prefix + p),
          );
    const out = new Map<string, TreeEdit>();
    for (const path of paths) {
      const content = await this.#disk.read(path);
      if (content === null) {
        out.set(path, null);
        continue;
      }
      const mode = known.get(this.#prefix + path)?.mode;
      out.set(path, { mode: mode !== undefined && REGULAR.has(mode) ? mode : await this.#diskMode(path), sha: await this.#hashBlob(content) });
    }
    return out;
  }

  /** The base commit: unchanged when nothing new was captured, else a new one on `start`. */
  async #stageBase(
    itemId: string,
    ref: StageRef | null,
    start: { tree: string | null; parents: string[] },
    captured: Map<string, TreeEdit>,
  ): Promise<{ commit: string; tree: string }> {
    if (ref !== null && captured.size === 0 && start.tree !== null) return { commit: ref.base, tree: start.tree };
    const tree = await this.#buildTree(start.tree, captured);
    if (ref !== null && tree === start.tree) return { commit: ref.base, tree };
    return { commit: await this.#commitTree(tree, start.parents, `golem: base of ${itemId}\n`), tree };
  }

  /** The head commit: the previous head (or the base) with `captured` then `wanted` applied. */
  async #stageHead(
    ref: StageRef | null,
    base: { commit: string; tree: string },
    captured: Map<string, TreeEdit>,
    wanted: Map<string, Buffer | null>,
    message: string,
  ): Promise<string> {
    const modes = await this.#entries(
      base.tree,
      [...wanted.keys()].map((p) => this.#prefix + p),
    );
    const edits = new Map(captured);
    for (const [path, content] of wanted) {
      const mode = modes.get(this.#prefix + path)?.mode;
      edits.set(path, content === null ? null : { mode: mode !== undefined && REGULAR.has(mode) ? mode : '100644', sha: await this.#hashBlob(content) });
    }
    const tree = await this.#buildTree(ref === null ? base.tree : await this.#treeOf(ref.head), edits);
    return this.#commitTree(tree, [base.commit], message.endsWith('\n') ? message : `${message}\n`);
  }

  /** The project paths whose content differs between two commits, sorted. */
  async #changedFiles(base: string, head: string): Promise<string[]> {
    const out = await this.#git.exec(['diff-tree', '-r', '-z', '--name-only', '--no-renames', ...this.#relativeArgs(), base, head]);
    return out.stdout
      .toString('utf8')
      .split('\0')
      .filter((p) => p !== '')
      .sort();
  }

  // --- pushing ---

  /** What a push does with one file whose content where it goes is `current`: skip it, write it (merged if need be), or a conflict. */
  async #plan(ref: StageRef, path: string, current: Buffer | null): Promise<Plan> {
    const head = await this.#readAt(ref.head, path);
    if (sameContent(current, head)) return { path, action: 'skip' };
    const base = await this.#readAt(ref.base, path);
    if (sameContent(current, base)) return { path, action: 'write', content: head };
    const merged = await this.#merge(current, base, head);
    if (merged === null) return { path, action: 'conflict' };
    return sameContent(merged, current) ? { path, action: 'skip' } : { path, action: 'write', content: merged };
  }

  /** `git merge-file -p current base head`, or null when the three cannot be merged cleanly. */
  async #merge(current: Buffer | null, base: Buffer | null, head: Buffer | null): Promise<Buffer | null> {
    if (current === null || base === null || head === null) return null;
    if ([current, base, head].some(isBinary)) return null;
    return withTempDir('golem-merge-', async (dir) => {
      const names = ['current', 'base', 'head'].map((name) => join(dir, name));
      await Promise.all([current, base, head].map((content, i) => writeFile(names[i] as string, content)));
      const result = await this.#git.exec(['merge-file', '-p', ...names], { allow: (code) => code >= 0 && code <= 127 });
      return result.code === 0 ? result.stdout : null;
    });
  }

  /** Removes the folders a deletion left empty, up to the project root. */
  async #pruneEmptyFolders(path: string): Promise<void> {
    for (let folder = dirname(path); folder !== '.' && folder !== '/'; folder = dirname(folder)) {
      try {
        await rmdir(join(this.root, folder));
      } catch {
        return;
      }
    }
  }

  async #deleteBranch(branch: string): Promise<void> {
    await this.#git.exec(['update-ref', '-d', `refs/heads/${branch}`]);
  }

  // --- git objects ---

  /** The blob at project path `path` in `commit`, or null. */
  async #readAt(commit: string, path: string): Promise<Buffer | null> {
    const entry = (await this.#entries(commit, [this.#prefix + path])).get(this.#prefix + path);
    return entry === undefined || entry.type !== 'blob' ? null : (await this.#git.exec(['cat-file', 'blob', entry.sha])).stdout;
  }

  /** The entries of `treeish` at the given repository paths. */
  async #entries(treeish: string, paths: string[]): Promise<Map<string, Entry>> {
    const out = new Map<string, Entry>();
    if (paths.length === 0) return out;
    const listing = await this.#git.exec(['ls-tree', '-r', '-z', '--full-tree', treeish, '--', ...paths]);
    for (const record of listing.stdout.toString('utf8').split('\0')) {
      const tab = record.indexOf('\t');
      if (tab < 0) continue;
      const [mode = '', type = '', sha = ''] = record.slice(0, tab).split(' ');
      out.set(record.slice(tab + 1), { mode, type, sha });
    }
    return out;
  }

  async #treeOf(commit: string): Promise<string> {
    return this.#git.value(['rev-parse', '--verify', `${commit}^{tree}`]);
  }

  async #parentsOf(commit: string): Promise<string[]> {
    return (await this.#git.lines(['rev-parse', `${commit}^@`])).filter((line) => line !== '');
  }

  async #hashBlob(content: Buffer): Promise<string> {
    return this.#git.value(['hash-object', '-w', '--stdin'], content);
  }

  /** `start` (or the empty tree) with `edits` applied at project paths, built in a temporary index. */
  async #buildTree(start: string | null, edits: Map<string, TreeEdit>): Promise<string> {
    return withTempDir('golem-index-', async (dir) => {
      // An empty work tree of its own: update-index wants one, and must never see the user's.
      await mkdir(join(dir, 'work'));
      const git = this.#git.with({ GIT_INDEX_FILE: join(dir, 'index'), GIT_WORK_TREE: join(dir, 'work') });
      await git.exec(start === null ? ['read-tree', '--empty'] : ['read-tree', start]);
      const removed = [...edits].filter(([, edit]) => edit === null).map(([path]) => `${this.#prefix}${path}\0`);
      if (removed.length > 0) await git.exec(['update-index', '--force-remove', '-z', '--stdin'], { input: removed.join('') });
      const added = [...edits].flatMap(([path, edit]) => (edit === null ? [] : [`${edit.mode} ${edit.sha}\t${this.#prefix}${path}\0`]));
      if (added.length > 0) await git.exec(['update-index', '--add', '--replace', '-z', '--index-info'], { input: added.join('') });
      return git.value(['write-tree']);
    });
  }

  async #commitTree(tree: string, parents: string[], message: string): Promise<string> {
    return this.#git.value(['commit-tree', '--no-gpg-sign', tree, ...parents.flatMap((p) => ['-p', p])], message);
  }

  /** '100755' when the file on disk is executable, else '100644'. */
  async #diskMode(path: string): Promise<string> {
    const info = await stat(join(this.root, path));
    return (info.mode & 0o111) !== 0 ? '100755' : '100644';
  }

  #relativeArgs(): string[] {
    return this.#prefix === '' ? [] : [`--relative=${this.#prefix}`];
  }
}

/** Runs `fn` with a fresh folder under the system temp folder, removed afterwards. */
async function withTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function realDirectory(root: string): string {
  try {
    const real = realpathSync(resolve(root));
    if (statSync(real).isDirectory()) return real;
  } catch {
    // reported below
  }
  throw fail('INVALID_ARGUMENT', `the project root ${root} is not a folder`, { root });
}

function branchName(itemId: string): string {
  if (typeof itemId !== 'string' || !ITEM_ID.test(itemId) || itemId.includes('..') || itemId.endsWith('.lock') || itemId.endsWith('.')) {
    throw fail('INVALID_ARGUMENT', `"${String(itemId)}" cannot name a staging branch`, { itemId });
  }
  return BRANCH_PREFIX + itemId;
}

function checkBranch(branch: string): void {
  if (typeof branch !== 'string' || !branch.startsWith(BRANCH_PREFIX))
    throw fail('INVALID_ARGUMENT', `"${String(branch)}" is not a staging branch`, { branch });
  branchName(branch.slice(BRANCH_PREFIX.length));
}

/** Checks a StageRef's shape (its ids reach git's command line), and its branch when given. */
function checkRef(ref: StageRef, branch?: string): void {
  checkBranch(ref.branch);
  if (branch !== undefined && ref.branch !== branch) throw fail('INVALID_ARGUMENT', `the ref is for ${ref.branch}, not ${branch}`, { branch: ref.branch });
  if (!OBJECT_ID.test(ref.base) || !OBJECT_ID.test(ref.head))
    throw fail('INVALID_ARGUMENT', 'a stage ref names its commits by full object ids', { base: ref.base, head: ref.head });
  if (!Array.isArray(ref.files) || !ref.files.every((f) => typeof f === 'string')) throw fail('INVALID_ARGUMENT', 'a stage ref lists its files as strings', {});
}

function sameContent(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

/** Git's test: a NUL byte in the first 8000 bytes. */
function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

/**
 * A worker's project files as manual mode sees them (seed 003): an action that changes
 * files runs on a staging view, and its changes join the conversation's open staged
 * commit (a clearance item) instead of the disk; an action that changes them directly
 * reads the staged versions and may not overwrite a file with staged changes.
 * One per worker; the git staging itself is opened once for the whole worker tree.
 */
import type { JsonValue } from '../core/blocks.js';
import { GolemError, unwrap } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import { Serializer } from '../core/serializer.js';
import { clearanceItems, stageRefOf } from './clearance.js';
import type { ClearanceRecord } from './agent-plugin.js';
import type { FileAccess } from '../action/files.js';
import { defaultStagingDir, GitStaging, type StageRef } from '../project/git-staging.js';
import { isBinary } from '../project/actions/context-files.js';
import { DiskFiles } from '../project/project-files.js';
import { workspaceFiles } from './workspace-files.js';

/** Where the staging lives, and what it belongs to. */
export interface StagedProjectScope {
  /** The conversation (root session) whose clearance items these are, and the worker's session. */
  rootSessionId: string;
  workerId: string;
  /** Shared by the whole worker tree: the git staging, opened on first use. */
  shared: { staging?: Promise<GitStaging>; staged?: Serializer };
}

export class StagedProject {
  readonly disk: DiskFiles;
  readonly #manager: WorkspaceManager;
  readonly #root: string;
  readonly #stagingDir: string;
  /** The workspace's own files and the shadow staging repository: not the project's files, wherever they are. */
  readonly #hidden: string[];
  readonly #scope: StagedProjectScope;

  constructor(manager: WorkspaceManager, project: { root: string; stagingDir?: string }, scope: StagedProjectScope) {
    this.#manager = manager;
    this.#stagingDir = project.stagingDir ?? defaultStagingDir(project.root);
    this.#hidden = [...workspaceFiles(manager), this.#stagingDir];
    this.disk = new DiskFiles(project.root, { hidden: this.#hidden });
    this.#root = project.root;
    this.#scope = scope;
  }

  /** The files as an action that changes them directly sees them: staged versions readable, writes to disk. */
  files(): FileAccess {
    const disk = this.disk;
    const open = this.#openItem();
    if (open === undefined) return disk;
    return {
      root: disk.root,
      kind: 'disk',
      relative: (path) => disk.relative(path),
      hides: (rel) => disk.hides(rel),
      read: async (path) => (await this.#staging()).view(refOf(open), disk).read(path),
      write: async (path, content) => {
        // Writing a file with staged changes would put the unreviewed staged version on disk.
        const rel = disk.relative(path);
        if (stageRefOf(open)?.files.includes(rel) === true) {
          throw new GolemError(
            'CLEARANCE_CONFLICT',
            `${rel} has staged changes waiting for clearance (item ${open.id}); they must be pushed or discarded before it is changed directly`,
            {
              details: { path: rel, clearanceId: open.id },
            },
          );
        }
        await disk.write(path, content);
      },
    };
  }

  /**
   * Runs `run` on a staging view; what it changed joins the open staged commit, and the
   * outcome says so. A failed run, or one that changed nothing, is returned as it is.
   */
  stage<R extends { ok: boolean; output: JsonValue }>(callName: string, run: (view: FileAccess) => Promise<R>): Promise<R | (R & { staged: true })> {
    // One change at a time for the whole tree: sub-workers side by side must not both build on the same open commit.
    this.#scope.shared.staged ??= new Serializer();
    return this.#scope.shared.staged.run(() => this.#stage(callName, run));
  }

  async #stage<R extends { ok: boolean; output: JsonValue }>(callName: string, run: (view: FileAccess) => Promise<R>): Promise<R | (R & { staged: true })> {
    const staging = await this.#staging();
    const open = this.#openItem();
    const view = staging.view(refOf(open), this.disk);
    const result = await run(view);
    const changes = view.changes();
    if (!result.ok || changes.length === 0) return result;
    // Files that are not text are outputs of their own (described, pushed or discarded on their own); text joins the open commit.
    const binary = changes.filter((c) => c.content !== null && isBinary(c.content));
    const text = changes.filter((c) => !binary.includes(c));
    const items: ClearanceRecord[] = [];
    if (text.length > 0) {
      const id = open?.id ?? this.#manager.newId();
      const ref = await staging.stage(id, refOf(open), text, `${callName}: ${text.map((c) => c.path).join(', ')}`);
      if (ref.files.length === 0 && open === undefined) {
        // The files already held this content: nothing to review, and the new item's empty branch goes.
        await staging.discard(ref);
      } else {
        // An open item whose edits were all undone stays, holding no change (a push of it writes nothing).
        const description = ref.files.length === 0 ? 'No changes left: the staged edits were undone' : `Changes to ${ref.files.join(', ')}`;
        items.push(await this.#record(staging, id, 'staged_commit', description, ref));
      }
    }
    if (binary.length > 0) {
      const id = this.#manager.newId();
      const ref = await staging.stage(id, null, binary, `${callName}: ${binary.map((c) => c.path).join(', ')}`);
      const described = binary.map((c) => `${c.path} (${sizeOf((c.content as Buffer).length)}${kindOf(c.content as Buffer)})`).join(', ');
      items.push(await this.#record(staging, id, 'binary_output', `Binary output: ${described}`, ref));
    }
    if (items.length === 0) {
      return { ...result, output: { result: result.output, staged: false, note: 'Nothing to stage: the files already hold this content.' } };
    }
    const ids = items.map((i) => i.id);
    const notes = items.map((i) =>
      i.type === 'binary_output'
        ? `The file${binary.length > 1 ? 's' : ''} ${binary.map((c) => c.path).join(', ')} (not text) wait${binary.length > 1 ? '' : 's'} for the user's review as clearance item ${i.id}, on ${binary.length > 1 ? 'their' : 'its'} own: not in the files on disk until the user pushes it, and not seen by later reads.`
        : `Staged for the user's review as clearance item ${i.id} (not in the files on disk until the user pushes it). Later reads of these files show the staged version.`,
    );
    return {
      ...result,
      staged: true,
      output: { result: result.output, staged: true, clearanceId: ids.length === 1 ? (ids[0] as string) : ids.join(', '), note: notes.join(' ') },
    };
  }

  /** Records a staged item (new, or the open commit grown) for the user's clearance. */
  async #record(staging: GitStaging, id: string, type: 'staged_commit' | 'binary_output', description: string, ref: StageRef): Promise<ClearanceRecord> {
    return unwrap(
      await this.#manager.dispatch({
        type: 'clearance:stage',
        payload: {
          id,
          type,
          description,
          sessionId: this.#scope.rootSessionId,
          workerId: this.#scope.workerId,
          metadata: { ...ref, root: staging.root, mode: staging.mode, stagingDir: this.#stagingDir },
        },
      }),
    );
  }

  /** The conversation's staged commit still open for more changes. */
  #openItem(): ClearanceRecord | undefined {
    return clearanceItems(this.#manager.workspace(), { sessionId: this.#scope.rootSessionId })
      .filter((c) => c.type === 'staged_commit')
      .at(-1);
  }

  #staging(): Promise<GitStaging> {
    const shared = this.#scope.shared;
    if (shared.staging === undefined) {
      const opening = GitStaging.open({ root: this.#root, shadowDir: this.#stagingDir, hidden: this.#hidden });
      shared.staging = opening;
      opening.catch(() => {
        if (shared.staging === opening) delete shared.staging; // try again next time
      });
    }
    return shared.staging;
  }
}

function refOf(item: ClearanceRecord | undefined): StageRef | null {
  return item === undefined ? null : (stageRefOf(item) ?? null);
}

function sizeOf(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** What the bytes are, when their signature says: ", PNG image" and the like. */
function kindOf(content: Buffer): string {
  const starts = (hex: string) => content.subarray(0, hex.length / 2).equals(Buffer.from(hex, 'hex'));
  if (starts('89504e470d0a1a0a')) return ', PNG image';
  if (starts('ffd8ff')) return ', JPEG image';
  if (starts('47494638')) return ', GIF image';
  if (starts('25504446')) return ', PDF document';
  if (starts('504b0304')) return ', ZIP archive';
  return '';
}

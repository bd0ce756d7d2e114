/**
 * Merging branches (issue 37): `turn:merge` adds a merge turn with two parents, the
 * session's head and another branch's turn; `turn:pick` copies one turn version of another
 * branch onto the head (a cherry-pick).
 */
import { z } from 'zod';
import { ContentBlock, type JsonObject } from '../blocks.js';
import { fail } from '../errors.js';
import { defineCommand } from '../plugin.js';
import { Id, turnKey, TurnRef, type Session, type Turn } from '../records.js';
import { allAncestors, ancestry, commonAncestor } from '../turn-tree.js';
import type { WorkspaceView } from '../workspace-index.js';
import { forkFamily, makeTurn, refOf, requireSession, requireTurn, sameRef, viewOf } from './kit.js';
import { appendTurn, requireNewNodeId } from './turn.js';

/** Which branch a merge brings in: the session it is named by (whose head it is, or that made the turn) and its label. */
export interface MergedBranch {
  sessionId: string;
  label: string | null;
}

/**
 * The turns a merge from `from` brings into the history ending at `head`: `from` and its
 * first-parent ancestors back to the first one `head` already descends from, oldest first.
 */
export function mergedSection(index: WorkspaceView, head: TurnRef | null, from: TurnRef): Turn[] {
  const ours = allAncestors(index, head);
  const section: Turn[] = [];
  for (const turn of ancestry(index, from)) {
    if (ours.has(turnKey(turn))) break;
    section.push(turn);
  }
  return section.reverse();
}

/** How a merge names the branch it brings in, in the merge turn's text and in the prompt. */
export function branchName(branch: MergedBranch, into: string): string {
  if (branch.sessionId === into) return 'another branch of this conversation';
  return branch.label === null ? `the branch of session ${branch.sessionId}` : `the branch "${branch.label}" (session ${branch.sessionId})`;
}

/**
 * The branch a turn belongs to for a merge: `into` itself for a turn of its own tree, else
 * the live session other than `into` whose head it is, else the session that made it.
 */
function branchOf(index: WorkspaceView, turn: Turn, into: string): MergedBranch {
  const head = turn.sessionId === into ? into : [...index.headsAt(turn)].find((id) => id !== into);
  const sessionId = head ?? turn.sessionId;
  return { sessionId, label: index.sessions.get(sessionId)?.label ?? null };
}

/** The turn `payload.from` names, when it is another session's head (so that session loads with the command). */
function sessionsAtFrom(payload: unknown, view: WorkspaceView): string[] {
  const parsed = TurnRef.safeParse((payload as { from?: unknown } | null)?.from);
  return parsed.success ? [...view.headsAt(parsed.data)] : [];
}

export const turnMerge = defineCommand({
  type: 'turn:merge',
  description:
    "Adds a merge turn at the session's head whose second parent is another branch's turn (one the session sees, or another session's head in its fork family); the prompt shows that branch's turns since the common ancestor, or the summary given in their place.",
  payload: z.strictObject({
    sessionId: Id,
    /** The turn to merge: one the session sees, or the head of another session of its fork family. */
    from: TurnRef,
    /** `turns`: the prompt shows the merged branch's turns before the merge turn; `summary`: the summary in `blocks` stands for them. */
    as: z.enum(['turns', 'summary']),
    /** What the merge turn says besides the line that names the merge: for `summary`, the summary (a text block first). */
    blocks: z.array(ContentBlock).optional(),
    turnId: Id.optional(),
  }),
  // The other branch's session (when `from` is its head) and the family, whose turns the merge may bring in.
  sessions: (payload, view) => [...forkFamily(payload, view), ...sessionsAtFrom(payload, view)],
  reduce(payload, ctx) {
    const { index } = ctx;
    const session = requireSession(index, payload.sessionId);
    const from = requireTurn(index, payload.from);
    const branch = branchOf(index, from, session.id);
    const otherHead = [...index.headsAt(from)].some((id) => id !== session.id);
    if (!otherHead && !viewOf(index, session).sees(from)) {
      throw fail('TURN_NOT_IN_SESSION', `turn "${from.id}" version ${from.version} is neither part of session "${session.id}" nor another session's head`, {
        sessionId: session.id,
        turnId: from.id,
        version: from.version,
      });
    }
    const base = commonAncestor(index, session.head, from);
    if (base === null) {
      throw fail('MERGE_NOT_RELATED', `session "${session.id}" and turn "${from.id}" share no history: there is nothing both branches come from`, {
        sessionId: session.id,
        turnId: from.id,
        version: from.version,
      });
    }
    if (sameRef(base, from)) {
      throw fail('MERGE_NOTHING', `turn "${from.id}" version ${from.version} is already in the history of session "${session.id}"'s head: nothing to merge`, {
        sessionId: session.id,
        turnId: from.id,
        version: from.version,
      });
    }
    const first = payload.blocks?.[0];
    if (payload.as === 'summary' && (first?.type !== 'text' || first.text.trim() === '')) {
      throw fail('INVALID_PAYLOAD', 'a merge as a summary needs the summary: give it as the first block (a text block)', { sessionId: session.id });
    }
    const count = mergedSection(index, session.head, from).length;
    const name = branchName(branch, session.id);
    const line =
      payload.as === 'turns'
        ? `Merged ${count} turn${count === 1 ? '' : 's'} from ${name} into this conversation.`
        : `Merged ${name} into this conversation, as a summary of its ${count} turn${count === 1 ? '' : 's'} since the branches parted:`;
    const given = payload.blocks ?? [];
    const blocks: ContentBlock[] =
      given[0]?.type === 'text' ? [{ ...given[0], text: `${line}\n\n${given[0].text}` }, ...given.slice(1)] : [{ type: 'text', text: line }, ...given];
    const meta: JsonObject = { mergedBranch: { sessionId: branch.sessionId, label: branch.label, turns: count } };
    const turn: Turn = {
      ...makeTurn(ctx, { id: requireNewNodeId(ctx, payload.turnId), version: 0, parent: session.head, sessionId: session.id, role: 'system', blocks, meta }),
      merge: { from: refOf(from), base, as: payload.as },
    };
    return appendTurn(ctx, session, turn);
  },
});

export const turnPick = defineCommand({
  type: 'turn:pick',
  description:
    "Copies one turn version of another branch (one the session sees, or of a session of its fork family) onto the session's head as a new turn, noting where it came from (meta.pickedFrom); retains its blobs.",
  payload: z.strictObject({ sessionId: Id, from: TurnRef, turnId: Id.optional() }),
  sessions: forkFamily,
  reduce(payload, ctx) {
    const { index } = ctx;
    const session: Session = requireSession(index, payload.sessionId);
    const source = requireTurn(index, payload.from);
    if (!viewOf(index, session).sees(source) && !forkFamily(payload, index).includes(source.sessionId)) {
      throw fail('TURN_NOT_IN_SESSION', `turn "${source.id}" version ${source.version} is in no branch of session "${session.id}"'s fork family`, {
        sessionId: session.id,
        turnId: source.id,
        version: source.version,
      });
    }
    if (source.merge !== undefined) {
      throw fail('INVALID_ARGUMENT', `turn "${source.id}" is a merge turn: merge its branch (turn:merge) instead of copying it`, { turnId: source.id });
    }
    if (allAncestors(index, session.head).has(turnKey(source))) {
      throw fail(
        'MERGE_NOTHING',
        `turn "${source.id}" version ${source.version} is already in the history of session "${session.id}"'s head: nothing to pick`,
        {
          sessionId: session.id,
          turnId: source.id,
          version: source.version,
        },
      );
    }
    const meta: JsonObject = { pickedFrom: { sessionId: source.sessionId, turn: refOf(source) } };
    const id = requireNewNodeId(ctx, payload.turnId);
    return appendTurn(
      ctx,
      session,
      makeTurn(ctx, { id, version: 0, parent: session.head, sessionId: session.id, role: source.role, blocks: [...source.blocks], meta }),
    );
  },
});

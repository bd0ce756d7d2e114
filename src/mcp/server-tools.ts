/**
 * The tools Golem's MCP server offers, as Golem actions: seed 004's origin's three UI tools
 * (patch_ui_state, get_ui_state, list_ui_instances), the sessions (list, read, fork, send a
 * message and get the agent's answer, compare two) and the clearance queue (list, diff).
 */
import { z } from 'zod';
import { defineAction, type Action } from '../action/action.js';
import type { ClearanceApi } from '../agent/clearance.js';
import type { Worker, WorkerOptions } from '../agent/worker/index.js';
import { answerText } from '../agent/worker/outcome.js';
import { GolemError } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Turn } from '../core/records.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Session } from '../prompt/session.js';
import type { SessionDiff } from '../prompt/session-diff.js';
import type { SessionManager } from '../prompt/session-manager.js';
import type { UIApi } from '../ui/ui-api.js';
import type { RunService } from '../agent/run-service.js';

interface Served {
  readonly manager: WorkspaceManager;
  readonly sessions: SessionManager;
  readonly ui: UIApi;
  readonly clearance: ClearanceApi;
  readonly runs: RunService;
  worker(options: WorkerOptions): Worker;
}

const SessionId = z.string().min(1).max(200).describe('A session id (list_sessions names them)');

export function golemTools(ws: Served, options: { model?: ModelAdapter; agentActions?: Action[]; project?: { root: string } }): Action[] {
  const open = async (id: string): Promise<Session> => {
    const session = await ws.sessions.open(id);
    if (session === undefined) throw new GolemError('SESSION_NOT_FOUND', `no session "${id}"; list_sessions names them`, { details: { sessionId: id } });
    return session;
  };
  // The UI tools as the agents of sessions have them: to another agent (no session), every instance of the workspace.
  const uiTools = ws.ui.actions();
  return [
    ...uiTools,
    defineAction({
      name: 'list_sessions',
      description: 'The sessions (conversations) of the workspace, newest first: id, label, number of turns, last change.',
      input: z.strictObject({ limit: z.number().int().min(1).max(200).optional().describe('At most this many (default 50)') }),
      repeatable: true,
      run: ({ limit }) =>
        ws.sessions
          .list()
          .sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1))
          .slice(0, limit ?? 50)
          .map((s) => ({ sessionId: s.id, label: s.label, turns: s.length ?? null, updatedAt: s.updatedAt })),
    }),
    defineAction({
      name: 'read_session',
      description: "A session's conversation as text, oldest first: each turn's id, role and text, with its tool calls and results.",
      input: z.strictObject({ sessionId: SessionId, last: z.number().int().min(1).max(1000).optional().describe('Only the last this many turns') }),
      repeatable: true,
      run: async ({ sessionId, last }) => {
        const turns = await (await open(sessionId)).transcript();
        return transcriptText(last === undefined ? turns : turns.slice(-last));
      },
      render: (text) => text,
    }),
    defineAction({
      name: 'fork_session',
      description: "Starts a new session that shares a session's history up to a turn (default: all of it), to try another way without changing the first.",
      input: z.strictObject({
        sessionId: SessionId,
        turnId: z.string().min(1).optional().describe('Fork after this turn (read_session shows the ids); default: the latest'),
        label: z.string().max(200).optional(),
      }),
      run: async ({ sessionId, turnId, label }) => {
        const fork = await ws.sessions.fork(sessionId, turnId, label === undefined ? {} : { label });
        return { sessionId: fork.id, forkedFrom: sessionId };
      },
    }),
    defineAction({
      name: 'send_message',
      description:
        "Sends a user message to a session (a new one if sessionId is left out) and waits for Golem's agent to answer: the answer's text, the session id, and how the run ended (done, or paused on an approval the user gives in Golem).",
      input: z.strictObject({ sessionId: SessionId.optional(), text: z.string().min(1).max(100_000) }),
      run: async ({ sessionId, text }, ctx) => {
        const model = options.model;
        if (model === undefined)
          throw new GolemError('NO_MODEL', 'this Golem MCP server was started without a model, so its agent cannot answer; start it with --model');
        const session = sessionId === undefined ? await ws.sessions.create({ label: text.slice(0, 60) }) : await open(sessionId);
        const actions = [...uiTools, ...(options.agentActions ?? []).filter((a) => !uiTools.some((t) => t.name === a.name))];
        // One run of a session at a time, here or in a golem serve or golem chat (SESSION_BUSY otherwise).
        const stop = new AbortController();
        ctx.signal?.addEventListener('abort', () => stop.abort(), { once: true });
        const claim = await ws.runs.claim(session.id, { by: `golem MCP server, pid ${process.pid}`, resumable: false, signal: stop.signal });
        const { outcome, error } = await claim.run(({ signal }) =>
          ws.worker({ session, model, actions, ...(options.project !== undefined && { project: options.project }) }).run(text, { signal }),
        ).done;
        if (outcome === undefined) throw error ?? new GolemError('INTERNAL', 'the run ended without an outcome');
        return {
          sessionId: session.id,
          status: outcome.status,
          answer: answerText(outcome),
          ...(outcome.approval !== undefined && { waitingFor: { approvalId: outcome.approval.id, description: outcome.approval.description } }),
          ...(outcome.error !== undefined && { error: { code: outcome.error.code, message: outcome.error.message } }),
        };
      },
      // Only a run that ended well, or waits for the user, answered; the others say how they ended.
      failed: (output) =>
        output.status === 'done' || output.status === 'paused' || output.status === 'question'
          ? undefined
          : (output.error?.message ?? `the run ended: ${output.status}`),
    }),
    defineAction({
      name: 'diff_sessions',
      description:
        'Compares two sessions, say a conversation and a fork of it: the turn where they parted, the turns each has had since, ' +
        'the environment values that differ, the UI instances that differ (as RFC 6902 JSON Patch from a to b), and the clearance items waiting on each. ' +
        'Environment values and UI instances are compared as each session last saw them, at its latest turn.',
      input: z.strictObject({ a: SessionId, b: SessionId }),
      repeatable: true,
      run: async ({ a, b }) => sessionDiffText(await ws.sessions.diff(a, b)),
      render: (text) => text,
    }),
    defineAction({
      name: 'list_clearance',
      description: "What waits for the user's clearance: staged file changes and calls the user runs (manual mode), with their ids.",
      input: z.strictObject({}),
      repeatable: true,
      run: () => ws.clearance.list().map((c) => ({ id: c.id, type: c.type, status: c.status, description: c.description, sessionId: c.sessionId })),
    }),
    defineAction({
      name: 'clearance_diff',
      description: 'The diff of a staged change waiting for clearance (list_clearance names them).',
      input: z.strictObject({ id: z.string().min(1) }),
      repeatable: true,
      run: ({ id }) => ws.clearance.diff(id),
      render: (diff) => diff,
    }),
  ] as Action[];
}

/** A conversation as text: `[turn id] role: text`, tool calls and results indented under it. */
export function transcriptText(turns: readonly Turn[]): string {
  return turns
    .map((turn) => {
      const lines = [`[${turn.id}] ${turn.role}:`];
      for (const block of turn.blocks) {
        if (block.type === 'text') lines.push(`  ${block.text.replace(/\n/g, '\n  ')}`);
        else if (block.type === 'tool_use') lines.push(`  → ${block.name}(${JSON.stringify(block.args)})`);
        else if (block.type === 'tool_result') {
          const text = block.content.flatMap((c) => (c.type === 'text' ? [c.text] : [`[${c.type}]`])).join('\n');
          lines.push(`  ← ${block.isError === true ? 'error: ' : ''}${text.replace(/\n/g, '\n    ')}`);
        } else if (block.type === 'summary') lines.push(`  (summary) ${block.text}`);
        else lines.push(`  [${block.type}]`);
      }
      return lines.join('\n');
    })
    .join('\n');
}

/** Two sessions compared, as text: where they parted, each side's turns since, then the layers that differ. */
export function sessionDiffText(diff: SessionDiff): string {
  const { turns, environment, ui, clearance } = diff;
  const lines = [
    turns.base === null
      ? `Sessions a (${diff.a}) and b (${diff.b}) share no history.`
      : `Sessions a (${diff.a}) and b (${diff.b}) parted after turn ${turns.base.id} (version ${turns.base.version}).`,
  ];
  for (const side of ['a', 'b'] as const) {
    lines.push('', `Turns of ${side} since then (${turns[side].length})${turns[side].length === 0 ? ': none' : ':'}`);
    if (turns[side].length > 0) lines.push(transcriptText(turns[side]));
  }
  lines.push('', `Environment values that differ (${environment.length})${environment.length === 0 ? ': none' : ':'}`);
  for (const e of environment) lines.push(`  ${e.environment}.${e.field}: a ${JSON.stringify(e.a)}, b ${JSON.stringify(e.b)}`);
  lines.push('', `UI instances that differ (${ui.length})${ui.length === 0 ? ': none' : ', as RFC 6902 from a to b:'}`);
  for (const u of ui)
    lines.push(`  ${u.instanceId} (${u.change === 'added' ? 'only in b' : u.change === 'removed' ? 'only in a' : 'changed'}): ${JSON.stringify(u.patch)}`);
  for (const side of ['a', 'b'] as const) {
    lines.push('', `Clearance items waiting on ${side} (${clearance[side].length})${clearance[side].length === 0 ? ': none' : ':'}`);
    for (const c of clearance[side]) lines.push(`  ${c.id} ${c.type} (${c.status}): ${c.description}`);
  }
  return lines.join('\n');
}

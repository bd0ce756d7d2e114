/**
 * The model the command line uses: a provider spec (`GOLEM_MODEL`, `--model`), or
 * `scripted:<file.json>`, which replays a JSON list of responses with the scripted
 * model (a test double, for demos and tests).
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { JsonObject } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import { MODEL_SPEC_FORMS, resolveModel } from '../models/resolve-model.js';
import { scriptedModel, type ScriptedResponse } from '../test/scripted-model.js';
import type { Workspace } from '../create-workspace.js';
import { recordsOf } from '../agent/agent-records.js';

export const CLI_MODEL_FORMS = [...MODEL_SPEC_FORMS, 'scripted:<file.json>  (replays scripted responses; a test double)'];

const ScriptFile = z.array(
  z.union([
    z.strictObject({ text: z.string(), thinking: z.string().optional() }),
    z.strictObject({
      text: z.string().optional(),
      toolCalls: z.array(z.strictObject({ name: z.string().min(1), input: JsonObject, callId: z.string().optional() })).min(1),
    }),
    // Waits until the user stops the answer (Esc, Ctrl-C): a model that takes its time, for demos and tests of stopping.
    z.strictObject({ hold: z.literal(true) }),
  ]),
);

/**
 * The model for `spec`. A scripted model plays its script once per conversation (a chat
 * session and its sub-workers' sessions): before each call it counts the answers it recorded
 * there (one step each), so a script spans restarts and the processes that share a store, and
 * a new session (`--new`) starts it again.
 */
export function cliModel(spec: string, options: { cwd: string; env: NodeJS.ProcessEnv; ws: Workspace }): ModelAdapter {
  if (!spec.startsWith('scripted:')) return resolveModel(spec, { env: options.env });
  const path = resolve(options.cwd, spec.slice('scripted:'.length));
  let steps = readScript(path);
  // A script rewritten while the process runs is played from its next call (a fuzz driver gives each case its own).
  const version = () => {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat === undefined ? undefined : `${stat.mtimeMs}:${stat.size}`;
  };
  let read = version();
  const current = () => {
    const changed = version();
    if (changed !== undefined && changed !== read) [steps, read] = [readScript(path), changed];
    return steps;
  };
  const modelId = path;
  const { ws } = options;
  /** The hold steps stopped in this process, by conversation: the script goes on past them. */
  const stopped = new Map<string, number[]>();
  const taken = async (sessionId: string | undefined): Promise<{ done: number; conversation: string }> => {
    await ws.manager.refresh();
    const view = ws.manager.workspace();
    // The conversation: the root session of the one answered, and every sub-worker under it (all sessions when none is named).
    const workers = recordsOf(view, 'worker');
    const root = sessionId === undefined ? undefined : (workers.find((w) => w.id === sessionId)?.rootSessionId ?? sessionId);
    const sessions = root === undefined ? ws.sessions.list().map((s) => s.id) : [root, ...workers.filter((w) => w.rootSessionId === root).map((w) => w.id)];
    await ws.manager.load(sessions);
    const inConversation = new Set(sessions);
    let done = 0;
    for (const turn of ws.manager.workspace().turns.values()) {
      const model = turn.meta.model as { provider?: unknown; modelId?: unknown } | undefined;
      if (turn.role === 'assistant' && inConversation.has(turn.sessionId) && model?.provider === 'scripted' && model.modelId === modelId) done++;
      // A summary it wrote (/compact, or a history too long) took a step too.
      const summary = turn.meta.summary as { model?: unknown } | undefined;
      if (turn.role === 'system' && inConversation.has(turn.sessionId) && summary?.model === `scripted:${modelId}`) done++;
    }
    return { done, conversation: root ?? '' };
  };
  return scriptedModel(
    async (_prompt, _call, options): Promise<ScriptedResponse> => {
      const { done: answered, conversation } = await taken(options.sessionId);
      let done = answered;
      for (const held of stopped.get(conversation) ?? []) if (held <= done) done++;
      const script = current();
      const step = script[done];
      if (step === undefined) throw new GolemError('MODEL_SCRIPT_EXHAUSTED', `the script ${path} has ${script.length} steps, and all of them were answered`);
      if ('hold' in step) {
        await new Promise<void>((resolve) => {
          if (options.signal?.aborted === true) resolve();
          else options.signal?.addEventListener('abort', () => resolve(), { once: true });
        });
        stopped.set(conversation, [...(stopped.get(conversation) ?? []), done]);
        throw new GolemError('MODEL_ABORTED', 'the answer was stopped while the script held it');
      }
      return {
        ...('text' in step && step.text !== undefined && { text: step.text }),
        ...('thinking' in step && step.thinking !== undefined && { thinking: step.thinking }),
        // Call ids count the steps taken, so they stay unique across runs.
        ...('toolCalls' in step && { toolCalls: step.toolCalls.map((c, i) => ({ name: c.name, input: c.input, callId: c.callId ?? `call_${done}_${i}` })) }),
      };
    },
    { provider: 'scripted', modelId },
  );
}

/** A script file's steps (INVALID_ARGUMENT saying what is wrong with it). */
function readScript(path: string): z.infer<typeof ScriptFile> {
  try {
    return ScriptFile.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    const reason = error instanceof z.ZodError ? error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ') : (error as Error).message;
    throw new GolemError(
      'INVALID_ARGUMENT',
      `cannot read the script ${path}: ${reason}. It must be a JSON list of { "text": ... }, { "toolCalls": [{ "name": ..., "input": {...} }] } or { "hold": true }`,
      { cause: error },
    );
  }
}

/**
 * What a worker is told about the worker tree and about run_command, read from the prompt the
 * model gets, and held to what the code then does (issue 37, section 4): a sub-worker at the
 * depth limit is offered neither spawn_worker nor the sentence about it; spawn_worker calls
 * run at most `concurrency` at once, and the prompt says that number; run_command asks first
 * unless the user allowed that exact command, and an Always grant is then honoured.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GOLEM_INSTRUCTIONS } from '../src/cli/chat.js';
import { createWorkspace, defineAction, projectActions, type ApprovalRequest, type Prompt } from '../src/index.js';
import { scriptedModel, type ScriptedResponse } from '../src/test/index.js';
import { tempDir } from './helpers.js';

const depthOf = (prompt: Prompt) => Number(/sub-worker at depth (\d)/.exec(prompt.system)?.[1] ?? 0);
const answered = (prompt: Prompt) => prompt.messages.at(-1)?.content.at(-1)?.type === 'tool-result';
const toolNames = (prompt: Prompt) => (prompt.tools ?? []).map((t) => t.name);
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('what a worker is told of the worker tree', () => {
  it('offers spawn_worker and its sentence above the depth limit, and neither at it', async () => {
    for (const maxDepth of [1, 2]) {
      const dir = tempDir();
      let ws = await createWorkspace({ dir });
      const chat = await ws.sessions.create();
      const prompts = new Map<number, Prompt>();
      const model = scriptedModel((prompt): ScriptedResponse => {
        const depth = depthOf(prompt);
        prompts.set(depth, prompt);
        if (answered(prompt)) return { text: `d${depth} done` };
        // Every worker that is offered spawn_worker uses it; the one at the limit answers.
        if (toolNames(prompt).includes('spawn_worker')) return { toolCalls: [{ name: 'spawn_worker', input: { task: `level ${depth + 1}` } }] };
        return { text: `d${depth} done at the limit` };
      });
      const outcome = await ws.worker({ session: chat, model, subWorkers: { maxDepth } }).run('dig');
      expect(outcome.status).toBe('done');
      expect([...prompts.keys()].sort()).toEqual(Array.from({ length: maxDepth + 1 }, (_, i) => i));
      for (const [depth, prompt] of prompts) {
        const above = depth < maxDepth;
        expect(toolNames(prompt).includes('spawn_worker'), `depth ${depth} of ${maxDepth}`).toBe(above);
        expect(prompt.system.includes('spawn_worker'), `depth ${depth} of ${maxDepth}`).toBe(above);
        if (depth > 0) expect(toolNames(prompt)).toContain('ask_parent');
      }
      // The deepest worker answered without a failed spawn: every worker of the tree is done.
      await ws.close();
      ws = await createWorkspace({ dir });
      const workers = [...ws.manager.workspace().collection('worker').values()];
      expect(workers.map((w) => [w.depth, w.status]).sort()).toEqual(Array.from({ length: maxDepth }, (_, i) => [i + 1, 'done']));
      expect(workers.find((w) => w.depth === maxDepth)?.result).toBe(`d${maxDepth} done at the limit`);
      await ws.close();
    }
  });

  it('still refuses a worker:spawn past the limit dispatched by hand (WORKER_DEPTH_EXCEEDED), writing nothing', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const spawn = (parentSessionId: string, maxDepth: number) =>
      ws.manager.dispatch({ type: 'worker:spawn', payload: { parentSessionId, parentCallId: 'c1', task: 'deeper', actions: [], maxDepth } });
    const first = await spawn(chat.id, 1);
    expect(first.ok).toBe(true);
    const child = first.ok ? first.value.id : '';
    const refused = await spawn(child, 1);
    expect(refused.ok ? undefined : [refused.error.code, refused.error.details]).toEqual(['WORKER_DEPTH_EXCEEDED', { depth: 2, maxDepth: 1 }]);
    expect([...ws.manager.workspace().collection('worker').values()].map((w) => w.depth)).toEqual([1]);
    await ws.close();
  });

  it('says how many spawn_worker calls of one answer run at once, and runs no more than that', async () => {
    for (const concurrency of [1, 2]) {
      const ws = await createWorkspace();
      const chat = await ws.sessions.create();
      let open = 0;
      let most = 0;
      const fetchPage = defineAction({
        name: 'fetch_page',
        description: 'Fetches a page.',
        input: z.object({ task: z.string() }),
        run: async ({ task }) => {
          most = Math.max(most, ++open);
          await wait(30);
          open--;
          return `page of ${task}`;
        },
      });
      const model = scriptedModel((prompt): ScriptedResponse => {
        if (depthOf(prompt) > 0) return answered(prompt) ? { text: 'read' } : { toolCalls: [{ name: 'fetch_page', input: { task: 'x' } }] };
        if (answered(prompt)) return { text: 'all read' };
        return { toolCalls: ['a', 'b', 'c', 'd'].map((task) => ({ name: 'spawn_worker', input: { task } })) };
      });
      await ws.worker({ session: chat, model, actions: [fetchPage], subWorkers: { concurrency, maxDepth: 2 } }).run('Read four pages');
      const root = model.calls[0]?.system ?? '';
      const sub = model.calls.find((p) => depthOf(p) === 1)?.system ?? '';
      if (concurrency === 1) {
        expect(root).toContain('The spawn_worker calls of one answer run one at a time, in order.');
        expect(sub).toContain('The spawn_worker calls of one answer run one at a time, in order.');
      } else {
        expect(root).toContain(`The spawn_worker calls of one answer run side by side, at most ${concurrency} at once: the others start as those finish.`);
        expect(sub).toContain(`at most ${concurrency} at once`);
      }
      expect(root).not.toContain('run at the same time');
      expect(most).toBe(concurrency);
      await ws.close();
    }
  });
});

describe('what the terminal agent is told of run_command', () => {
  it('asks first, and not again for a command the user allowed always, as GOLEM_INSTRUCTIONS says', async () => {
    const root = tempDir();
    const dir = tempDir();
    let ws = await createWorkspace({ dir });
    const chat = await ws.sessions.create();
    const command = 'echo ran >> log.txt';
    const model = scriptedModel((prompt): ScriptedResponse =>
      answered(prompt) ? { text: 'ran it' } : { toolCalls: [{ name: 'run_command', input: { command } }] },
    );
    const asked: ApprovalRequest[] = [];
    const options = {
      model,
      actions: projectActions(),
      project: { root },
      instructions: GOLEM_INSTRUCTIONS,
      requestApproval: async (request: ApprovalRequest) => (asked.push(request), { approved: 'always' as const }),
    };
    await ws.worker({ ...options, session: chat }).run('run it');
    expect(model.calls[0]?.system).toContain(
      'run_command asks the user first, unless they already allowed that exact command (always, or for this session) or chose a trust mode that does not ask.',
    );
    expect(asked).toHaveLength(1);
    // The grant is workspace state: after a reopen, in another conversation, the same command runs without asking.
    await ws.close();
    ws = await createWorkspace({ dir });
    const other = await ws.sessions.create();
    expect((await ws.worker({ ...options, session: other }).run('run it again')).status).toBe('done');
    expect(asked).toHaveLength(1);
    expect(readFileSync(join(root, 'log.txt'), 'utf8')).toBe('ran\nran\n');
    // Another command is asked about.
    const model2 = scriptedModel((prompt): ScriptedResponse =>
      answered(prompt) ? { text: 'ok' } : { toolCalls: [{ name: 'run_command', input: { command: 'echo other' } }] },
    );
    await ws.worker({ ...options, model: model2, session: other }).run('something else');
    expect(asked).toHaveLength(2);
    await ws.close();
  });
});

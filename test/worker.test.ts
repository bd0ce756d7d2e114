import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkspace, defineAction, projectActions, type Prompt, type WorkerEvent } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { Reader } from './fixtures/reader.js';
import { tempDir } from './helpers.js';

const lastText = (prompt: Prompt) =>
  prompt.messages
    .at(-1)
    ?.content.map((p) => (p.type === 'text' ? p.text : p.type === 'tool-result' && p.output.type === 'text' ? p.output.text : ''))
    .join('');

describe('the worker loop', () => {
  it('runs the actions the model calls, feeds back the results, and stops when the model does', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const reader = new Reader();
    const lookup = defineAction({
      name: 'lookup',
      description: 'Finds a topic in the books.',
      input: z.object({ topic: z.string() }),
      run: ({ topic }) => ({ book: 'Anatomy', page: topic === 'heart' ? 212 : 1 }),
    });
    const model = scriptedModel([
      { toolCalls: [{ name: 'lookup', input: { topic: 'heart' }, callId: 'c1' }] },
      { toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'selected_book_name', value: 'Anatomy' }, callId: 'c2' }] },
      { toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'current_page', value: '212' }, callId: 'c3' }] },
      { text: 'The heart is on page 212 of Anatomy.' },
    ]);
    const steps: number[] = [];
    const onEvent = (e: WorkerEvent) => e.type === 'step' && steps.push(e.requested);
    const worker = ws.worker({ session, model, environments: [reader], actions: [lookup], onEvent });
    const outcome = await worker.run('Find the chapter on the heart and open it');
    expect(outcome).toMatchObject({
      status: 'done',
      steps: 4,
      actions: [
        { name: 'lookup', ok: true },
        { name: 'update_editable_status', ok: true },
        { name: 'update_editable_status', ok: true },
      ],
    });
    expect(reader.editableStatus.selected_book_name?.value).toBe('Anatomy');
    expect(reader.editableStatus.current_page?.value).toBe('212');
    expect(steps).toEqual([1, 1, 1, 0]);
    // Every step saw the environment as it was then, and the result of the call before.
    expect(model.calls[0]?.system).toContain('selected_book_name: (not set)');
    expect(model.calls[3]?.system).toContain('current_page: 212');
    expect(lastText(model.calls[1] as Prompt)).toBe('{"book":"Anatomy","page":212}');
    expect(model.calls[0]?.tools?.map((t) => t.name)).toEqual(['update_editable_status', 'lookup']);
    const roles = (await session.transcript()).map((t) => t.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    await ws.close();
  });

  it('tells the model what went wrong, in a result it can correct, and changes nothing', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const reader = new Reader();
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'update_editable_status', input: { fieldName: 'selected_book_name', value: 'Cookbook' }, callId: 'a' },
          { name: 'update_editable_status', input: { fieldName: 'mode', value: 'scroll' }, callId: 'b' },
          { name: 'update_editable_status', input: { fieldName: 'current_page' }, callId: 'c' },
          { name: 'teleport', input: {}, callId: 'd' },
        ],
      },
      { text: 'I could not do it.' },
    ]);
    const outcome = await ws.worker({ session, model, environments: [reader] }).run('open the cookbook');
    expect(outcome.actions.map((a) => a.ok)).toEqual([false, false, false, false]);
    const results = model.calls[1]?.messages.at(-1)?.content ?? [];
    const texts = results.map((p) => (p.type === 'tool-result' && p.output.type === 'text' ? p.output.text : ''));
    const errorOf = (text: string | undefined) => (JSON.parse(text ?? '{}') as { success: boolean; error: string }).error;
    expect(errorOf(texts[0])).toMatch(/must be one of \["Physiology","Anatomy","Pocket"\], not "Cookbook"/);
    expect(errorOf(texts[1])).toMatch(/Field 'mode' is read-only/);
    expect(texts[2]).toMatch(/The input for update_editable_status is not valid:\n- the input is missing the required property "value"/);
    expect(texts[3]).toMatch(/Unknown action "teleport"\. The actions are: update_editable_status/);
    expect(results.every((p) => p.type === 'tool-result' && p.isError === true)).toBe(true);
    expect(reader.editableStatus.selected_book_name?.value).toBeNull();
    await ws.close();
  });

  it("tells the model a failed call's error code with its message", async () => {
    const root = tempDir();
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, '.git', 'config'), '[core]\n');
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const broken = defineAction({
      name: 'lookup',
      description: 'Finds a topic in the books.',
      input: z.object({ topic: z.string() }),
      run: () => {
        throw new Error('the index is gone');
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'read_file', input: { path: '.git/config' }, callId: 'protected' },
          { name: 'read_file', input: { path: '../outside.md' }, callId: 'outside' },
          { name: 'lookup', input: { topic: 'heart' }, callId: 'thrown' },
        ],
      },
      { text: 'I could not read them.' },
    ]);
    const outcome = await ws.worker({ session, model, actions: [...projectActions(), broken], project: { root } }).run('read the git config');
    expect(outcome.actions.map((a) => a.ok)).toEqual([false, false, false]);
    const results = model.calls[1]?.messages.at(-1)?.content ?? [];
    expect(results.map((p) => (p.type === 'tool-result' && p.output.type === 'text' ? p.output.text : ''))).toEqual([
      'read_file failed: PATH_PROTECTED: ".git/config" is inside .git/ (git\'s data), which actions may not read or change',
      expect.stringMatching(/^read_file failed: PATH_OUTSIDE_PROJECT: "\.\.\/outside\.md" is outside the project/),
      'lookup failed: INTERNAL: the index is gone',
    ]);
    await ws.close();
  });

  it("reads instructions from the text (seed 000's form), and reports the broken ones", async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const reader = new Reader();
    const model = scriptedModel([
      {
        text: 'Opening it:\n```json\n{"type":"workspace_action","action":"update_editable_status","params":{"fieldName":"selected_book_name","value":"Pocket"}}\n```\nthen {"action":"update_editable_status","fieldName":"current_page","value":"3"} and {"action": "update_editable_status", "fieldName": ',
      },
      { text: 'Done: Pocket, page 3.' },
    ]);
    const outcome = await ws.worker({ session, model, environments: [reader], mode: 'text' }).run('open the pocket book at its last page');
    expect(outcome).toMatchObject({ status: 'done', steps: 2 });
    expect(reader.editableStatus.current_page?.value).toBe('3');
    expect(model.calls[0]?.tools).toBeUndefined();
    const feedback = lastText(model.calls[1] as Prompt) ?? '';
    expect(feedback).toContain('Results of your instructions:');
    expect(feedback).toContain('- update_editable_status {"fieldName":"current_page","value":"3"} -> ok');
    expect(feedback).toContain('could not read an instruction: an instruction is not closed');
    await ws.close();
  });

  it("hands each part of an answer to the caller's onPart, beside the run's own text events", async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const model = scriptedModel([{ thinking: 'Look it up.', text: 'Page 3.' }]);
    const parts: string[] = [];
    const texts: string[] = [];
    const onEvent = (e: WorkerEvent) => e.type === 'text-delta' && texts.push(e.text);
    const outcome = await ws.worker({ session, model, onEvent, onPart: (part) => parts.push(part.type) }).run('which page?');
    expect(outcome).toMatchObject({ status: 'done', steps: 1 });
    expect(parts).toContain('thinking-delta');
    expect(parts.filter((p) => p === 'text-delta').length).toBeGreaterThan(0);
    expect(parts.at(-1)).toBe('finish');
    expect(texts.join('')).toBe('Page 3.');
    await ws.close();
  });

  it('stops at the step limit, and on cancellation', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const loop = scriptedModel(() => ({ toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'large_print', value: 'true' } }] }));
    const limited = await ws.worker({ session, model: loop, environments: [new Reader()], maxSteps: 3 }).run('go');
    expect(limited).toMatchObject({ status: 'step_limit', steps: 3 });
    const controller = new AbortController();
    const onEvent = (e: WorkerEvent) => e.type === 'action' && controller.abort();
    const stopped = await ws.worker({ session, model: loop, environments: [new Reader()], onEvent }).run('again', { signal: controller.signal });
    expect(stopped).toMatchObject({ status: 'aborted', steps: 1 });
    await ws.close();
  });

  it('answers the calls it did not run when cancelled mid-turn, and returns (not throws) a failed model call', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const controller = new AbortController();
    const charged: number[] = [];
    const charge = defineAction({
      name: 'charge',
      description: 'Charges a card.',
      input: z.object({ n: z.number() }),
      run: ({ n }) => {
        charged.push(n);
        controller.abort();
        return 'charged';
      },
    });
    const model = scriptedModel([{ toolCalls: [1, 2, 3].map((n) => ({ name: 'charge', input: { n }, callId: `c${n}` })) }]);
    const outcome = await ws.worker({ session, model, actions: [charge] }).run('charge three', { signal: controller.signal });
    expect(outcome.status).toBe('aborted');
    expect(charged).toEqual([1]);
    // Each result is recorded as it comes, in a tool turn of its own (so a resumed run knows what was done).
    const transcript = await session.transcript();
    expect(transcript.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'tool']);
    const results = transcript
      .slice(2)
      .flatMap((t) => t.blocks.map((b) => (b.type === 'tool_result' ? [b.callId, (b.content[0] as { text: string }).text] : [])));
    expect(results).toEqual([
      ['c1', 'charged'],
      ['c2', 'Not run: the user stopped the run.'],
      ['c3', 'Not run: the user stopped the run.'],
    ]);

    const failing = scriptedModel([{ toolCalls: [{ name: 'charge', input: { n: 9 } }] }, { text: 'x', failAfter: { parts: 0 } }]);
    const failed = await ws
      .worker({ session, model: failing, actions: [defineAction({ name: 'charge', description: 'd', input: z.object({ n: z.number() }), run: () => 'ok' })] })
      .run('again');
    expect(failed).toMatchObject({ status: 'error', steps: 2, actions: [{ name: 'charge', ok: true }], error: { code: 'MODEL_ERROR' } });
    expect(() => ws.worker({ session, model, environments: [new Reader(), new Reader()] })).toThrow(/two environments have the id "reader"/);
    await ws.close();
  });

  it('takes unquoted numbers and booleans for a field value', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const reader = new Reader();
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'update_editable_status', input: { fieldName: 'selected_book_name', value: 'Anatomy' } },
          { name: 'update_editable_status', input: { fieldName: 'current_page', value: 7 } },
          { name: 'update_editable_status', input: { fieldName: 'large_print', value: true } },
        ],
      },
      { text: 'done' },
    ]);
    await ws.worker({ session, model, environments: [reader] }).run('page 7, large print');
    expect([reader.editableStatus.current_page?.value, reader.editableStatus.large_print?.value]).toEqual(['7', 'true']);
    await ws.close();
  });

  it('resumes after a restart with the environment as it was', async () => {
    const dir = tempDir();
    let ws = await createWorkspace({ dir });
    const session = await ws.sessions.create();
    await ws
      .worker({
        session,
        model: scriptedModel([
          { toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'selected_book_name', value: 'Anatomy' } }] },
          { text: 'open' },
        ]),
        environments: [new Reader()],
      })
      .run('open Anatomy');
    await ws.close();
    ws = await createWorkspace({ dir });
    const reader = new Reader();
    const model = scriptedModel([{ text: 'You are in Anatomy.' }]);
    const again = ws.sessions.get(session.id);
    if (again === undefined) throw new Error('session lost');
    await ws.worker({ session: again, model, environments: [reader] }).run('where am I?');
    expect(reader.editableStatus.selected_book_name?.value).toBe('Anatomy');
    expect(model.calls[0]?.system).toContain('selected_book_name: Anatomy');
    expect(model.calls[0]?.messages.length).toBeGreaterThan(3); // the history from before the restart
    await ws.close();
  });
});

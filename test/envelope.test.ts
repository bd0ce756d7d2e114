import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkspace, defineAction, type ApprovalRequest, type Prompt, type Turn, type WorkerEvent } from '../src/index.js';
import { scriptedModel, type ScriptedResponse } from '../src/test/index.js';
import { tempDir } from './helpers.js';

/** One answer of the structured response protocol (seed 002), as the model writes it. */
const envelope = (action: 'PROCEED' | 'RETRY' | 'ABORT', message: string, command?: { action: string; parameters: Record<string, unknown> }) => ({
  decision: { action, message },
  reasoning: { analysis: 'what I see', rationale: 'why', expectedOutcome: 'what happens next' },
  ...(command !== undefined && { command }),
});
const answer = (...args: Parameters<typeof envelope>): ScriptedResponse => ({ text: JSON.stringify(envelope(...args)) });

/** The text of a prompt's last message (what the model was told last). */
const lastText = (prompt: Prompt | undefined) =>
  prompt?.messages
    .at(-1)
    ?.content.map((p) => (p.type === 'text' ? p.text : ''))
    .join('') ?? '';
const textOf = (turn: Turn | undefined) => (turn?.blocks ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

/** A note-taking action and an adder, recording what they were given. */
const tools = () => {
  const notes: string[] = [];
  const sums: [number, number][] = [];
  const note = defineAction({
    name: 'note',
    description: 'Saves a note.',
    input: z.object({ text: z.string().min(1) }),
    run: ({ text }) => (notes.push(text), { saved: text }),
  });
  const add = defineAction({
    name: 'add',
    description: 'Adds two numbers.',
    input: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => (sums.push([a, b]), a + b),
  });
  return { notes, sums, actions: [note, add] };
};

describe('envelope mode', () => {
  it('runs one command per answer, feeds its result back as a user turn, and ends on PROCEED without a command', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const { notes, sums, actions } = tools();
    const model = scriptedModel([
      answer('PROCEED', 'Saving the note first.', { action: 'note', parameters: { text: 'buy milk' } }),
      answer('PROCEED', 'The note is saved; now the sum.', { action: 'add', parameters: { a: 2, b: 3 } }),
      answer('PROCEED', 'Saved "buy milk"; 2 + 3 = 5.'),
    ]);
    const events: WorkerEvent[] = [];
    const steps: number[] = [];
    const onEvent = (e: WorkerEvent) => (e.type === 'step' ? steps.push(e.requested) : events.push(e));
    const outcome = await ws.worker({ session, model, actions, mode: 'envelope', onEvent }).run('Save a note and add 2 and 3');

    expect(outcome).toMatchObject({
      status: 'done',
      steps: 3,
      decision: { action: 'PROCEED', message: 'Saved "buy milk"; 2 + 3 = 5.' },
      actions: [
        { name: 'note', input: { text: 'buy milk' }, ok: true },
        { name: 'add', input: { a: 2, b: 3 }, ok: true },
      ],
    });
    expect(outcome.error).toBeUndefined();
    expect(JSON.parse(textOf(outcome.turn))).toEqual(envelope('PROCEED', 'Saved "buy milk"; 2 + 3 = 5.'));
    expect(notes).toEqual(['buy milk']);
    expect(sums).toEqual([[2, 3]]);
    expect(steps).toEqual([1, 1, 0]);
    expect(events.at(-1)).toMatchObject({ type: 'worker-end', status: 'done', text: 'Saved "buy milk"; 2 + 3 = 5.' });
    expect(events.filter((e) => e.type === 'action').map((e) => e.type === 'action' && [e.name, e.ok, e.output])).toEqual([
      ['note', true, { saved: 'buy milk' }],
      ['add', true, 5],
    ]);

    // Each result is a user turn marked as a command's result (no tool turns in this mode).
    const transcript = await session.transcript();
    expect(transcript.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect([transcript[2], transcript[4]].map((t) => [textOf(t), t?.meta.commandResult])).toEqual([
      ['Result of note: done\n{"saved":"buy milk"}', { name: 'note', ok: true }],
      ['Result of add: done\n5', { name: 'add', ok: true }],
    ]);
    expect(transcript.some((t) => t.blocks.some((b) => b.type === 'tool_use' || b.type === 'tool_result'))).toBe(false);

    // The model saw each result in its next prompt.
    expect(model.calls).toHaveLength(3);
    expect(lastText(model.calls[0])).toBe('Save a note and add 2 and 3');
    expect(lastText(model.calls[1])).toBe('Result of note: done\n{"saved":"buy milk"}');
    expect(lastText(model.calls[2])).toBe('Result of add: done\n5');

    // The protocol is in the system prompt, with the actions as commands; no native tools; the schema goes to the provider.
    const first = model.calls[0] as Prompt;
    expect(first.system).toContain('Answer each step with one JSON object');
    expect(first.system).toContain('- note {"text": string}: Saves a note.');
    expect(first.system).toContain('- add {"a": number, "b": number}: Adds two numbers.');
    expect(first.tools).toBeUndefined();
    expect(first.responseFormat).toMatchObject({ type: 'json', name: 'step' });
    const schema = first.responseFormat?.schema as {
      properties: { command: { properties: { action: { enum: string[] } } } };
      required: string[];
      allOf?: unknown;
    };
    expect(schema.properties.command.properties.action.enum).toEqual(['note', 'add']);
    expect(schema.required).toEqual(['decision', 'reasoning']);
    expect(schema.allOf).toBeUndefined(); // the decision rules are checked by validation, not sent
    expect(first.providerOptions).toEqual({ openai: { strictJsonSchema: false } });
    expect(model.calls.every((p) => p.responseFormat?.schema !== undefined)).toBe(true);
    await ws.close();
  });

  it('sends no schema to the provider with structuredOutput: false, and keeps the caller’s provider options', async () => {
    const ws = await createWorkspace();
    const { notes, actions } = tools();
    const run = async (options: { structuredOutput?: boolean; providerOptions?: Prompt['providerOptions'] }) => {
      const model = scriptedModel([answer('PROCEED', 'Noting.', { action: 'note', parameters: { text: 'x' } }), answer('PROCEED', 'Noted.')]);
      const outcome = await ws
        .worker({
          session: await ws.sessions.create(),
          model,
          actions,
          mode: 'envelope',
          ...(options.structuredOutput !== undefined && { envelope: { structuredOutput: options.structuredOutput } }),
          ...(options.providerOptions !== undefined && { providerOptions: options.providerOptions }),
        })
        .run('note x');
      expect(outcome).toMatchObject({ status: 'done', decision: { message: 'Noted.' } });
      return model.calls;
    };

    const plain = await run({ structuredOutput: false });
    expect(plain.map((p) => [p.responseFormat, p.providerOptions])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
    // The protocol is still told (and still validated).
    expect(plain[0]?.system).toContain('Answer each step with one JSON object');

    const mine = await run({ providerOptions: { openai: { strictJsonSchema: true, user: 'u1' }, anthropic: { x: 1 } } });
    expect(mine[0]?.responseFormat?.schema).toBeDefined();
    expect(mine[0]?.providerOptions).toEqual({ openai: { strictJsonSchema: true, user: 'u1' }, anthropic: { x: 1 } });
    expect(notes).toEqual(['x', 'x']);
    await ws.close();
  });

  it('accepts an answer in a code fence', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const { notes, actions } = tools();
    const fenced = (value: unknown) => ({ text: '```json\n' + JSON.stringify(value, null, 2) + '\n```' });
    const model = scriptedModel([
      fenced(envelope('PROCEED', 'Noting.', { action: 'note', parameters: { text: 'fenced' } })),
      fenced(envelope('PROCEED', 'Done.')),
    ]);
    const outcome = await ws.worker({ session, model, actions, mode: 'envelope' }).run('note it');
    expect(outcome).toMatchObject({ status: 'done', steps: 2, decision: { action: 'PROCEED', message: 'Done.' }, actions: [{ name: 'note', ok: true }] });
    expect(notes).toEqual(['fenced']);
    const transcript = await session.transcript();
    expect(transcript.filter((t) => t.meta.protocolErrors !== undefined)).toEqual([]);
    expect(lastText(model.calls[1])).toBe('Result of note: done\n{"saved":"fenced"}');
    await ws.close();
  });

  it('sends an invalid answer back with its errors, runs nothing for it, and a valid answer resets the count', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const { notes, sums, actions } = tools();
    const model = scriptedModel([
      { text: 'Sure! I will save the note now.' }, // not JSON
      answer('RETRY', 'Trying again.'), // RETRY needs a command
      answer('PROCEED', 'Teleporting.', { action: 'teleport', parameters: {} }), // no such command
      answer('PROCEED', 'Noting.', { action: 'note', parameters: { text: 'ok' } }), // valid: the count starts again
      answer('PROCEED', 'Adding.', { action: 'add', parameters: { a: 'two', b: 3 } }), // bad parameters
      answer('ABORT', 'Giving up.', { action: 'note', parameters: { text: 'bye' } }), // ABORT carries no command
      answer('PROCEED', 'Adding.', { action: 'note', parameters: { text: 'hi', extra: true } }), // unknown parameter
      answer('PROCEED', 'Noted "ok".'),
    ]);
    const outcome = await ws.worker({ session, model, actions, mode: 'envelope' }).run('note ok');

    // Three invalid answers in a row are allowed (the default limit), twice, around a valid one.
    expect(outcome).toMatchObject({
      status: 'done',
      steps: 8,
      decision: { message: 'Noted "ok".' },
      actions: [{ name: 'note', input: { text: 'ok' }, ok: true }],
    });
    expect(notes).toEqual(['ok']);
    expect(sums).toEqual([]);

    const told = model.calls.map(lastText);
    const errors = (i: number) => {
      expect(told[i]).toMatch(/^Your last answer does not follow the response schema:\n/);
      expect(told[i]).toMatch(/\nAnswer again with one JSON object that follows it\.$/);
      return told[i];
    };
    expect(errors(1)).toContain('the answer is not a JSON object');
    expect(errors(2)).toContain('command is required: RETRY asks for a corrective command');
    expect(errors(3)).toContain('command.action must be one of note, add');
    expect(told[4]).toBe('Result of note: done\n{"saved":"ok"}');
    expect(errors(5)).toContain('command.parameters.a must be a number');
    expect(errors(6)).toContain('command must be left out: ABORT stops the task');
    expect(errors(7)).toContain('command.parameters.extra is not a known property');

    // The errors are user turns of their own, marked as such; the one result is marked as a result.
    const transcript = await session.transcript();
    const users = transcript.filter((t) => t.role === 'user').slice(1);
    expect(users.map((t) => (t.meta.protocolErrors === true ? 'errors' : t.meta.commandResult !== undefined ? 'result' : '?'))).toEqual([
      'errors',
      'errors',
      'errors',
      'result',
      'errors',
      'errors',
      'errors',
    ]);
    await ws.close();
  });

  it('ends with PROTOCOL_INVALID_RESPONSE after maxInvalidResponses + 1 invalid answers in a row', async () => {
    const ws = await createWorkspace();
    const { notes, actions } = tools();

    const session = await ws.sessions.create();
    const model = scriptedModel([
      { text: 'no json here' },
      answer('RETRY', 'again'),
      answer('PROCEED', 'x', { action: 'teleport', parameters: {} }),
      answer('PROCEED', 'x', { action: 'note', parameters: { text: 7 } }),
      answer('PROCEED', 'never asked'),
    ]);
    const events: WorkerEvent[] = [];
    const outcome = await ws.worker({ session, model, actions, mode: 'envelope', onEvent: (e) => events.push(e) }).run('note');
    expect(outcome).toMatchObject({ status: 'error', steps: 4, actions: [], error: { code: 'PROTOCOL_INVALID_RESPONSE' } });
    expect(outcome.error?.message).toContain('4 times in a row');
    expect(outcome.error?.message).toContain('command.parameters.text must be a string');
    expect(outcome.decision).toBeUndefined();
    expect(model.calls).toHaveLength(4);
    expect(notes).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'worker-end', status: 'failed' });
    // The first three went back to the model; the fourth ended the run, and the answer stands as the last turn.
    const transcript = await session.transcript();
    expect(transcript.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(transcript.filter((t) => t.meta.protocolErrors === true)).toHaveLength(3);

    // A lower limit: one invalid answer goes back, the second in a row ends the run.
    const strict = scriptedModel([
      answer('PROCEED', 'ok', { action: 'note', parameters: { text: 'first' } }),
      { text: '{"decision": {"action": "PROCEED"}}' },
      answer('PROCEED', 'ok', { action: 'note', parameters: { text: 'second' } }),
      { text: '' },
      { text: '[1, 2]' },
    ]);
    const limited = await ws
      .worker({ session: await ws.sessions.create(), model: strict, actions, mode: 'envelope', envelope: { maxInvalidResponses: 1 } })
      .run('note twice');
    expect(limited).toMatchObject({ status: 'error', steps: 5, error: { code: 'PROTOCOL_INVALID_RESPONSE' }, actions: [{ name: 'note' }, { name: 'note' }] });
    expect(lastText(strict.calls[2])).toContain('decision.message is required');
    expect(lastText(strict.calls[4])).toContain('the answer is not a JSON object');
    expect(notes).toEqual(['first', 'second']);
    await ws.close();
  });

  it('ends with status failed and the decision on ABORT', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const { actions } = tools();
    const model = scriptedModel([
      answer('PROCEED', 'Checking.', { action: 'add', parameters: { a: 1, b: 1 } }),
      answer('ABORT', 'The task needs a calculator that can divide.'),
    ]);
    const events: WorkerEvent[] = [];
    const stepsSeen: number[] = [];
    const onEvent = (e: WorkerEvent) => (e.type === 'step' ? stepsSeen.push(e.step) : events.push(e));
    const outcome = await ws.worker({ session, model, actions, mode: 'envelope', onEvent }).run('divide 1 by 0');
    expect(outcome).toMatchObject({
      status: 'failed',
      steps: 2,
      decision: { action: 'ABORT', message: 'The task needs a calculator that can divide.' },
      actions: [{ name: 'add', ok: true }],
    });
    expect(outcome.error).toBeUndefined();
    expect(stepsSeen).toEqual([1, 2]);
    expect(events[0]).toMatchObject({ type: 'worker-start' });
    expect(events.filter((e) => e.type === 'action')).toEqual([expect.objectContaining({ name: 'add', ok: true, output: 2 })]);
    expect(events.filter((e) => e.type === 'worker-end')).toEqual([
      expect.objectContaining({ status: 'failed', text: 'The task needs a calculator that can divide.' }),
    ]);
    const transcript = await session.transcript();
    expect(transcript.at(-1)?.role).toBe('assistant');
    expect((JSON.parse(textOf(transcript.at(-1))) as { decision: unknown }).decision).toEqual({
      action: 'ABORT',
      message: 'The task needs a calculator that can divide.',
    });
    await ws.close();
  });

  it('records a failed command as failed, and lets the model RETRY with a corrective one', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const opened: string[] = [];
    const open = defineAction({
      name: 'open_file',
      description: 'Opens a file.',
      input: z.object({ path: z.string() }),
      run: ({ path }) => {
        if (path.startsWith('/')) throw new Error(`absolute paths are not allowed: ${path}`);
        if (path !== 'README.md') return { success: false, error: `no file ${path}` };
        opened.push(path);
        return { success: true, content: '# Golem' };
      },
    });
    const model = scriptedModel([
      answer('PROCEED', 'Opening it.', { action: 'open_file', parameters: { path: '/etc/README.md' } }),
      answer('RETRY', 'Relative, then.', { action: 'open_file', parameters: { path: 'readme.md' } }),
      answer('RETRY', 'The exact name.', { action: 'open_file', parameters: { path: 'README.md' } }),
      answer('PROCEED', 'It says "# Golem".'),
    ]);
    const outcome = await ws.worker({ session, model, actions: [open], mode: 'envelope' }).run('read the readme');
    expect(outcome).toMatchObject({
      status: 'done',
      steps: 4,
      decision: { message: 'It says "# Golem".' },
      actions: [
        { name: 'open_file', input: { path: '/etc/README.md' }, ok: false },
        { name: 'open_file', input: { path: 'readme.md' }, ok: false },
        { name: 'open_file', input: { path: 'README.md' }, ok: true },
      ],
    });
    expect(opened).toEqual(['README.md']);
    expect(lastText(model.calls[1])).toBe('Result of open_file: failed\nopen_file failed: INTERNAL: absolute paths are not allowed: /etc/README.md');
    expect(lastText(model.calls[2])).toBe('Result of open_file: failed\n{"success":false,"error":"no file readme.md"}');
    expect(lastText(model.calls[3])).toBe('Result of open_file: done\n{"success":true,"content":"# Golem"}');
    const results = (await session.transcript()).filter((t) => t.meta.commandResult !== undefined).map((t) => t.meta.commandResult);
    expect(results).toEqual([
      { name: 'open_file', ok: false },
      { name: 'open_file', ok: false },
      { name: 'open_file', ok: true },
    ]);
    await ws.close();
  });

  it('stops at the step limit', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const { notes, actions } = tools();
    const model = scriptedModel((_prompt, call) => answer('PROCEED', 'One more.', { action: 'note', parameters: { text: `n${call}` } }));
    const outcome = await ws.worker({ session, model, actions, mode: 'envelope', maxSteps: 2 }).run('note forever');
    expect(outcome).toMatchObject({ status: 'step_limit', steps: 2, actions: [{ name: 'note' }, { name: 'note' }] });
    expect(outcome.decision).toBeUndefined();
    expect(model.calls).toHaveLength(2);
    expect(notes).toEqual(['n0', 'n1']);
    // The last command's result is recorded: a later run goes on from it.
    expect((await session.transcript()).at(-1)?.meta.commandResult).toEqual({ name: 'note', ok: true });
    await ws.close();
  });
});

describe('envelope mode and trust', () => {
  const deployAction = (log: string[]) =>
    defineAction({
      name: 'deploy',
      description: 'Deploys.',
      input: z.object({ env: z.string() }),
      trust: 'supervised',
      describe: ({ env }) => ({ type: 'command', description: `deploy to ${env}`, details: { env }, risk: 'high' }),
      run: ({ env }) => (log.push(env), `deployed to ${env}`),
    });

  it('runs a supervised command the user approves', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const log: string[] = [];
    const requests: ApprovalRequest[] = [];
    const model = scriptedModel([answer('PROCEED', 'Deploying.', { action: 'deploy', parameters: { env: 'prod' } }), answer('PROCEED', 'Deployed to prod.')]);
    const outcome = await ws
      .worker({ session, model, actions: [deployAction(log)], mode: 'envelope', requestApproval: async (r) => (requests.push(r), { approved: true }) })
      .run('deploy to prod');
    expect(outcome).toMatchObject({ status: 'done', decision: { message: 'Deployed to prod.' }, actions: [{ name: 'deploy', ok: true }] });
    expect(log).toEqual(['prod']);
    expect(requests).toEqual([expect.objectContaining({ type: 'command', description: 'deploy to prod', risk: 'high' })]);
    expect(lastText(model.calls[1])).toBe('Result of deploy: done\ndeployed to prod');
    expect(ws.approvals.pending()).toEqual([]);
    await ws.close();
  });

  it('does not run a supervised command the user declines, and tells the model why', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const log: string[] = [];
    const model = scriptedModel([
      answer('PROCEED', 'Deploying.', { action: 'deploy', parameters: { env: 'prod' } }),
      answer('ABORT', 'The user does not want a deploy today.'),
    ]);
    const outcome = await ws
      .worker({ session, model, actions: [deployAction(log)], mode: 'envelope', requestApproval: async () => ({ approved: false, reason: 'not on Fridays' }) })
      .run('deploy to prod');
    expect(outcome).toMatchObject({ status: 'failed', decision: { action: 'ABORT' }, actions: [{ name: 'deploy', ok: false }] });
    expect(log).toEqual([]);
    expect(lastText(model.calls[1])).toBe('Result of deploy: failed\nThe user declined deploy: not on Fridays');
    expect((await session.transcript()).at(-2)?.meta.commandResult).toEqual({ name: 'deploy', ok: false });
    await ws.close();
  });

  it('pauses without anyone to ask, and resumes after the answer: the command runs once and the run goes on', async () => {
    const dir = tempDir();
    let ws = await createWorkspace({ dir });
    const chat = await ws.sessions.create();
    const log: string[] = [];
    const script = (): ScriptedResponse[] => [
      answer('PROCEED', 'Checking first.', { action: 'add', parameters: { a: 1, b: 2 } }),
      answer('PROCEED', 'Deploying.', { action: 'deploy', parameters: { env: 'prod' } }),
      answer('PROCEED', 'Deployed to prod.'),
    ];
    const actions = () => [...tools().actions, deployAction(log)];
    const first = scriptedModel(script());
    const paused = await ws.worker({ session: chat, model: first, actions: actions(), mode: 'envelope' }).run('ship it');
    expect(paused).toMatchObject({
      status: 'paused',
      steps: 2,
      approval: { action: 'deploy', input: { env: 'prod' }, status: 'pending' },
      actions: [{ name: 'add', ok: true }],
    });
    expect(log).toEqual([]);
    expect(first.calls).toHaveLength(2);
    // The command has no result yet: the answer that asked for it is the last turn.
    let transcript = await chat.transcript();
    expect(transcript.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    await ws.close();

    // Another process: answer the approval, then resume.
    ws = await createWorkspace({ dir });
    const [pending] = ws.approvals.pending();
    expect(pending).toMatchObject({ action: 'deploy', input: { env: 'prod' }, description: 'deploy to prod' });
    await ws.approvals.answer(pending?.id ?? '', { approved: true });
    const session = await ws.sessions.open(chat.id); // its turns in memory: interrupted() reads them synchronously
    if (session === undefined) throw new Error('lost the session');
    const second = scriptedModel(script().slice(2));
    const worker = ws.worker({ session, model: second, actions: actions(), mode: 'envelope' });
    expect(worker.interrupted()).toBe(true);
    const resumed = await worker.run();
    expect(resumed).toMatchObject({
      status: 'done',
      steps: 1,
      decision: { message: 'Deployed to prod.' },
      actions: [{ name: 'deploy', input: { env: 'prod' }, ok: true }],
    });
    expect(log).toEqual(['prod']);
    expect(second.calls).toHaveLength(1); // only the step after the command: the answered one is not asked again
    expect(lastText(second.calls[0])).toBe('Result of deploy: done\ndeployed to prod');
    expect(worker.interrupted()).toBe(false);
    transcript = await session.transcript();
    expect(transcript.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(transcript.filter((t) => t.meta.commandResult !== undefined).map((t) => t.meta.commandResult)).toEqual([
      { name: 'add', ok: true },
      { name: 'deploy', ok: true },
    ]);

    // Running again finds the run finished: nothing runs, the model is not called.
    const again = await worker.run();
    expect(again).toMatchObject({ status: 'done', steps: 0, actions: [], decision: { message: 'Deployed to prod.' } });
    expect(second.calls).toHaveLength(1);
    expect(log).toEqual(['prod']);
    await ws.close();
  });

  it('resumes a paused command the user declined without running it', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const log: string[] = [];
    const model = scriptedModel([
      answer('PROCEED', 'Deploying.', { action: 'deploy', parameters: { env: 'prod' } }),
      answer('ABORT', 'Not allowed to deploy.'),
    ]);
    const worker = ws.worker({ session, model, actions: [deployAction(log)], mode: 'envelope' });
    const paused = await worker.run('deploy');
    expect(paused.status).toBe('paused');
    await ws.approvals.answer(paused.approval?.id ?? '', { approved: false, reason: 'freeze' });
    const resumed = await worker.run();
    expect(resumed).toMatchObject({ status: 'failed', steps: 1, decision: { action: 'ABORT' }, actions: [{ name: 'deploy', ok: false }] });
    expect(log).toEqual([]);
    expect(model.calls).toHaveLength(2);
    expect(lastText(model.calls[1])).toBe('Result of deploy: failed\nThe user declined deploy: freeze');
    await ws.close();
  });
});

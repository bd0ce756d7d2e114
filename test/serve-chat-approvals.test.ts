/**
 * Approvals on the AI SDK's chat route, answered the way `useChat` answers them
 * (`addToolApprovalResponse`, sent back by `lastAssistantMessageIsCompleteWithApprovalResponses`
 * or by `sendMessage()`): the run paused and resumed in the same message, a page's run waiting
 * in memory, answers sent again, refusals, and a client that comes back to a resumed run.
 */
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import {
  approvalOf,
  chatOf,
  chunksOf,
  gate,
  lastMessageOnly,
  lookup,
  newWire,
  partsOf,
  post,
  reconnect,
  refusal,
  shapeOf,
  started,
  textOf,
  turnsOf,
  until,
  type NodeChat,
} from './helpers-chat.js';
import { deployAction, tempDir } from './helpers.js';

const { deploy, deploys } = deployAction();
const authorized = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

describe('golem serve: approvals on the AI SDK chat route', () => {
  it('pauses on a supervised call for approval: yes runs it once, no with a reason reaches the model', async () => {
    deploys.length = 0;
    const model = scriptedModel([
      { text: 'Deploying to staging.', toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] },
      { toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] },
      (prompt) => ({ text: `Stopped: ${JSON.stringify(prompt.messages.at(-1))}` }),
    ]);
    const { ws, server } = await started({ model, actions: [deploy] });
    const wire = newWire();
    const chat = chatOf(server, 'ship', wire);
    await chat.sendMessage({ text: 'ship it' });
    const asked = partsOf(chat).find((p) => p.type === 'tool-deploy');
    expect(asked).toMatchObject({ state: 'approval-requested', input: { target: 'staging' }, approval: { descriptor: { risk: 'high' } } });
    const [approval] = ws.approvals.pending({ rootSessionId: 'ship' });
    expect(approvalOf(asked)).toBe(approval!.id);
    // The part's call id is the model's, under its answer's turn: unique in the message.
    expect(asked?.toolCallId).toBe(`${approval!.turnId}:${approval!.callId}`);
    expect(deploys).toEqual([]);

    await chat.addToolApprovalResponse({ id: approval!.id, approved: true });
    // useChat sends the answer by itself, the run resumes in the same message and pauses on the next call.
    const second = await until(() => {
      const part = partsOf(chat).find((p) => p.type === 'tool-deploy' && (p.input as { target: string }).target === 'prod');
      return chat.status === 'ready' && part?.state === 'approval-requested' && part;
    });
    expect(deploys).toEqual(['staging']);
    expect(chat.messages).toHaveLength(2);
    expect(partsOf(chat).find((p) => p.toolCallId === asked!.toolCallId)).toMatchObject({ state: 'output-available', output: 'deployed to staging' });

    await chat.addToolApprovalResponse({ id: approvalOf(second), approved: false, reason: 'not on a Friday' });
    await until(() => chat.status === 'ready' && textOf(chat).includes('Stopped'));
    expect(partsOf(chat).find((p) => p.toolCallId === second.toolCallId)).toMatchObject({ state: 'output-denied' });
    expect(textOf(chat)).toContain('not on a Friday');
    expect(deploys).toEqual(['staging']);
    expect(chat.messages).toHaveLength(2);
    expect(partsOf(chat).map((p) => p.type)).toEqual(['step-start', 'text', 'tool-deploy', 'step-start', 'tool-deploy', 'step-start', 'text']);

    // The same answer again (a client retrying): nothing answered or run twice, and the stream of the run it resumed.
    await until(() => wire.chunks.at(-1)?.type === 'finish');
    const resent = wire.bodies.at(-1)!;
    const turns = await turnsOf(ws, 'ship');
    const calls = model.calls.length;
    const again = await post(server, resent);
    expect(again.status).toBe(200);
    // The run the first answer resumed, told again (not a second run, which would have nothing to say).
    const told = JSON.stringify(await chunksOf(again));
    expect(told).toContain('"delta":"Stopped: ');
    expect(told).toContain('"type":"tool-output-denied"');
    expect(await turnsOf(ws, 'ship')).toEqual(turns);
    expect(model.calls.length).toBe(calls);
    expect(deploys).toEqual(['staging']);
  });

  it('takes the answer sent after a message that was refused while the approval waited (APPROVAL_PENDING)', async () => {
    for (const options of [{}, { prepareSendMessagesRequest: lastMessageOnly }]) {
      deploys.length = 0;
      const model = scriptedModel([{ toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] }, { text: 'Deployed.' }]);
      const { ws, server } = await started({ model, actions: [deploy] });
      const wire = newWire();
      const chat = chatOf(server, 'typed-meanwhile', wire, options);
      await chat.sendMessage({ text: 'deploy prod' });
      const asked = partsOf(chat).find((p) => p.state === 'approval-requested');
      await chat.sendMessage({ text: 'also, what time is it?' });
      expect(chat.error?.message).toContain('APPROVAL_PENDING');
      // The refused message stays the client's last: the answer does not go by itself, and sendMessage() sends it.
      await chat.addToolApprovalResponse({ id: approvalOf(asked), approved: true });
      expect(wire.bodies).toHaveLength(2);
      await chat.sendMessage();
      expect(wire.bodies.at(-1)?.messageId).toBe(chat.messages[1]!.id);
      expect(chat.error).toBeUndefined();
      await until(() => chat.status === 'ready' && textOf(chat, 1) === 'Deployed.');
      expect(deploys).toEqual(['prod']);
      expect(partsOf(chat, 1).find((p) => p.type === 'tool-deploy')).toMatchObject({ state: 'output-available', output: 'deployed to prod' });
      expect(await turnsOf(ws, 'typed-meanwhile')).toEqual([
        ['user', 'deploy prod'],
        ['assistant', ''],
        ['tool', ''],
        ['assistant', 'Deployed.'],
      ]);
    }
  });

  it('shows the calls of an answer as their turn to run comes: a call after the one that waits does not hold its answer back', async () => {
    deploys.length = 0;
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'deploy', input: { target: 'staging' }, callId: 'dep' },
          { name: 'lookup', input: { city: 'Lisbon' }, callId: 'look' },
        ],
      },
      { text: 'Both done.' },
    ]);
    const { server } = await started({ model, actions: [deploy, lookup] });
    const chat = chatOf(server, 'two-calls');
    await chat.sendMessage({ text: 'Deploy, then check the weather.' });
    // The run waits at the first call: the second has not had its turn.
    expect(shapeOf(chat)).toEqual([
      ['step-start', null],
      ['tool-deploy', 'approval-requested'],
    ]);
    await chat.addToolApprovalResponse({ id: approvalOf(partsOf(chat)[1]), approved: true });
    await until(() => chat.status === 'ready' && textOf(chat) === 'Both done.');
    expect(shapeOf(chat)).toEqual([
      ['step-start', null],
      ['tool-deploy', 'output-available'],
      ['tool-lookup', 'output-available'],
      ['step-start', null],
      ['text', 'done'],
    ]);
    expect(deploys).toEqual(['staging']);
  });

  it("asks for a sub-worker's call in the thread's message, with the worker's path, and shows what became of it", async () => {
    deploys.length = 0;
    const model = scriptedModel([
      { toolCalls: [{ name: 'spawn_worker', input: { task: 'deploy it' }, callId: 'spawn' }] },
      { text: 'On it.', toolCalls: [{ name: 'deploy', input: { target: 'prod' }, callId: 'dep' }] },
      { text: 'deployed to prod' },
      { text: 'All done.' },
    ]);
    const { server } = await started({ model, actions: [deploy], subWorkers: true });
    const chat = chatOf(server, 'tree');
    await chat.sendMessage({ text: 'ship it' });
    expect(chat.error).toBeUndefined();
    // The sub-worker's text is its own; its call that waits for the user is the thread's.
    expect(textOf(chat)).toBe('');
    const asked = partsOf(chat).find((p) => p.type === 'tool-deploy');
    expect(asked).toMatchObject({ state: 'approval-requested', input: { target: 'prod' } });
    expect((asked!.approval as { descriptor: { workerPath: { depth: number; task: string }[] } }).descriptor.workerPath).toEqual([
      expect.objectContaining({ depth: 0 }),
      expect.objectContaining({ depth: 1, task: 'deploy it' }),
    ]);
    await chat.addToolApprovalResponse({ id: approvalOf(asked), approved: true });
    await until(() => chat.status === 'ready' && textOf(chat) === 'All done.');
    expect(deploys).toEqual(['prod']);
    expect(partsOf(chat).find((p) => p.type === 'tool-deploy')).toMatchObject({ state: 'output-available', output: 'deployed to prod' });
    expect(partsOf(chat).find((p) => p.type === 'tool-spawn_worker')).toMatchObject({ state: 'output-available' });
  });

  it("answers from useChat an approval a page's run waits for in memory, and streams that run on", async () => {
    deploys.length = 0;
    const model = scriptedModel([{ text: 'Hi.' }, { toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] }, { text: 'Deployed.' }]);
    const { server } = await started({ model, actions: [deploy] });
    const chat = chatOf(server, 'shared');
    await chat.sendMessage({ text: 'hello' });
    // The page sends a message on the same thread: its run waits for the page's dialog.
    const sent = await fetch(`${server.url}/api/sessions/shared/messages`, {
      method: 'POST',
      headers: authorized(server.token),
      body: JSON.stringify({ text: 'deploy prod' }),
    });
    expect(sent.status).toBe(202);
    await until(() => model.calls.length === 2);
    await chat.resumeStream();
    const asked = await until(() => partsOf(chat).find((p) => p.state === 'approval-requested'));
    await chat.addToolApprovalResponse({ id: approvalOf(asked), approved: true });
    await until(() => chat.status === 'ready' && textOf(chat) === 'Deployed.');
    expect(chat.error).toBeUndefined();
    expect(deploys).toEqual(['prod']);
    expect(partsOf(chat).find((p) => p.type === 'tool-deploy')).toMatchObject({ state: 'output-available', output: 'deployed to prod' });
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
  });

  it('resumes, once, a run whose approval was answered before this server started', async () => {
    deploys.length = 0;
    const dir = tempDir();
    const before = await createWorkspace({ dir });
    const session = await before.sessions.create({ id: 'left-over' });
    const paused = await before
      .worker({ session, model: scriptedModel([{ toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] }]), actions: [deploy] })
      .run('ship to prod');
    const approval = paused.approval!;
    await before.approvals.answer(approval.id, { approved: true }, { fingerprint: approval.fingerprint });
    await before.close();

    const ws = await createWorkspace({ dir });
    const { server } = await started({ model: scriptedModel([{ text: 'Live on prod.' }]), actions: [deploy] }, ws);
    const answer = answerBody('left-over', approval.id, `${approval.turnId}:${approval.callId}`);
    const resumed = JSON.stringify(await chunksOf(await post(server, answer)));
    expect(resumed).toContain('"output":"deployed to prod"');
    expect(resumed).toContain('"delta":"Live "');
    expect(JSON.stringify(await chunksOf(await post(server, answer)))).toContain('"delta":"Live "');
    expect(deploys).toEqual(['prod']);
    await server.close();
    await ws.close();
  });

  it('tells an answer recorded elsewhere, whose run has gone on since, from the turns: nothing runs, and no other run is streamed', async () => {
    deploys.length = 0;
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] }, { text: 'Deployed.' }, { text: 'You are welcome.' }]);
    const { server } = await started({ model, actions: [deploy] });
    const wire = newWire();
    const chat = chatOf(server, 'answered-elsewhere', wire);
    await chat.sendMessage({ text: 'deploy prod' });
    const asked = partsOf(chat).find((p) => p.state === 'approval-requested');
    // A page answers, and the thread goes on with another message.
    const page = (path: string, body: object) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: authorized(server.token), body: JSON.stringify(body) });
    expect((await page(`/api/approvals/${approvalOf(asked)}`, { answer: 'yes' })).status).toBe(200);
    await server.settled('answered-elsewhere');
    expect((await page('/api/sessions/answered-elsewhere/messages', { text: 'thanks' })).status).toBe(202);
    await server.settled('answered-elsewhere');
    const calls = model.calls.length;
    // The useChat page's answer, the same: the message as the turns have it.
    await chat.addToolApprovalResponse({ id: approvalOf(asked), approved: true });
    await until(() => chat.status === 'ready' && wire.bodies.length === 2 && wire.chunks.at(-1)?.type === 'finish');
    expect(textOf(chat)).toBe('Deployed.');
    expect(shapeOf(chat)).toEqual([
      ['step-start', null],
      ['tool-deploy', 'output-available'],
      ['step-start', null],
      ['text', 'done'],
    ]);
    expect(model.calls.length).toBe(calls);
    expect(deploys).toEqual(['prod']);
    // The answered part is done: useChat does not send the answer again.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(wire.bodies).toHaveLength(2);
  });

  it('rebuilds a resumed message whole for a client that comes back to the run an approval resumed', async () => {
    deploys.length = 0;
    const { held, release } = gate();
    const model = scriptedModel([
      { text: 'Deploying.', toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] },
      async () => {
        await held;
        return { text: 'Done.' };
      },
    ]);
    const { server } = await started({ model, actions: [deploy] });
    const first = chatOf(server, 'ship-again');
    await first.sendMessage({ text: 'ship it' });
    const asked = partsOf(first).find((p) => p.type === 'tool-deploy');
    await first.addToolApprovalResponse({ id: approvalOf(asked), approved: true });
    await until(() => partsOf(first).some((p) => p.type === 'tool-deploy' && p.state === 'output-available'));
    const second = chatOf(server, 'ship-again');
    const resuming = second.resumeStream();
    await until(() => partsOf(second).some((p) => p.type === 'tool-deploy' && p.state === 'output-available'));
    release();
    await resuming;
    await until(() => first.status === 'ready' && textOf(first).endsWith('Done.'));
    const shape = (chat: NodeChat) => partsOf(chat).map((p) => [p.type, p.state ?? null, p.type === 'text' ? p.text : null]);
    expect(shape(second)).toEqual(shape(first));
    expect(shape(second)).toEqual([
      ['step-start', null, null],
      ['text', 'done', 'Deploying.'],
      ['tool-deploy', 'output-available', null],
      ['step-start', null, null],
      ['text', 'done', 'Done.'],
    ]);
    expect(partsOf(second).find((p) => p.type === 'tool-deploy')).toMatchObject({ approval: { id: approvalOf(asked) } });
    expect(second.messages.map((m) => m.id)).toEqual([first.messages[1]!.id]);
    expect(deploys).toEqual(['staging']);
  });

  it("rebuilds it with a sub-worker's approved call (its step, its approval) and the UI instances of earlier cycles", async () => {
    deploys.length = 0;
    const { held, release } = gate();
    const model = scriptedModel([
      { toolCalls: [{ name: 'patch_ui_state', input: { instanceId: '__CREATE__', newInstanceId: 'panel', patches: [] } }] },
      { toolCalls: [{ name: 'spawn_worker', input: { task: 'deploy it' }, callId: 'spawn' }] },
      { toolCalls: [{ name: 'deploy', input: { target: 'prod' }, callId: 'dep' }] },
      { text: 'sub done' },
      async () => {
        await held;
        return { text: 'Done.' };
      },
    ]);
    const { server } = await started({ model, actions: [deploy], subWorkers: true });
    const first = chatOf(server, 'cycles');
    await first.sendMessage({ text: 'go' });
    const asked = await until(() => first.status === 'ready' && partsOf(first).find((p) => p.state === 'approval-requested'));
    await first.addToolApprovalResponse({ id: approvalOf(asked), approved: true });
    await until(() => model.calls.length === 5);
    const second = chatOf(server, 'cycles');
    const resuming = second.resumeStream();
    await until(() => partsOf(second).some((p) => p.type === 'tool-spawn_worker' && p.state === 'output-available'));
    release();
    await resuming;
    await until(() => first.status === 'ready' && textOf(first) === 'Done.');
    const shape = (chat: NodeChat) =>
      partsOf(chat).map((p) => `${p.type}:${(p.state as string | undefined) ?? ''}${p.approval === undefined ? '' : '+approval'}`);
    expect(shape(first)).toEqual([
      'step-start:',
      'tool-patch_ui_state:output-available',
      'data-ui:',
      'step-start:',
      'tool-spawn_worker:output-available',
      'step-start:',
      'tool-deploy:output-available+approval',
      'step-start:',
      'text:done',
    ]);
    expect(shape(second)).toEqual(shape(first));
    expect(partsOf(second).find((p) => p.type === 'data-ui')).toEqual(partsOf(first).find((p) => p.type === 'data-ui'));
    expect(deploys).toEqual(['prod']);
  });

  it('refuses a new message while an approval waits, and answers that are not for this thread', async () => {
    deploys.length = 0;
    const model = scriptedModel([
      { toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] },
      { toolCalls: [{ name: 'deploy', input: { target: 'qa' } }] },
      { text: 'Deployed.' },
    ]);
    const { ws, server } = await started({ model, actions: [deploy] });
    const say = (id: string, text: string) => ({
      id,
      messages: [{ id: `u-${text}`, role: 'user', parts: [{ type: 'text', text }] }],
      trigger: 'submit-message',
    });
    // A run paused on an approval, on this thread and on another.
    const chat = chatOf(server, 'ship');
    await chat.sendMessage({ text: 'ship it' });
    await chunksOf(await post(server, say('other', 'ship qa')));
    const [approval] = ws.approvals.pending({ rootSessionId: 'ship' });
    const [otherApproval] = ws.approvals.pending({ rootSessionId: 'other' });
    const callOf = (a: typeof approval) => `${a!.turnId}:${a!.callId}`;
    const turns = await turnsOf(ws, 'ship');
    const pending = await post(server, say('ship', 'never mind'));
    expect(await pending.clone().json()).toMatchObject({ error: { message: expect.stringContaining('sendMessage()') } });
    expect(await refusal(pending)).toEqual({ status: 409, code: 'APPROVAL_PENDING' });
    expect(await refusal(await post(server, answerBody('ship', 'no-such-approval', callOf(approval))))).toEqual({ status: 404, code: 'APPROVAL_NOT_FOUND' });
    expect(await refusal(await post(server, answerBody('ship', otherApproval!.id, callOf(otherApproval))))).toEqual({
      status: 404,
      code: 'APPROVAL_NOT_FOUND',
    });
    expect(await refusal(await post(server, answerBody('ship', approval!.id, 'another-call')))).toEqual({ status: 409, code: 'APPROVAL_MISMATCH' });
    // The model's call id alone is not the part's: it may name a call of another step.
    expect(await refusal(await post(server, answerBody('ship', approval!.id, approval!.callId)))).toEqual({ status: 409, code: 'APPROVAL_MISMATCH' });
    expect(await refusal(await post(server, answerBody('nowhere', approval!.id, callOf(approval))))).toEqual({ status: 404, code: 'SESSION_NOT_FOUND' });
    expect(await refusal(await reconnect(server, 'nowhere'))).toEqual({ status: 404, code: 'SESSION_NOT_FOUND' });
    expect(await turnsOf(ws, 'ship')).toEqual(turns);
    expect(
      ws.approvals
        .pending()
        .map((a) => a.id)
        .sort(),
    ).toEqual([approval!.id, otherApproval!.id].sort());
    expect(deploys).toEqual([]);

    await chat.addToolApprovalResponse({ id: approval!.id, approved: true });
    await until(() => chat.status === 'ready' && textOf(chat) === 'Deployed.');
    expect(await refusal(await post(server, answerBody('ship', approval!.id, callOf(approval), false)))).toEqual({ status: 409, code: 'APPROVAL_ANSWERED' });
    expect(deploys).toEqual(['staging']);
  });
});

/** The assistant message with one answered part, as useChat sends it back. */
function answerBody(id: string, approvalId: string, toolCallId: string, approved = true) {
  return {
    id,
    messages: [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'ship it' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [{ type: 'tool-deploy', toolCallId, state: 'approval-responded', input: {}, approval: { id: approvalId, approved } }],
      },
    ],
    trigger: 'submit-message',
    messageId: 'a1',
  };
}

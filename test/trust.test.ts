import { describe, expect, it } from 'vitest';
import { callFingerprint, createWorkspace, decideTrust, type Grant, type Trust } from '../src/index.js';
import { tempDir } from './helpers.js';

const MODES: Trust[] = ['autonomous', 'supervised', 'manual'];
type Grants = 'none' | 'workspace' | 'this session' | 'other session' | 'other key';

describe('the trust policy', () => {
  it('decides every combination of default, overrides, grants and staging as the precedence rules say', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const other = await ws.sessions.create();
    const dispatch = async (type: string, payload: unknown) => {
      const result = await ws.manager.dispatch({ type: type as 'trust:set', payload: payload as never });
      if (!result.ok) throw result.error;
      return result.value as unknown;
    };
    let checked = 0;
    for (const defaultMode of MODES) {
      for (const workspaceMode of [undefined, ...MODES]) {
        for (const sessionMode of [undefined, ...MODES]) {
          for (const workerMode of [undefined, ...MODES]) {
            for (const grants of ['none', 'workspace', 'this session', 'other session', 'other key'] as Grants[]) {
              for (const stages of [false, true]) {
                await dispatch('trust:set', { action: 'act', mode: workspaceMode ?? null });
                await dispatch('trust:set', { action: 'act', mode: sessionMode ?? null, sessionId: chat.id });
                const added: Grant[] = [];
                if (grants === 'workspace') added.push((await dispatch('grant:add', { action: 'act', key: 'k', scope: 'workspace' })) as Grant);
                if (grants === 'this session')
                  added.push((await dispatch('grant:add', { action: 'act', key: 'k', scope: 'session', sessionId: chat.id })) as Grant);
                if (grants === 'other session')
                  added.push((await dispatch('grant:add', { action: 'act', key: 'k', scope: 'session', sessionId: other.id })) as Grant);
                if (grants === 'other key') added.push((await dispatch('grant:add', { action: 'act', key: 'another', scope: 'workspace' })) as Grant);

                const decision = decideTrust(
                  ws.manager.workspace(),
                  { name: 'act', trust: defaultMode, stages },
                  'k',
                  chat.id,
                  workerMode === undefined ? {} : { act: workerMode },
                );
                // The rules, written out: the most specific setting wins; a grant only matters when supervised.
                const mode = sessionMode ?? workspaceMode ?? workerMode ?? defaultMode;
                const source =
                  sessionMode !== undefined ? 'session' : workspaceMode !== undefined ? 'workspace' : workerMode !== undefined ? 'worker' : 'action';
                const granted = grants === 'workspace' || grants === 'this session';
                const kind = mode === 'autonomous' ? 'run' : mode === 'supervised' ? (granted ? 'run' : 'ask') : stages ? 'stage' : 'defer';
                expect(decision, JSON.stringify({ defaultMode, workspaceMode, sessionMode, workerMode, grants, stages })).toMatchObject({ kind, mode, source });
                if (kind === 'run' && mode === 'supervised') expect(decision).toMatchObject({ grant: { id: added[0]?.id } });
                for (const grant of added) await dispatch('grant:revoke', { id: grant.id });
                checked++;
              }
            }
          }
        }
      }
    }
    expect(checked).toBe(3 * 4 * 4 * 4 * 5 * 2);
    await ws.close();
  });

  it('keeps overrides and grants in the workspace: they survive a restart', async () => {
    const dir = tempDir();
    let ws = await createWorkspace({ dir });
    const chat = await ws.sessions.create();
    await ws.manager.dispatch({ type: 'trust:set', payload: { action: 'run_command', mode: 'autonomous', sessionId: chat.id } });
    await ws.manager.dispatch({ type: 'grant:add', payload: { action: 'deploy', key: 'prod', scope: 'workspace' } });
    await ws.close();
    ws = await createWorkspace({ dir });
    const view = ws.manager.workspace();
    expect(decideTrust(view, { name: 'run_command', trust: 'supervised', stages: false }, 'ls', chat.id)).toMatchObject({ kind: 'run', source: 'session' });
    expect(decideTrust(view, { name: 'deploy', trust: 'supervised', stages: false }, 'prod', 'any session')).toMatchObject({
      kind: 'run',
      grant: { key: 'prod' },
    });
    expect(decideTrust(view, { name: 'deploy', trust: 'supervised', stages: false }, 'staging', 'any session')).toMatchObject({ kind: 'ask' });
    await ws.close();
  });

  it('refuses bad trust and grant commands with stable codes, writing nothing', async () => {
    const ws = await createWorkspace();
    const before = ws.manager.workspace().lastSeq;
    const bad = [
      { type: 'trust:set', payload: { action: 'x', mode: 'sometimes' } },
      { type: 'trust:set', payload: { action: 'x', mode: 'manual', sessionId: 'nope' } },
      { type: 'grant:add', payload: { action: 'x', key: 'k', scope: 'session' } },
      { type: 'grant:add', payload: { action: 'x', key: 'k', scope: 'session', sessionId: 'nope' } },
      { type: 'grant:revoke', payload: { id: 'nope' } },
    ];
    const codes = [];
    for (const command of bad) {
      const result = await ws.manager.dispatch(command as never);
      codes.push(result.ok ? 'ok' : result.error.code);
    }
    expect(codes).toEqual(['INVALID_PAYLOAD', 'SESSION_NOT_FOUND', 'INVALID_ARGUMENT', 'SESSION_NOT_FOUND', 'GRANT_NOT_FOUND']);
    expect(ws.manager.workspace().lastSeq).toBe(before);
    await ws.close();
  });
});

describe('approvals', () => {
  const request = (sessionId: string, turnId: string, input: unknown) => ({
    type: 'approval:request' as const,
    payload: {
      sessionId,
      turnId,
      callId: 'c1',
      action: 'run_command',
      input: input as never,
      grantKey: JSON.stringify(input),
      type: 'command' as const,
      description: 'run it',
      details: null,
      risk: 'high' as const,
      workerPath: [{ id: sessionId, depth: 0, task: 'chat' }],
    },
  });

  it('are bound to the exact call: another input for the same call, or an answer for another call, is refused', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const asked = await ws.manager.dispatch(request(chat.id, 't1', { command: 'ls' }));
    if (!asked.ok) throw asked.error;
    expect(asked.value).toMatchObject({ status: 'pending', fingerprint: callFingerprint('run_command', { command: 'ls' }) });
    // Asking again for the same call gives the same approval; for the same call id with another input, a refusal.
    const again = await ws.manager.dispatch(request(chat.id, 't1', { command: 'ls' }));
    expect(again.ok && again.value.id).toBe(asked.value.id);
    const swapped = await ws.manager.dispatch(request(chat.id, 't1', { command: 'rm -rf /' }));
    expect(!swapped.ok && swapped.error.code).toBe('APPROVAL_MISMATCH');
    // The same call id in another answer is another call.
    const other = await ws.manager.dispatch(request(chat.id, 't2', { command: 'rm -rf /' }));
    expect(other.ok && other.value.id).not.toBe(asked.value.id);

    const wrong = await ws.manager.dispatch({
      type: 'approval:answer',
      payload: { id: asked.value.id, answer: 'yes', fingerprint: callFingerprint('run_command', { command: 'rm -rf /' }) },
    });
    expect(!wrong.ok && wrong.error.code).toBe('APPROVAL_MISMATCH');
    expect(ws.manager.workspace().collections.get('approval')?.get(asked.value.id)).toMatchObject({ status: 'pending' });

    const yes = await ws.manager.dispatch({ type: 'approval:answer', payload: { id: asked.value.id, answer: 'always', fingerprint: asked.value.fingerprint } });
    expect(yes.ok && yes.value).toMatchObject({ status: 'approved', answer: 'always' });
    const grants = [...(ws.manager.workspace().collections.get('grant')?.values() ?? [])];
    expect(grants).toEqual([expect.objectContaining({ action: 'run_command', key: '{"command":"ls"}', scope: 'workspace', approvalId: asked.value.id })]);
    const twice = await ws.manager.dispatch({ type: 'approval:answer', payload: { id: asked.value.id, answer: 'no' } });
    expect(!twice.ok && twice.error.code).toBe('APPROVAL_ANSWERED');
    const missing = await ws.manager.dispatch({ type: 'approval:answer', payload: { id: 'nope', answer: 'no' } });
    expect(!missing.ok && missing.error.code).toBe('APPROVAL_NOT_FOUND');
    await ws.close();
  });

  it("stores a 'session' answer as a grant for that conversation only, and a 'no' with its reason", async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const a = await ws.manager.dispatch(request(chat.id, 't1', { command: 'make' }));
    const b = await ws.manager.dispatch(request(chat.id, 't2', { command: 'make' }));
    if (!a.ok || !b.ok) throw new Error('not asked');
    await ws.manager.dispatch({ type: 'approval:answer', payload: { id: a.value.id, answer: 'session' } });
    const no = await ws.manager.dispatch({ type: 'approval:answer', payload: { id: b.value.id, answer: 'no', reason: 'not on Fridays' } });
    expect(no.ok && no.value).toMatchObject({ status: 'denied', reason: 'not on Fridays' });
    const view = ws.manager.workspace();
    expect([...(view.collections.get('grant')?.values() ?? [])]).toEqual([expect.objectContaining({ scope: 'session', sessionId: chat.id })]);
    expect(decideTrust(view, { name: 'run_command', trust: 'supervised', stages: false }, '{"command":"make"}', chat.id).kind).toBe('run');
    expect(decideTrust(view, { name: 'run_command', trust: 'supervised', stages: false }, '{"command":"make"}', 'another chat').kind).toBe('ask');
    await ws.close();
  });
});

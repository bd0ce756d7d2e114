/**
 * An MCP tool the server changes after the user trusted it (issue 35, finding 12): a real
 * Streamable HTTP server built with the SDK on loopback, whose tool's description changes
 * mid-test, telling the client at once or only later (its list_changed held back), driven by
 * the scripted model. After a change, a per-tool "autonomous" no longer applies and an
 * "always" grant no longer covers the tool, even for a call made before the client heard of
 * the change; the approval asked carries the description and input schema before and now.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, type ApprovalRequest, type ApprovalResult, type Workspace } from '../src/index.js';
import type { McpConnection } from '../src/mcp/index.js';
import { scriptedModel } from '../src/test/index.js';
import { NOTES_AFTER as AFTER, NOTES_BEFORE as BEFORE, notesServer as startNotes } from './helpers-mcp-notes.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const notesServer = () => startNotes(cleanups);

async function workspace(): Promise<Workspace> {
  const ws = await createWorkspace();
  cleanups.push(() => ws.close());
  return ws;
}

/** Runs one model call of notes__add_note with `text` through `actions`, answering approvals with `answer`; what was asked. */
function runner(ws: Workspace, conn: McpConnection) {
  const asked: ApprovalRequest[] = [];
  let answer: ApprovalResult = { approved: true };
  const run = async (text: string, actions = conn.actions()) => {
    const session = await ws.sessions.create();
    const model = scriptedModel([{ toolCalls: [{ name: 'notes__add_note', input: { text } }] }, { text: 'Done.' }]);
    return ws.worker({ session, model, actions, requestApproval: async (r) => (asked.push(r), answer) }).run(`note ${text}`);
  };
  return { asked, run, answer: (next: ApprovalResult) => void (answer = next) };
}

const changeShown = {
  description: expect.stringContaining("the server changed this tool's description and input schema") as unknown,
  details: {
    changed: {
      before: { description: BEFORE, inputSchema: expect.objectContaining({ required: ['text'] }) as unknown },
      now: {
        description: AFTER,
        inputSchema: expect.objectContaining({ properties: expect.objectContaining({ to: expect.anything() }) as unknown }) as unknown,
      },
    },
  },
};

describe('an MCP tool the server changes', () => {
  it('loses its per-tool "autonomous" once changed, even before the client is told, and the approval shows before and now', async () => {
    const ws = await workspace();
    const notes = await notesServer();
    const conn = await ws.mcp.connect('notes', { type: 'http', url: notes.url, trust: { tools: { add_note: 'autonomous' } } });
    const { asked, run } = runner(ws, conn);
    const held = conn.actions(); // as a worker made before the change holds them
    await run('one');
    expect(asked).toEqual([]);
    notes.change(AFTER, 'quietly');
    await run('two', held);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject(changeShown);
    // The call read the tool list again: the actions offered now are the tool as it is.
    expect(conn.actions()[0]?.description).toContain('mails it to everyone');
    expect(conn.actions()[0]?.trust).toBe('supervised');
    await run('three');
    expect(asked).toHaveLength(2);
    expect(notes.calls).toEqual(['one', 'two', 'three']);
  });

  it('asks again despite an "always" given for the tool before, for a call made before the client heard of the change', async () => {
    const ws = await workspace();
    const notes = await notesServer();
    const conn = await ws.mcp.connect('notes', { type: 'http', url: notes.url });
    const { asked, run, answer } = runner(ws, conn);
    answer({ approved: 'always' });
    await run('one');
    await run('two'); // covered by "always"
    expect(asked).toHaveLength(1);
    expect(asked[0]?.details).not.toHaveProperty('changed');
    const held = conn.actions();
    notes.change(AFTER, 'quietly');
    answer({ approved: false, reason: 'not mailing anyone' });
    const refused = await run('three', held);
    expect(asked).toHaveLength(2);
    expect(asked[1]).toMatchObject(changeShown);
    expect(refused.actions).toEqual([expect.objectContaining({ name: 'notes__add_note', ok: false })]);
    expect(notes.calls).toEqual(['one', 'two']);
  });

  it('asks again after a change the server announced, with what changed', async () => {
    const ws = await workspace();
    const notes = await notesServer();
    const told: string[] = [];
    const conn = await ws.mcp.connect(
      'notes',
      { type: 'http', url: notes.url, trust: { tools: { add_note: 'autonomous' } } },
      { onToolsChanged: (actions) => told.push(actions[0]?.description ?? '') },
    );
    const { asked, run } = runner(ws, conn);
    notes.change(AFTER, 'told');
    await expect.poll(() => told.length).toBeGreaterThan(0);
    expect(conn.actions()[0]?.trust).toBe('supervised');
    await run('one');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject(changeShown);
  });
});

/**
 * Seed 001's "Shadow Turn" recipe: `npx tsx examples/recipes/shadow-turn.ts`.
 *
 * A middleware intercepts every `turn:add` of a user turn and first adds a hidden system turn
 * with what the model should know right now (here the time and the state of a deployment),
 * so the model reads it just before the user's message. The shadow turn is a turn like any
 * other (versioned, in the log, branchable), marked `meta.shadow` so a front end can hide it.
 * With GOLEM_MODEL set a real model answers; without, a scripted model (a test double) does.
 */
import { createWorkspace, resolveModel, type Middleware, type ModelAdapter, type TurnRef, type Workspace } from '../../src/index.js';
import { scriptedModel } from '../../src/test/index.js';

/** What the model should know at the moment a user speaks (read afresh for every message). */
type Situation = () => string;

/** The middleware: a shadow system turn before every user turn. */
function shadowTurns(ws: () => Workspace, situation: Situation): Middleware {
  return async (command, next) => {
    const payload = command.payload as { sessionId?: string; turn?: { role?: string }; expectedHead?: TurnRef | null };
    if (command.type !== 'turn:add' || payload.turn?.role !== 'user' || payload.sessionId === undefined) return next();
    const shadow = await ws().manager.dispatch({
      type: 'turn:add',
      payload: {
        sessionId: payload.sessionId,
        turn: { id: ws().manager.newId(), role: 'system', blocks: [{ type: 'text', text: situation() }], meta: { shadow: true } },
        // A user turn that names the head it expects: the shadow turn goes there, and the user turn under it.
        ...(payload.expectedHead !== undefined && { expectedHead: payload.expectedHead }),
      },
    });
    if (!shadow.ok) return shadow;
    const under = shadow.value;
    const expectedHead = payload.expectedHead !== undefined ? { expectedHead: { id: under.id, version: under.version } } : {};
    return next({ ...command, payload: { ...payload, ...expectedHead } });
  };
}

let deployment = 'deploy #41 of api is rolling out: 3 of 5 pods ready';
// The middleware (the processor) dispatches through the workspace it is part of: read when it runs.
const ws: Workspace = await createWorkspace({
  middleware: [
    shadowTurns(
      () => ws,
      () => `Now: ${new Date().toISOString().slice(0, 16)} UTC. ${deployment}.`,
    ),
  ],
});

const model: ModelAdapter =
  process.env.GOLEM_MODEL === undefined
    ? scriptedModel((prompt) => {
        // The scripted stand-in answers from the last system note it was sent, as a model reading it would.
        const notes = JSON.stringify(prompt.messages).match(/\[System note\] ([^"]*)/g) ?? [];
        return { text: `As of your message: ${(notes.at(-1) ?? '').replace('[System note] ', '')}` };
      })
    : resolveModel(process.env.GOLEM_MODEL);

const s = await ws.sessions.create({ label: 'on call' });
await s.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'How is the deploy going?' }] });
console.log('answer:', (await s.respond({ model })).blocks.map((b) => (b.type === 'text' ? b.text : '')).join(''));

deployment = 'deploy #41 of api finished: 5 of 5 pods ready';
// A caller that names the head it expects (a front end guarding against a race) still gets its shadow turn.
await s.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'And now?' }] }, { expectedHead: s.head() });
console.log('answer:', (await s.respond({ model })).blocks.map((b) => (b.type === 'text' ? b.text : '')).join(''));

const transcript = await s.transcript();
const shown = transcript.filter((t) => t.meta.shadow !== true);
console.log(`the user sees ${shown.length} turns: ${shown.map((t) => t.role).join(', ')}`);
console.log(`the model saw ${transcript.length}: ${transcript.map((t) => (t.meta.shadow === true ? 'shadow' : t.role)).join(', ')}`);
await ws.close();

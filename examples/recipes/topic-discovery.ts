/**
 * Seed 001's "Automatic Topic Discovery" recipe: `npx tsx examples/recipes/topic-discovery.ts`.
 *
 * A turn processor hands every user turn to a cheap model, which suggests the topics it is
 * about; the session's topics grow with them (`session:update`), and retrieval, which ranks
 * context entries and preferences against the session's topics, brings in what those topics
 * tag. With GOLEM_TOPIC_MODEL set (e.g. `openai:gpt-4.1-nano`) a real model suggests them;
 * without, a scripted model (a test double) does.
 */
import { createWorkspace, resolveModel, type ModelAdapter, type Session, type TurnProcessor, type Workspace } from '../../src/index.js';
import { scriptedModel } from '../../src/test/index.js';

const INSTRUCTION =
  'Name the topics this message is about, as short lowercase tags (one or two words each, at most 3). ' +
  'Answer with a JSON array of strings and nothing else, e.g. ["cardiology", "exercise"]. Answer [] if none stand out.';

/** The processor: every committed user turn is read by `model`, and the topics it names join its session's. */
function topicDiscovery(ws: () => Workspace, model: ModelAdapter): TurnProcessor {
  return {
    name: 'topic-discovery',
    accepts: (turn) => turn.role === 'user',
    async process(turn, ctx) {
      const text = turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
      if (text.trim() === '') return;
      const answer = await model.generate({ system: INSTRUCTION, messages: [{ role: 'user', content: [{ type: 'text', text }] }], temperature: 0 });
      const suggested = topicsIn(answer.text);
      const session = ws().manager.workspace().sessions.get(turn.sessionId);
      if (session === undefined || suggested.every((t) => session.topics.includes(t))) return;
      const updated = await ctx.dispatch({
        type: 'session:update',
        payload: { sessionId: session.id, updates: { topics: [...session.topics, ...suggested] } },
      });
      if (!updated.ok) throw updated.error; // reported as processor:error; the turn itself is kept
    },
  };
}

/** The tags in a model's answer: the first JSON array of strings in it, cleaned; none if there is no such array. */
function topicsIn(text: string): string[] {
  const match = /\[[^\]]*\]/.exec(text);
  if (match === null) return [];
  try {
    const value = JSON.parse(match[0]) as unknown;
    if (!Array.isArray(value)) return [];
    return value.flatMap((t) => (typeof t === 'string' && t.trim() !== '' && t.length <= 60 ? [t.trim().toLowerCase()] : [])).slice(0, 3);
  } catch {
    return [];
  }
}

const cheap: ModelAdapter =
  process.env.GOLEM_TOPIC_MODEL === undefined
    ? scriptedModel((prompt) => {
        const said = JSON.stringify(prompt.messages).toLowerCase();
        return { text: JSON.stringify([...(said.includes('heart') ? ['cardiology'] : []), ...(said.includes('run') ? ['exercise'] : [])]) };
      })
    : resolveModel(process.env.GOLEM_TOPIC_MODEL);

// The middleware (the processor) dispatches through the workspace it is part of: read when it runs.
const ws: Workspace = await createWorkspace({ extensions: [{ name: 'topic-discovery', processors: [topicDiscovery(() => ws, cheap)] }] });
ws.events.on('processor:error', (e) => console.error(`topic discovery failed on a turn: ${String(e.error)}`));
await ws.context.add({ key: 'beta-blockers', content: 'Beta blockers lower the resting heart rate.', topics: ['cardiology'] });
await ws.context.add({ key: 'zone-2', content: 'Zone 2 training keeps the heart rate at 60-70% of its maximum.', topics: ['exercise'] });
await ws.context.add({ key: 'sourdough', content: 'Sourdough rises with a wild yeast starter.', topics: ['baking'] });

const s: Session = await ws.sessions.create({ label: 'health questions' });
console.log('topics at first:', s.record().topics);
await s.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'My heart races when I climb stairs.' }] });
console.log('after the first message:', s.record().topics);
await s.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'How often does it happen?' }] });
await s.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'Mostly after I go for a run.' }] });
console.log('after the second:', s.record().topics);

// A prompt for the next answer, with a window of one turn: the context comes through the topics found.
const { record } = await s.buildPrompt({ model: cheap, relevance: { recentMessageWindow: 1 } });
console.log('context in the next prompt:', record.context.map((c) => c.key).join(', '));
await ws.close();

/**
 * The README's tour, runnable: `npx tsx examples/quickstart.ts [dir]`.
 * Without a folder it runs in memory. The tests run it too.
 */
import { createWorkspace } from '../src/index.js';

const dir = process.argv[2];
const ws = await createWorkspace(dir === undefined ? {} : { dir });
const s = await ws.sessions.create({ label: 'research', topics: ['cardiology'] });

const q = await s.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'How many chambers has the heart?' }] });
await s.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'Four.' }] });

// Editing never overwrites: it adds a version, and the head moves to it.
await s.editTurn(q.id, [{ type: 'text', text: 'How many chambers has a fish heart?' }]);
console.log('versions of the question:', (await s.branchInfo(q.id)).versions);
await s.switchVersionLeft(q.id); // back to the first question, and to the answer below it
console.log(
  'transcript:',
  (await s.transcript()).map((t) => (t.blocks[0]?.type === 'text' ? t.blocks[0].text : t.blocks[0]?.type)),
);

// Forks are O(1): they share history and copy no turns.
const f = await ws.sessions.fork(s.id, q.id);

// Blobs are stored once per content (SHA-256) and counted per reference.
const bytes = new TextEncoder().encode('%PDF-1.7 (a tiny stand-in for an atlas)');
const pdf = await ws.blobs.register(bytes, { mediaType: 'application/pdf', filename: 'atlas.pdf' });
await f.addTurn({ role: 'user', blocks: [{ type: 'document', blob: { sha256: pdf.sha256 }, mediaType: 'application/pdf' }] });
console.log('references to the pdf:', ws.blobs.get(pdf.sha256)?.refCount);

const refused = await ws.manager.dispatch({ type: 'turn:edit', payload: { sessionId: s.id, turnId: 'no-such-turn', blocks: [] } });
console.log('a refused command:', refused.ok ? 'ok' : refused.error.code);

console.log('summary:', await ws.summary());
await ws.close();

/**
 * Engine benchmarks (`npm run bench`): durable appends against the SQLite floor,
 * forks, transcripts and on-disk size. Prints medians in a table.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { countOpenAiTokens, createWorkspace, type Session } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { fmt, log, median, printTable, timeEach, type Row } from './lib.js';

const HISTORY = Number(process.env.BENCH_HISTORY ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 1000);
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'golem-bench-'));
  dirs.push(dir);
  return dir;
};

const turnText = (i: number) =>
  `Turn ${i}: a message of ordinary length, about two hundred bytes, the size of a typical chat turn in a working session with an agent.`;

function addTurn(s: Session, i: number) {
  return s.addTurn({ role: i % 2 === 0 ? 'user' : 'assistant', blocks: [{ type: 'text', text: turnText(i) }] });
}

/** The floor: one single-row INSERT transaction on the same machine with the same pragmas. */
function sqliteFloor(): { tick(i: number): void; close(): void } {
  const db = new Database(join(tempDir(), 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const tx = db.transaction((v: string) => insert.run(v));
  return { tick: (i) => void tx(turnText(i)), close: () => db.close() };
}

/** updateEditableStatus round trips (validation + a durable environment:update command), and a 1,000-page shelf's index and search. */
async function environmentFigures(): Promise<{ update: number; index: number; search: number }> {
  const { BookshelfEnvironment } = await import('../src/index.js');
  const books = tempDir();
  const { writeFileSync } = await import('node:fs');
  const words = ['heart', 'lung', 'kidney', 'blood', 'valve', 'nerve', 'muscle', 'bone', 'liver', 'skin'];
  for (let b = 0; b < 10; b++) {
    const pages = Array.from(
      { length: 100 },
      (_, p) => Array.from({ length: 120 }, (_, w) => words[(b * 7 + p * 3 + w) % words.length]).join(' ') + ` page ${p} of book ${b}.`,
    );
    writeFileSync(join(books, `Book${b}.md`), pages.join('\n\n'));
  }
  const start = performance.now();
  const shelf = new BookshelfEnvironment({ dir: books, pageSize: 800 });
  await shelf.load();
  const index = performance.now() - start;
  const pages = [...shelf.books.values()].reduce((n, b) => n + b.pages.length, 0);
  if (pages !== 1000) throw new Error(`the bench shelf has ${pages} pages, not 1,000`);
  const search = median(await timeEach(200, (i) => shelf.search(`${words[i % 10]} ${words[(i + 3) % 10]} valve`)));
  const ws = await createWorkspace({ dir: tempDir() });
  await shelf.mount(ws.manager);
  await shelf.updateEditableStatus('selected_book_name', 'Book0');
  const update = median(await timeEach(SAMPLES, (i) => shelf.updateEditableStatus('current_page', String((i % 100) + 1))));
  await ws.close();
  return { update, index, search };
}

/** Median prompt-build times for a 10,000-turn session with 1,000 context entries under 8,000 tokens. */
async function promptBuild(): Promise<{ estimate: number; openai: number }> {
  const ws = await createWorkspace();
  const topics = ['anatomy', 'cooking', 'travel', 'backend', 'database', 'finance', 'music', 'sport'];
  for (let i = 0; i < 1000; i++) {
    const topic = topics[i % topics.length] as string;
    await ws.context.add({ key: `entry-${i}`, content: `Entry ${i} about ${topic}: ${'detail '.repeat(20)}number ${i}.`, topics: [topic] });
  }
  const s = await ws.sessions.create({ topics: ['anatomy'] });
  for (let i = 0; i < 10_000; i++) await addTurn(s, i);
  const models = { estimate: scriptedModel([]), openai: { provider: 'openai', countTokens: countOpenAiTokens } };
  const out = { estimate: 0, openai: 0 };
  for (const [name, model] of Object.entries(models) as [keyof typeof out, (typeof models)[keyof typeof models]][]) {
    await s.buildPrompt({ model, tokenBudget: { total: 8000 } }); // first build counts the turns it sends
    out[name] = median(await timeEach(200, () => s.buildPrompt({ model, tokenBudget: { total: 8000 } })));
  }
  await ws.close();
  return out;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];

  // First, before the large workspaces below fill the heap (they slow every other measure's garbage collection).
  log('prompt builds: 10,000 turns, 1,000 context entries, 8,000-token budget...');
  const prompt = await promptBuild();

  log('environments: updateEditableStatus round trips, a 1,000-page shelf...');
  const environment = await environmentFigures();

  log('bare SQLite transactions, alone...');
  const alone = sqliteFloor();
  const floorAlone = median(await timeEach(SAMPLES, (i) => alone.tick(i)));
  alone.close();

  log('a workspace with 100 turns of history...');
  const smallDir = tempDir();
  const small = await createWorkspace({ dir: smallDir });
  const s1 = await small.sessions.create();
  for (let i = 0; i < 100; i++) await addTurn(s1, i);

  log(`a workspace with ${HISTORY.toLocaleString('en')} turns of history...`);
  const bigDir = tempDir();
  let ws = await createWorkspace({ dir: bigDir, durability: 'normal' });
  let big = await ws.sessions.create({ label: 'big' });
  const fillStart = performance.now();
  for (let i = 0; i < HISTORY; i++) await addTurn(big, i);
  const fillMs = performance.now() - fillStart;
  const path10k = await ws.sessions.create({ label: '10k' });
  for (let i = 0; i < 10_000; i++) await addTurn(path10k, i);
  await ws.close();
  const dbBytes = fileSize(join(bigDir, 'workspace.db')) + fileSize(join(bigDir, 'workspace.db-wal'));
  const turnsOnDisk = HISTORY + 10_000;

  log('reopening it with full durability...');
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const openStart = performance.now();
  ws = await createWorkspace({ dir: bigDir, durability: 'full' });
  const openMs = performance.now() - openStart;
  gc();
  const heapPerTurn = (process.memoryUsage().heapUsed - heapBefore) / turnsOnDisk;
  big = ws.sessions.get(ws.sessions.list().find((x) => x.label === 'big')?.id ?? '') as Session;
  const tenK = ws.sessions.get(ws.sessions.list().find((x) => x.label === '10k')?.id ?? '') as Session;

  // The floor and the two appends take turns, so all three see the same machine (disk, caches, other load).
  log('bare SQLite transactions and durable appends, taking turns...');
  const bare = sqliteFloor();
  const floorTimes: number[] = [];
  const smallTimes: number[] = [];
  const bigTimes: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    floorTimes.push(...(await timeEach(1, () => bare.tick(i))));
    smallTimes.push(...(await timeEach(1, () => addTurn(s1, 100 + i))));
    bigTimes.push(...(await timeEach(1, () => addTurn(big, HISTORY + i))));
  }
  bare.close();
  const floor = median(floorTimes);
  const append100 = median(smallTimes);
  const appendBig = median(bigTimes);
  await small.close();

  log('forks of the big session...');
  const turnsBefore = ws.manager.workspace().turns.size;
  const rowsBefore = (await ws.manager.store.stats()).records.turn ?? 0;
  const head = big.head();
  const forkTimes = await timeEach(200, () => ws.sessions.fork(big.id, head?.id));
  const rowsAfter = (await ws.manager.store.stats()).records.turn ?? 0;
  const turnsCopied = rowsAfter - rowsBefore + (ws.manager.workspace().turns.size - turnsBefore);

  log('transcripts of a 10,000-turn path...');
  const transcriptTimes = await timeEach(200, async () => {
    const t = await tenK.transcript();
    if (t.length !== 10_000) throw new Error(`transcript has ${t.length} turns`);
  });
  await ws.close();

  const ratio = appendBig / append100;
  rows.push(
    { measure: 'bare SQLite single-row transaction, alone', value: fmt(floorAlone), target: '' },
    { measure: 'bare SQLite single-row transaction (floor)*', value: fmt(floor), target: 'reference' },
    {
      measure: 'durable append, 100 turns of history',
      value: fmt(append100),
      target: `≤ 5× floor (${(append100 / floor).toFixed(2)}×)`,
      ok: append100 <= 5 * floor,
    },
    {
      measure: `durable append, ${HISTORY.toLocaleString('en')} turns of history`,
      value: fmt(appendBig),
      target: `≤ 5× floor (${(appendBig / floor).toFixed(2)}×)`,
      ok: appendBig <= 5 * floor,
    },
    { measure: 'append ratio (large / small history)', value: ratio.toFixed(2), target: '≤ 1.3', ok: ratio <= 1.3 },
    { measure: 'durable turns per second (sequential)', value: Math.round(1000 / appendBig).toLocaleString('en'), target: '' },
    { measure: `fork a ${HISTORY.toLocaleString('en')}-turn session (durable)`, value: fmt(median(forkTimes)), target: '< 1 ms', ok: median(forkTimes) < 1 },
    { measure: 'turn rows copied by 200 forks', value: String(turnsCopied), target: '0', ok: turnsCopied === 0 },
    { measure: 'transcript of a 10,000-turn path (index)', value: fmt(median(transcriptTimes)), target: '< 5 ms', ok: median(transcriptTimes) < 5 },
    { measure: 'build a prompt: 10k turns, 1k context, 8k budget (estimate)', value: fmt(prompt.estimate), target: '< 10 ms', ok: prompt.estimate < 10 },
    { measure: 'same, counting with the OpenAI tokenizer', value: fmt(prompt.openai), target: '< 10 ms', ok: prompt.openai < 10 },
    {
      measure: 'updateEditableStatus round trip (validated, durable command)',
      value: fmt(environment.update),
      target: `${Math.round(1000 / environment.update).toLocaleString('en')} per second`,
    },
    { measure: 'index a 1,000-page bookshelf', value: fmt(environment.index), target: '' },
    { measure: 'search it (semantic_search)', value: fmt(environment.search), target: '' },
    { measure: 'bytes on disk per turn (SQLite)', value: Math.round(dbBytes / turnsOnDisk).toLocaleString('en'), target: `text is ${turnText(0).length} B` },
    { measure: `open + index ${turnsOnDisk.toLocaleString('en')} turns`, value: fmt(openMs), target: '' },
    { measure: 'index heap per turn', value: `${Math.round(heapPerTurn)} B`, target: '' },
    { measure: 'fill rate, durability "normal"', value: `${Math.round((HISTORY / fillMs) * 1000).toLocaleString('en')} turns/s`, target: '' },
  );

  printTable(`Golem engine benchmarks (medians; node ${process.version}, ${SAMPLES} samples)`, rows, [
    '* the floor and both appends are measured taking turns, so they share the disk and caches alike',
  ]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

await main();

/**
 * PostgreSQL going away under a running workspace. The database is reached through a TCP
 * proxy on loopback that the test cuts and restores (the real server stays up for the
 * other tests): commands fail fast with STORE_ERROR while it is away, nothing acknowledged
 * is lost, the workspace works again once it is back, and a second workspace follows the
 * first again (its LISTEN connection reconnects).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, GolemError, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

/** A TCP proxy to PostgreSQL that can be cut (every connection dropped, new ones refused) and restored. */
async function proxy(): Promise<{ url: string; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const target = new URL(PG_URL);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', () => resolve()));
    port = (server?.address() as { port: number }).port;
  };
  const stop = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    server = undefined;
  };
  await listen();
  const url = new URL(PG_URL);
  url.port = String(port);
  return { url: url.toString(), cut: stop, restore: listen, close: stop };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('PostgreSQL going away', () => {
  it('fails commands fast while it is away, loses nothing acknowledged, and resumes when it is back', async () => {
    const link = await proxy();
    cleanups.push(() => link.close());
    const schema = freshSchema();
    const ws: Workspace = await createWorkspace({ store: postgresStore(link.url, { schema }) });
    cleanups.push(() => ws.close());
    const other = await createWorkspace({ store: postgresStore(PG_URL, { schema }) }); // direct: it stays connected
    cleanups.push(() => other.close());
    const session = await ws.sessions.create({ label: 'outage' });
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) acknowledged.push((await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: `before ${i}` }] })).id);

    await link.cut();
    const started = Date.now();
    const failed = await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'during' }] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(GolemError.isInstance(failed) && failed.code).toBe('STORE_ERROR');
    expect(Date.now() - started).toBeLessThan(5_000);
    // Meanwhile the database goes on for others.
    await other.manager.refresh();
    await other.sessions.get(session.id)?.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'from the other process' }] });

    await link.restore();
    // The next command works: it catches up with what the other process wrote first.
    const after = await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'after' }] });
    acknowledged.push(after.id);
    const path = (await session.transcript()).map((t) => (t.blocks[0]?.type === 'text' ? t.blocks[0].text : ''));
    expect(path).toEqual(['before 0', 'before 1', 'before 2', 'before 3', 'before 4', 'from the other process', 'after']);
    // Every acknowledged command is in the database, read back by a fresh process.
    const fresh = await createWorkspace({ store: postgresStore(PG_URL, { schema }) });
    cleanups.push(() => fresh.close());
    const reopened = await fresh.sessions.open(session.id);
    for (const id of acknowledged) expect(reopened?.turn(id)).toBeDefined();
    const log = await fresh.manager.store.commandLog();
    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: log.length }, (_, i) => i + 1));
    expect(log.filter((e) => e.type === 'turn:add')).toHaveLength(7);

    // The workspace behind the proxy hears of others' commits again (its listening connection came back).
    await other.sessions.get(session.id)?.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'heard?' }] });
    await until(async () => (await session.transcript()).length === 8);
  });
});

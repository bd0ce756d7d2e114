/**
 * A local HTTP server for the web tasks in tasks.ts: serves the task pages on 127.0.0.1 and
 * records the reward each page reports. Only the first report of an episode counts.
 *
 * Routes: `GET /` (index), `GET /tasks/<name>?seed=N&episode=E` (page 1),
 * `GET /tasks/<name>/<page>?seed=N&episode=E` (later pages), `POST /reward` (JSON report),
 * `GET /reward?episode=E` (the recorded report, or 404).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderTask, TASKS } from './tasks.js';

/** What a task page reports when it has been submitted. */
export interface RewardReport {
  episode: string;
  task: string;
  seed: number;
  reward: number;
  detail: string;
}

/** A started task server. */
export interface TaskServer {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  /** The address of page 1 of a task for this seed and episode. */
  taskUrl(name: string, seed: number, episode: string): string;
  /** The first report of an episode, if any. */
  reward(episode: string): RewardReport | undefined;
  /** Every recorded report, oldest first. */
  rewards(): RewardReport[];
  close(): Promise<void>;
}

/** Largest accepted `POST /reward` body. */
const MAX_BODY = 64 * 1024;
/** A larger body is read and dropped up to this size, then the connection is cut. */
const MAX_DRAIN = 1024 * 1024;
const MAX_SEED = 0xffffffff;
const EPISODE = /^[A-Za-z0-9._:-]{1,100}$/;
const MAX_DETAIL = 2000;

/** Pages may run inline code and talk to this server only. */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; form-action 'self'; base-uri 'none'";

const isTask = (name: string): boolean => TASKS.some((t) => t.name === name);

/** The report in a parsed body, or a reason it is not one. */
function parseReport(body: unknown): RewardReport | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body must be a JSON object';
  const r = body as Record<string, unknown>;
  const { episode, task, seed, reward, detail } = r;
  if (typeof episode !== 'string' || !EPISODE.test(episode)) return 'episode must be 1-100 characters of A-Z a-z 0-9 . _ : -';
  if (typeof task !== 'string' || !isTask(task)) return 'task must be the name of a task';
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) return 'seed must be an integer from 0 to 4294967295';
  if (typeof reward !== 'number' || !Number.isFinite(reward) || reward < 0 || reward > 1) return 'reward must be a number from 0 to 1';
  if (typeof detail !== 'string' || detail.length > MAX_DETAIL) return `detail must be a string of at most ${MAX_DETAIL} characters`;
  return { episode, task, seed, reward, detail };
}

function send(res: ServerResponse, status: number, type: 'json' | 'html' | 'text', body: string, headers: Record<string, string> = {}): void {
  const contentType = { json: 'application/json', html: 'text/html; charset=utf-8', text: 'text/plain; charset=utf-8' }[type];
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers });
  res.end(body);
}

const sendJson = (res: ServerResponse, status: number, value: unknown): void => send(res, status, 'json', JSON.stringify(value));

/** Reads the body up to MAX_BODY; undefined when it was larger. */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
      else if (size > MAX_DRAIN) req.destroy();
    });
    req.on('end', () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('request aborted'));
    });
  });
}

function indexPage(): string {
  const items = TASKS.map((t) => `<li><a href="/tasks/${t.name}">${t.title}</a> (${t.name}, ${t.pages} ${t.pages === 1 ? 'page' : 'pages'})</li>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Web tasks</title><link rel="icon" href="data:,"></head>
<body>
<h1>Web tasks</h1>
<ul aria-label="Tasks">
${items}
</ul>
</body>
</html>
`;
}

/** Starts a task server on 127.0.0.1 on a free port. */
export async function startTaskServer(): Promise<TaskServer> {
  const reports = new Map<string, RewardReport>();

  async function postReward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    if (raw === undefined) return sendJson(res, 413, { error: `the body is larger than ${MAX_BODY} bytes` });
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return sendJson(res, 400, { error: 'the body is not valid JSON' });
    }
    const report = parseReport(body);
    if (typeof report === 'string') return sendJson(res, 400, { error: report });
    if (reports.has(report.episode)) return sendJson(res, 409, { error: 'this episode already has a reward' });
    reports.set(report.episode, report);
    sendJson(res, 201, report);
  }

  function getTask(res: ServerResponse, url: URL, name: string, page: number): void {
    if (!isTask(name)) return send(res, 404, 'text', 'no such task\n');
    const seedText = url.searchParams.get('seed');
    const episode = url.searchParams.get('episode');
    if (seedText === null || episode === null) {
      // A fresh episode (and seed if none was given): each reward needs its own episode.
      const params = new URLSearchParams(url.searchParams);
      if (seedText === null) params.set('seed', String(randomInt(0, 2 ** 31)));
      if (episode === null) params.set('episode', randomUUID());
      return send(res, 302, 'text', 'redirect\n', { location: `${url.pathname}?${params.toString()}` });
    }
    const seed = /^[0-9]{1,10}$/.test(seedText) ? Number(seedText) : NaN;
    if (!(seed <= MAX_SEED)) return send(res, 400, 'text', 'seed must be an integer from 0 to 4294967295\n');
    if (!EPISODE.test(episode)) return send(res, 400, 'text', 'episode must be 1-100 characters of A-Z a-z 0-9 . _ : -\n');
    const html = renderTask(name, page, seed, episode);
    if (html === undefined) return send(res, 404, 'text', 'no such page\n');
    send(res, 200, 'html', html, { 'content-security-policy': CSP });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const only = (allowed: string): boolean => {
      if (method === allowed) return true;
      send(res, 405, 'text', 'method not allowed\n', { allow: allowed });
      return false;
    };
    if (url.pathname === '/') {
      if (only('GET')) send(res, 200, 'html', indexPage(), { 'content-security-policy': CSP });
      return;
    }
    if (url.pathname === '/reward') {
      if (method === 'POST') return postReward(req, res);
      if (!only('GET')) return;
      const episode = url.searchParams.get('episode');
      if (episode === null) return sendJson(res, 400, { error: 'episode is required' });
      const report = reports.get(episode);
      return report === undefined ? sendJson(res, 404, { error: 'no reward for this episode' }) : sendJson(res, 200, report);
    }
    const m = /^\/tasks\/([a-z-]+)(?:\/([1-9][0-9]{0,2}))?$/.exec(url.pathname);
    if (m !== null) {
      if (only('GET')) getTask(res, url, m[1] ?? '', Number(m[2] ?? '1'));
      return;
    }
    send(res, 404, 'text', 'not found\n');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 400, 'text', 'bad request\n');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    taskUrl: (name, seed, episode) => `${url}/tasks/${encodeURIComponent(name)}?${new URLSearchParams({ seed: String(seed), episode }).toString()}`,
    reward: (episode) => reports.get(episode),
    rewards: () => [...reports.values()],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e === undefined ? resolve() : reject(e)));
        server.closeAllConnections();
      }),
  };
}

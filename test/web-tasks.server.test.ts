import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTaskServer, type RewardReport, type TaskServer } from './web-tasks/server.js';
import { renderTask, TASKS } from './web-tasks/tasks.js';

/** The query sentence of each task, as a solver would parse it. */
const QUERY: Record<string, RegExp> = {
  login: /^Log in with username "[a-z]+\d\d" and password "[a-z0-9]{5}"$/,
  form: /^Fill in the form: name "[A-Z][a-z]+ [A-Z][a-z]+", email "[a-z.]+@example\.(com|org|net)", age "\d\d", comments "[^"]+"$/,
  'select-radio': /^Choose "[A-Za-z]+" as the country and "(Standard|Express|Overnight)" shipping$/,
  checkboxes: /^Tick exactly these boxes: "[a-z]+"(, "[a-z]+"){1,3} and leave the others unticked$/,
  'table-lookup': /^Find the price of "[A-Z][a-z]+ [a-z]+", save it as the variable "price", then enter it in the box below and press Check$/,
  'multi-page': /^Order [2-9] of "[A-Z][a-z]+ [a-z]+" and confirm$/,
  'late-content': /^Press the "Start" button, then press "Reveal code" when it appears, and type the code into the box$/,
  modal: /^Close the cookie dialog with "Reject", then subscribe with email "[a-z]+\d\d@example\.(com|org|net)"$/,
};

const SEEDS = [0, 1, 2, 42, 31337, 4294967295];

const queryOf = (html: string): string => {
  const m = /<div id="query">([^<]*)<\/div>/.exec(html);
  expect(m, 'the page has a query').not.toBeNull();
  return (m?.[1] ?? '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
};

/** The inline DATA of a page: the generated problem. */
const dataOf = (html: string): unknown => JSON.parse(/^const DATA = (.*);$/m.exec(html)?.[1] ?? 'null');

let server: TaskServer;
beforeAll(async () => {
  server = await startTaskServer();
});
afterAll(async () => {
  await server.close();
});

const get = (path: string): Promise<Response> => fetch(server.url + path, { redirect: 'manual' });
const postReward = (body: string): Promise<Response> =>
  fetch(`${server.url}/reward`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
const report = (episode: string, over: Partial<Record<keyof RewardReport, unknown>> = {}): string =>
  JSON.stringify({ episode, task: 'login', seed: 7, reward: 1, detail: 'correct', ...over });

describe('the web task pages', () => {
  it('lists exactly the eight tasks, with multi-page as the only flow of more than one page', () => {
    expect(TASKS.map((t) => t.name)).toEqual(['login', 'form', 'select-radio', 'checkboxes', 'table-lookup', 'multi-page', 'late-content', 'modal']);
    expect(TASKS.filter((t) => t.pages !== 1).map((t) => [t.name, t.pages])).toEqual([['multi-page', 3]]);
  });

  it.each(TASKS.map((t) => t.name))('%s renders every page for several seeds, with a heading, a query, labelled controls and a result', async (name) => {
    const task = TASKS.find((t) => t.name === name)!;
    for (const seed of SEEDS) {
      for (let page = 1; page <= task.pages; page++) {
        const res = await get(`/tasks/${name}${page === 1 ? '' : `/${page}`}?seed=${seed}&episode=ep-${seed}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
        const html = await res.text();
        expect(html).toBe(renderTask(name, page, seed, `ep-${seed}`));
        expect(queryOf(html)).toMatch(QUERY[name]!);
        expect(html).toMatch(/<h1>[^<]+<\/h1>/);
        expect(html).toContain('<div id="result" role="status"></div>');
        expect(html).toContain(`const CTX = {"task":"${name}","seed":${seed},"episode":"ep-${seed}"};`);
        // Every form control has a <label for> naming it.
        for (const [, id] of html.matchAll(/<(?:input|select|textarea)[^>]*\bid="([^"]+)"/g)) expect(html).toContain(`<label for="${id}">`);
        // Self-contained: no external scripts, styles or addresses.
        expect(html).not.toMatch(/\bsrc=|https?:\/\/|<link rel="stylesheet"/);
      }
    }
  });

  it('gives the same page for the same seed and a different problem for a different seed', () => {
    for (const { name } of TASKS) {
      expect(renderTask(name, 1, 42, 'e')).toBe(renderTask(name, 1, 42, 'e'));
      const problems = new Set(SEEDS.map((seed) => JSON.stringify(dataOf(renderTask(name, 1, seed, 'e')!))));
      expect(problems.size, name).toBe(SEEDS.length);
      // The episode is carried, but does not change the problem.
      expect(dataOf(renderTask(name, 1, 42, 'other')!)).toEqual(dataOf(renderTask(name, 1, 42, 'e')!));
    }
    // The query sentence itself changes with the seed where it has values in it.
    for (const name of ['login', 'form', 'select-radio', 'checkboxes', 'table-lookup', 'multi-page', 'modal']) {
      expect(new Set(SEEDS.map((seed) => queryOf(renderTask(name, 1, seed, 'e')!))).size, name).toBeGreaterThan(1);
    }
  });

  it('generates problems that fit the page: right choices exist, and the checkbox start state is not the answer', () => {
    for (const seed of SEEDS) {
      const table = renderTask('table-lookup', 1, seed, 'e')!;
      const [, product] = /price of "([^"]+)"/.exec(queryOf(table)) ?? [];
      const price = (dataOf(table) as { price: string }).price;
      expect(price).toMatch(/^\d+\.\d\d$/);
      expect(table).toContain(`<tr><td>${product}</td><td>${price}</td>`);
      expect(table.match(/<tr><td>/g)?.length).toBeGreaterThanOrEqual(6);
      expect(table.match(/<tr><td>/g)?.length).toBeLessThanOrEqual(8);

      const select = renderTask('select-radio', 1, seed, 'e')!;
      const [, country] = /"([^"]+)" as the country/.exec(queryOf(select)) ?? [];
      expect(select).toContain(`<option>${country}</option>`);
      expect(select.match(/<option>/g)?.length).toBeGreaterThanOrEqual(5);

      const boxes = renderTask('checkboxes', 1, seed, 'e')!;
      const wanted = [...queryOf(boxes).matchAll(/"([a-z]+)"/g)].map((m) => m[1]);
      const all = [...boxes.matchAll(/<input type="checkbox" id="box-([a-z]+)" value="[a-z]+"( checked)?>/g)];
      expect(all).toHaveLength(6);
      expect(all.some((m) => m[2] !== undefined)).toBe(true);
      expect(all.every((m) => (m[2] !== undefined) === wanted.includes(m[1]))).toBe(false);

      const shop = renderTask('multi-page', 1, seed, 'ep')!;
      const [, , target] = /^Order (\d) of "([^"]+)"/.exec(queryOf(shop)) ?? [];
      expect(shop).toContain(`&amp;product=${target?.toLowerCase().replace(' ', '-')}">${target}</a>`);

      const late = dataOf(renderTask('late-content', 1, seed, 'e')!) as { code: string; delay: number };
      expect(late.code).toMatch(/^[A-Z0-9]{4}$/);
      expect(late.delay).toBeGreaterThanOrEqual(400);
      expect(late.delay).toBeLessThanOrEqual(1200);
    }
  });

  it('marks up the password field, the modal dialog and the hidden late button as specified', () => {
    expect(renderTask('login', 1, 1, 'e')).toContain('<input id="password" type="password"');
    const modal = renderTask('modal', 1, 1, 'e')!;
    expect(modal).toContain('role="dialog" aria-modal="true"');
    expect(modal).toMatch(/<button[^>]*>Accept<\/button>\s*<button[^>]*>Reject<\/button>/);
    expect(renderTask('late-content', 1, 1, 'e')).toContain('<button type="button" id="reveal" hidden>Reveal code</button>');
  });

  it('escapes the episode in the page', () => {
    const html = renderTask('login', 1, 1, '</script><b>"x"')!;
    expect(html).not.toContain('</script><b>');
    expect(html).toContain('\\u003c/script>\\u003cb>');
  });

  it('renders nothing for unknown tasks and pages', () => {
    expect(renderTask('nope', 1, 1, 'e')).toBeUndefined();
    expect(renderTask('login', 2, 1, 'e')).toBeUndefined();
    expect(renderTask('multi-page', 4, 1, 'e')).toBeUndefined();
    expect(renderTask('multi-page', 0, 1, 'e')).toBeUndefined();
    expect(renderTask('toString', 1, 1, 'e')).toBeUndefined();
  });
});

describe('the task server', () => {
  it('serves an index that links every task', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const t of TASKS) expect(html).toContain(`<a href="/tasks/${t.name}">${t.title}</a>`);
  });

  it('builds task addresses, and sends a request without seed or episode to a fresh episode', async () => {
    expect(server.taskUrl('login', 5, 'a b')).toBe(`${server.url}/tasks/login?seed=5&episode=a+b`);
    const res = await get('/tasks/form');
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!, server.url);
    expect(to.pathname).toBe('/tasks/form');
    expect(to.searchParams.get('seed')).toMatch(/^\d+$/);
    expect(to.searchParams.get('episode')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = new URL((await get('/tasks/form?seed=9')).headers.get('location')!, server.url);
    expect(kept.searchParams.get('seed')).toBe('9');
    expect((await get(to.pathname + to.search)).status).toBe(200);
  });

  it('answers 404 for unknown routes, tasks and pages, and 400 for a bad seed or episode', async () => {
    for (const path of [
      '/nope',
      '/tasks',
      '/tasks/',
      '/tasks/nope?seed=1&episode=e',
      '/tasks/login/2?seed=1&episode=e',
      '/tasks/multi-page/4?seed=1&episode=e',
      '/tasks/multi-page/0?seed=1&episode=e',
      '/tasks/login/x?seed=1&episode=e',
      '/reward/x',
    ]) {
      expect((await get(path)).status, path).toBe(404);
    }
    for (const path of [
      '/tasks/login?seed=-1&episode=e',
      '/tasks/login?seed=1.5&episode=e',
      '/tasks/login?seed=4294967296&episode=e',
      '/tasks/login?seed=&episode=e',
      '/tasks/login?seed=1&episode=',
      '/tasks/login?seed=1&episode=a%20b',
    ]) {
      expect((await get(path)).status, path).toBe(400);
    }
    expect((await fetch(`${server.url}/tasks/login?seed=1&episode=e`, { method: 'POST' })).status).toBe(405);
  });

  it('records a valid report once: a second report for the episode is refused with 409', async () => {
    const res = await postReward(report('once'));
    expect(res.status).toBe(201);
    const first: RewardReport = { episode: 'once', task: 'login', seed: 7, reward: 1, detail: 'correct' };
    expect(await res.json()).toEqual(first);
    expect(server.reward('once')).toEqual(first);

    const again = await postReward(report('once', { reward: 0, detail: 'retry' }));
    expect(again.status).toBe(409);
    expect(server.reward('once')).toEqual(first);
    expect(server.rewards().filter((r) => r.episode === 'once')).toEqual([first]);

    const read = await get('/reward?episode=once');
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(first);
  });

  it('refuses bad JSON, wrong types and out-of-range values with 400 and records nothing', async () => {
    const before = server.rewards().length;
    const bad = [
      '',
      '{',
      'null',
      '[]',
      '"text"',
      report('bad-1', { episode: 5 }),
      report('', {}),
      report('has space'),
      report('x'.repeat(101)),
      report('bad-2', { task: 'nope' }),
      report('bad-3', { task: 'constructor' }),
      report('bad-4', { seed: '7' }),
      report('bad-5', { seed: -1 }),
      report('bad-6', { seed: 1.5 }),
      report('bad-7', { seed: 4294967296 }),
      report('bad-8', { reward: '1' }),
      report('bad-9', { reward: 2 }),
      report('bad-10', { reward: -0.5 }),
      report('bad-11', { reward: null }),
      report('bad-12', { detail: 3 }),
      report('bad-13', { detail: 'x'.repeat(2001) }),
      JSON.stringify({ episode: 'bad-14', task: 'login', seed: 7, reward: 1 }),
    ];
    for (const body of bad) {
      const res = await postReward(body);
      expect(res.status, body.slice(0, 80)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toEqual(expect.any(String));
    }
    expect(server.rewards()).toHaveLength(before);
    for (let i = 1; i <= 14; i++) expect(server.reward(`bad-${i}`)).toBeUndefined();
    // A refused report does not use up the episode.
    expect((await postReward(report('bad-8', { reward: 0 }))).status).toBe(201);
    expect(server.reward('bad-8')?.reward).toBe(0);
  });

  it('refuses a body over 64 KiB with 413 and records nothing, and accepts one just under', async () => {
    const big = report('big', { detail: 'x'.repeat(70 * 1024) });
    const res = await postReward(big);
    expect(res.status).toBe(413);
    expect(server.reward('big')).toBeUndefined();
    // Just under the cap, but the detail is too long: it is parsed (400), not cut off (413).
    const under = report('big', { detail: 'x'.repeat(60 * 1024) });
    expect((await postReward(under)).status).toBe(400);
    expect((await postReward(report('big'))).status).toBe(201);
  });

  it('answers GET /reward with 404 for an unknown episode and 400 without one', async () => {
    const res = await get('/reward?episode=never');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'no reward for this episode' });
    expect((await get('/reward')).status).toBe(400);
    expect((await fetch(`${server.url}/reward`, { method: 'PUT' })).status).toBe(405);
  });

  it('keeps reports in arrival order', async () => {
    expect((await postReward(report('order-a', { task: 'modal', seed: 1, reward: 0, detail: 'the cookies were accepted' }))).status).toBe(201);
    expect((await postReward(report('order-b', { task: 'form', seed: 2 }))).status).toBe(201);
    const episodes = server.rewards().map((r) => r.episode);
    expect(episodes.indexOf('order-a')).toBeLessThan(episodes.indexOf('order-b'));
    expect(server.reward('order-a')).toEqual({ episode: 'order-a', task: 'modal', seed: 1, reward: 0, detail: 'the cookies were accepted' });
  });
});

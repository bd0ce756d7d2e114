/**
 * Page snapshots side by side (`npm run bench:snapshot`, part of `npm run bench`): Golem's
 * GET_DOM and Playwright MCP's browser_snapshot (@playwright/mcp, a dev dependency of this
 * benchmark only, driven over stdio with the MCP SDK's client, on the same system Chromium)
 * on the same pages: the eight web task pages and a generated product listing (80 cards).
 * Tokens counted with the OpenAI tokenizer; times are medians of repeated snapshots of a
 * loaded page. Then tokens per episode of the web task suite with the scripted policies.
 *
 * BENCH_SNAPSHOT_REPEAT (default 5) snapshots per page and tool; BENCH_WEB_SEEDS (default 3).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BrowserExecutor, countOpenAiTokens, createWorkspace, renderResult, type Turn } from '../src/index.js';
import { productListing, startPageServer } from '../test/snapshot-pages.js';
import { taskPolicy } from '../test/web-tasks/policies.js';
import { startTaskServer } from '../test/web-tasks/server.js';
import { TASKS } from '../test/web-tasks/tasks.js';
import { fmt, log, median, printTable, type Row } from './lib.js';

const chromium = process.env.GOLEM_CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));
if (chromium === undefined) {
  console.log('\nbench:snapshot skipped: no Chromium (install it, or set GOLEM_CHROMIUM)');
  process.exit(0);
}
const repeat = Number(process.env.BENCH_SNAPSHOT_REPEAT ?? 5);
const seeds = Array.from({ length: Number(process.env.BENCH_WEB_SEEDS ?? 3) }, (_, i) => 1000 + i);

/** Playwright MCP, started from a scratch directory (it writes .playwright-mcp/ there), on the system Chromium. */
async function startPlaywrightMcp(): Promise<{ client: Client; close: () => Promise<void> }> {
  const cli = join(dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js');
  const scratch = mkdtempSync(join(tmpdir(), 'golem-pwmcp-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    cwd: scratch,
    args: [cli, '--executable-path', chromium as string, '--headless', '--no-sandbox', '--isolated', '--output-dir', scratch],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'golem-bench', version: '1' });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await client.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** What a user can act on, as a CSS selector (a select's options are chosen through the select). */
const ACTIONABLE =
  'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [role=option], [role=combobox], [role=textbox], [role=slider]';

const textOf = (result: Awaited<ReturnType<Client['callTool']>>): string =>
  (result.content as { type: string; text?: string }[]).map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join('\n');

interface Measured {
  page: string;
  golemTokens: number;
  mcpTokens: number;
  golemMs: number;
  mcpMs: number;
  /** Distinct refs in Golem's text, and the interactive elements on the page. */
  golemRefs: number;
  interactive: number;
  /** After a click that stays on the page: tokens of the result the model reads, Golem's (its changes) and Playwright MCP's. */
  click?: { golem: number; mcp: number; mcpSnapshot: number };
}

async function comparePages(pages: { name: string; url: string; click?: { selector: string; role: string; name: string } }[]): Promise<Measured[]> {
  const executor = await BrowserExecutor.launch({ executablePath: chromium as string, countTokens: countOpenAiTokens });
  const id = await executor.createSession();
  const out: Measured[] = [];
  let mcp: Awaited<ReturnType<typeof startPlaywrightMcp>> | undefined;
  try {
    for (const page of pages) {
      // A fresh Playwright MCP for each page: after navigations its refs grow a frame prefix (f8e73), which would count against it.
      mcp = await startPlaywrightMcp();
      await mcp.client.callTool({ name: 'browser_navigate', arguments: { url: page.url } });
      await executor.execute({ sessionId: id, action: 'OPEN_PAGE', parameters: { url: page.url } });
      const golemMs: number[] = [];
      const mcpMs: number[] = [];
      let golem = { text: '' };
      let mcpText = '';
      for (let i = 0; i < repeat; i++) {
        let t0 = performance.now();
        mcpText = textOf(await mcp.client.callTool({ name: 'browser_snapshot', arguments: {} }));
        mcpMs.push(performance.now() - t0);
        t0 = performance.now();
        // The whole page (no budget), as Playwright MCP shows it whole: the same content compared.
        golem = await executor.snapshot(id, Number.MAX_SAFE_INTEGER);
        golemMs.push(performance.now() - t0);
      }
      // Counted in the page itself, not by Golem: the elements a user can act on and see.
      const interactive = (await executor
        .page(id)
        .evaluate(`Array.from(document.querySelectorAll(${JSON.stringify(ACTIONABLE)})).filter((e) => e.checkVisibility()).length`)) as number;
      let click: Measured['click'];
      if (page.click !== undefined) {
        // The same element: Golem by a CSS selector (a folded row shows only its ref), Playwright MCP by its snapshot's ref.
        const mcpRef = new RegExp(`${page.click.role} ${JSON.stringify(page.click.name)}[^\\n]*?\\[ref=([a-z0-9]+)\\]`).exec(mcpText)?.[1];
        if (mcpRef === undefined) throw new Error(`no ${page.click.role} ${page.click.name} with a ref in Playwright MCP's snapshot of ${page.name}`);
        const clicked = await executor.execute({ sessionId: id, action: 'CLICK_ELEMENT', parameters: { selector: page.click.selector } });
        const mcpClicked = textOf(await mcp.client.callTool({ name: 'browser_click', arguments: { element: page.click.name, target: mcpRef } }));
        if (!clicked.success || mcpClicked.startsWith('### Error')) throw new Error(`the click failed: ${clicked.error?.message ?? mcpClicked}`);
        // Playwright MCP's answer names a snapshot file; the change itself takes another browser_snapshot to see.
        const mcpAfter = textOf(await mcp.client.callTool({ name: 'browser_snapshot', arguments: {} }));
        click = { golem: countOpenAiTokens(renderResult(clicked)), mcp: countOpenAiTokens(mcpClicked), mcpSnapshot: countOpenAiTokens(mcpAfter) };
      }
      out.push({
        page: page.name,
        ...(click !== undefined && { click }),
        golemTokens: countOpenAiTokens(golem.text),
        mcpTokens: countOpenAiTokens(mcpText),
        golemMs: median(golemMs),
        mcpMs: median(mcpMs),
        golemRefs: new Set(golem.text.match(/\[ref=e\d+\]/g) ?? []).size,
        interactive,
      });
      await mcp.close();
      mcp = undefined;
      log(`${page.name}: Golem ${out.at(-1)?.golemTokens} tokens, Playwright MCP ${out.at(-1)?.mcpTokens}`);
    }
  } finally {
    await executor.close();
    await mcp?.close();
  }
  return out;
}

const usageOf = (turn: Turn) => (turn.meta.usage ?? {}) as { inputTokens?: number; outputTokens?: number };

/** Tokens per episode of the web task suite with the scripted policies (as `npm run bench:web -- --scripted`). */
async function episodes(): Promise<{ tokens: number[]; solved: number }> {
  const server = await startTaskServer();
  const ws = await createWorkspace();
  const browser = await ws.browser.launch({ executablePath: chromium as string, security: { allowedDomains: ['127.0.0.1'] }, countTokens: countOpenAiTokens });
  const tokens: number[] = [];
  let solved = 0;
  try {
    for (const task of TASKS) {
      for (const seed of seeds) {
        const episode = `snap-${task.name}-${seed}-${Date.now()}`;
        const { session } = await browser.runTask({
          goal: `Open ${server.taskUrl(task.name, seed, episode)} and do what the page asks.`,
          model: taskPolicy(task.name),
          maxSteps: 25,
        });
        const answers = (await session.transcript()).filter((t) => t.role === 'assistant');
        tokens.push(answers.reduce((n, t) => n + (usageOf(t).inputTokens ?? 0) + (usageOf(t).outputTokens ?? 0), 0));
        if (server.reward(episode)?.reward === 1) solved++;
      }
    }
  } finally {
    await browser.close();
    await ws.close();
    await server.close();
  }
  return { tokens, solved };
}

const tasks = await startTaskServer();
const shop = await startPageServer({ shop: productListing() });
let measured: Measured[];
try {
  measured = await comparePages([
    ...TASKS.map((t) => ({ name: t.name, url: tasks.taskUrl(t.name, 1000, 'bench') })),
    { name: 'product listing', url: shop.url('shop'), click: { selector: '[data-sku="sku-1000"]', role: 'button', name: 'Add to cart' } },
  ]);
} finally {
  await tasks.close();
  await shop.close();
}
const run = await episodes();

const taskRows = measured.slice(0, TASKS.length);
const listing = measured.at(-1) as Measured;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const taskGolem = median(taskRows.map((m) => m.golemTokens));
const taskMcp = median(taskRows.map((m) => m.mcpTokens));
const golemMs = median(measured.map((m) => m.golemMs));
const mcpMs = median(measured.map((m) => m.mcpMs));
const perEpisode = median(run.tokens);
const rows: Row[] = [
  ...measured.map((m) => ({
    measure: m.page,
    value: `${m.golemTokens.toLocaleString('en')} / ${m.mcpTokens.toLocaleString('en')} (${ratio(m.golemTokens, m.mcpTokens)})`,
    target: `${m.golemRefs} refs, ${m.interactive} interactive; ${fmt(m.golemMs)} / ${fmt(m.mcpMs)}`,
  })),
  { measure: 'task pages, median tokens', value: `${taskGolem} / ${taskMcp} (${ratio(taskGolem, taskMcp)})`, target: '≤ 0.8×', ok: taskGolem <= 0.8 * taskMcp },
  {
    measure: 'product listing, tokens',
    value: `${listing.golemTokens.toLocaleString('en')} / ${listing.mcpTokens.toLocaleString('en')} (${ratio(listing.golemTokens, listing.mcpTokens)})`,
    target: `≤ 0.25×, every interactive element with a ref (${listing.golemRefs} refs, ${listing.interactive} interactive)`,
    ok: listing.golemTokens <= 0.25 * listing.mcpTokens && listing.golemRefs >= listing.interactive,
  },
  {
    measure: 'snapshot time, median of pages',
    value: `${fmt(golemMs)} / ${fmt(mcpMs)} (${ratio(golemMs, mcpMs)})`,
    target: '≤ 1.5×',
    ok: golemMs <= 1.5 * mcpMs,
  },
  {
    measure: 'listing, after "Add to cart"',
    value: `${listing.click?.golem.toLocaleString('en')} / ${listing.click?.mcp.toLocaleString('en')} + ${listing.click?.mcpSnapshot.toLocaleString('en')}`,
    target: "the click's result: Golem's shows the changes; Playwright MCP's names a file, + a browser_snapshot to see them",
  },
  {
    measure: 'web tasks, tokens per episode',
    value: `${Math.round(perEpisode).toLocaleString('en')} (${run.solved}/${run.tokens.length} solved)`,
    target: `≤ 4,005 (0.6× of 6,675)`,
    ok: perEpisode <= 4005 && run.solved === run.tokens.length,
  },
];
printTable(
  `Page snapshots: Golem GET_DOM / Playwright MCP ${String((createRequire(import.meta.url)('@playwright/mcp/package.json') as { version: string }).version)} browser_snapshot, same Chromium, same pages (OpenAI tokenizer; ${repeat} snapshots a page, medians)`,
  rows,
  [
    "Golem shows the whole page here (no budget; at the default budget of 2,000 tokens a longer page comes in pages). refs: distinct refs in Golem's text (interactive elements and table cells; Playwright MCP gives every node a ref). Web tasks: the scripted policies (test doubles, not a model), " +
      `${seeds.length} seeds a task, median input + output tokens per episode.`,
  ],
  ['page', 'tokens, Golem / Playwright MCP', 'refs (Golem), time: Golem / Playwright MCP'],
);

/**
 * What the model reads of the browser in the task loop: the commands as the system prompt
 * tells them, each result in brief, and which views of the page (a snapshot, one of its
 * pages, a query, the changes after an action) a prompt keeps once newer ones follow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, SUPERSEDED_NOTE, type LaunchedBrowser, type Prompt, type Workspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { startPageServer, type PageServer } from './snapshot-pages.js';

/** A page longer than the small budget below: 40 paragraphs, a button that adds a line, a field. */
const LONG = `<!doctype html><title>Long read</title><main>
<button onclick="document.getElementById('out').textContent='Thanks for reading'">Mark as read</button><p id="out"></p>
${Array.from({ length: 40 }, (_, i) => `<p>Paragraph ${i + 1} of the long read, with words enough to fill a line.</p>`).join('\n')}
<label>Note <input id="note"></label></main>`;

let pages: PageServer;
let ws: Workspace;
let browser: LaunchedBrowser;

beforeAll(async () => {
  pages = await startPageServer({
    long: LONG,
    controls: `<!doctype html><title>Controls</title><input type="submit" value="Send order">
<label>Country <select><option>France</option><option>Peru</option></select></label>
<label><input type="checkbox"> Gift wrap</label><input type="text" placeholder="Your name">`,
  });
  ws = await createWorkspace();
  browser = await ws.browser.launch({ timeoutMs: 2_000, snapshotBudget: 300 });
});

afterAll(async () => {
  await browser.close();
  await ws.close();
  await pages.close();
});

const step = (action: string, message: string, command?: { action: string; parameters: Record<string, unknown> }) => ({
  text: JSON.stringify({
    decision: { action, message },
    reasoning: { analysis: 'As shown.', rationale: message, expectedOutcome: 'It works.' },
    ...(command !== undefined && { command }),
  }),
});

const texts = (prompt: Prompt | undefined): string[] => (prompt?.messages ?? []).flatMap((m) => m.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])));
const lastUser = (prompt: Prompt | undefined): string => texts(prompt).at(-1) ?? '';

describe('the browser in the prompt', () => {
  it('keeps page 1 when page 2 is asked for, the changes while their snapshot stands, and only the newest whole snapshot after GET_DOM', async () => {
    const url = pages.url('long');
    const refOf = (prompt: Prompt | undefined, name: string) => new RegExp(`button "${name}" \\[ref=(e\\d+)\\]`).exec(texts(prompt).join('\n'))?.[1];
    const model = scriptedModel([
      step('PROCEED', 'Open it.', { action: 'OPEN_PAGE', parameters: { url } }),
      step('PROCEED', 'Read on.', { action: 'GET_DOM', parameters: { page: 2 } }),
      (prompt) => step('PROCEED', 'Mark it.', { action: 'CLICK_ELEMENT', parameters: { selector: `ref=${refOf(prompt, 'Mark as read') ?? 'missing'}` } }),
      step('PROCEED', 'Look again.', { action: 'GET_DOM', parameters: {} }),
      step('PROCEED', 'Done.'),
    ]);
    const { outcome } = await browser.runTask({ goal: `Read ${url}`, model });
    expect(outcome.status, outcome.error?.message).toBe('done');
    const [, afterOpen, afterPage2, afterClick, afterWhole] = model.calls;

    // The first page of the snapshot, with the way to the rest; the address the model just wrote is not repeated.
    expect(lastUser(afterOpen)).toMatch(/^Snapshot s1: Long read · page 1 of \d+$/m);
    expect(lastUser(afterOpen)).toMatch(/GET_DOM \{"page":2\} shows page 2/);

    // Page 2 came, and page 1 is still in the prompt: one is no newer view of the other.
    const shown2 = texts(afterPage2).filter((t) => /^Snapshot s\d+:/m.test(t));
    expect(shown2.map((t) => /^Snapshot (s\d+):.*· (page \d+) of/m.exec(t)?.slice(1, 3).join(' '))).toEqual(['s1 page 1', 's2 page 2']);

    // The click answered with its changes, in a block of their own; both pages stay (the changes are read against them).
    expect(lastUser(afterClick)).toMatch(/^Changes since s2, now s3:\n\+ Thanks for reading/);
    expect(texts(afterClick).filter((t) => /^Snapshot s\d+:/m.test(t))).toHaveLength(2);

    // A whole snapshot makes the older pages and the changes obsolete: each is replaced by the note.
    const shown = texts(afterWhole);
    expect(shown.filter((t) => /^Snapshot s\d+:/m.test(t)).map((t) => /^Snapshot (s\d+)/.exec(t)?.[1])).toEqual(['s4']);
    // GET_DOM says where the page is: nothing in the prompt may say it otherwise once older snapshots are gone.
    expect(shown.find((t) => t.startsWith('Snapshot s4'))).toMatch(new RegExp(`^Snapshot s4: Long read \\(${url.replace(/[.?]/g, '\\$&')}\\) · page 1 of`));
    expect(shown.filter((t) => t === SUPERSEDED_NOTE)).toHaveLength(3);
    expect(shown.join('\n')).not.toContain('Changes since');
    // The results themselves stay, in brief: no timing, no "succeeded" (the line above them says "done").
    expect(shown.filter((t) => t.startsWith('Result of '))).toEqual([
      'Result of OPEN_PAGE: done\nstatus: 200',
      'Result of GET_DOM: done',
      'Result of CLICK_ELEMENT: done\nclicked: button "Mark as read"',
      'Result of GET_DOM: done',
    ]);
  });

  it('keeps the snapshot when a query is asked, and only the newest answer to the same query', async () => {
    const url = pages.url('long');
    const model = scriptedModel([
      step('PROCEED', 'Open it.', { action: 'OPEN_PAGE', parameters: { url } }),
      step('PROCEED', 'Find it.', { action: 'GET_DOM', parameters: { query: 'Paragraph 30' } }),
      step('PROCEED', 'Find it again.', { action: 'GET_DOM', parameters: { query: ' paragraph   30 ' } }),
      step('PROCEED', 'Find another.', { action: 'GET_DOM', parameters: { query: 'Paragraph 31' } }),
      step('PROCEED', 'Done.'),
    ]);
    const { outcome } = await browser.runTask({ goal: `Read ${url}`, model });
    expect(outcome.status, outcome.error?.message).toBe('done');
    const shown = texts(model.calls.at(-1));
    const snapshots = shown.filter((t) => /^Snapshot s\d+:/m.test(t)).map((t) => (t.split('\n')[0] as string).replace(/ \(http[^)]*\)/, ''));
    expect(snapshots).toEqual([
      expect.stringMatching(/^Snapshot s1: Long read · page 1 of \d+$/),
      'Snapshot s3: Long read · 1 line matches "paragraph   30"',
      'Snapshot s4: Long read · 1 line matches "Paragraph 31"',
    ]);
    expect(shown.filter((t) => t === SUPERSEDED_NOTE)).toHaveLength(1);
  });

  it('tells a failure by its code and message, and a saved variable without the page it was read on', async () => {
    const url = pages.url('long');
    const model = scriptedModel([
      step('PROCEED', 'Open it.', { action: 'OPEN_PAGE', parameters: { url } }),
      step('PROCEED', 'Click what is not there.', { action: 'CLICK_ELEMENT', parameters: { selector: '#nothing-here' } }),
      step('RETRY', 'Keep the first paragraph.', { action: 'SAVE_VARIABLE', parameters: { selector: 'p:nth-of-type(2)', variableName: 'first' } }),
      step('PROCEED', 'Done.'),
    ]);
    const { outcome, variables } = await browser.runTask({ goal: `Read ${url}`, model });
    expect(outcome.status, outcome.error?.message).toBe('done');
    expect(variables).toEqual({ first: 'Paragraph 1 of the long read, with words enough to fill a line.' });
    expect(lastUser(model.calls[2])).toMatch(/^Result of CLICK_ELEMENT: failed\n\[ELEMENT_NOT_FOUND\] no element matches the selector "#nothing-here"/);
    expect(lastUser(model.calls[3])).toBe(
      'Result of SAVE_VARIABLE: done\nvariableName: first\nvalue: Paragraph 1 of the long read, with words enough to fill a line.',
    );
  });

  it('names the element a click reached by what a user reads on it', async () => {
    const tab = await browser.open({ session: await ws.sessions.create() });
    try {
      await tab.execute({ action: 'OPEN_PAGE', parameters: { url: pages.url('controls') } });
      const clicked = async (selector: string) => (await tab.execute({ action: 'CLICK_ELEMENT', parameters: { selector } })).data.clicked;
      expect(await clicked('input[type=submit]')).toBe('input[type=submit] "Send order"');
      expect(await clicked('select')).toBe('select "Country"');
      expect(await clicked('input[type=checkbox]')).toBe('input[type=checkbox] "Gift wrap"');
      expect(await clicked('input[type=text]')).toBe('input[type=text] "Your name"');
    } finally {
      await tab.close();
    }
  });

  it('tells the model each command once, in words that say what the executor does', async () => {
    const model = scriptedModel([step('ABORT', 'Nothing to do.')]);
    await browser.runTask({ goal: 'Nothing', model, secrets: { password: 'hunter2' } });
    const system = model.calls[0]?.system ?? '';
    for (const command of ['OPEN_PAGE', 'CLICK_ELEMENT', 'INPUT_TEXT', 'SAVE_VARIABLE', 'GET_DOM']) {
      expect(system.match(new RegExp(`^- ${command} \\{`, 'gm')), command).toHaveLength(1);
    }
    expect(system).toContain('Secrets: ${password}.');
    expect(system).not.toContain('hunter2');
    // The optional fields are accepted but not spelled out unless asked for: a model told of them writes them every step.
    expect(system).not.toContain('resultValidation');
  });
});

/**
 * The browser executor (seed 002): carries out the five commands in a real Chromium,
 * driven by playwright-core (loaded on first use, so the core stays light). Sessions are
 * opened and closed outside the model; a command reaches the executor with its session
 * id injected and its variables filled in. Every command answers with an
 * `ExecutionResult`: success, the page after it, timing and a typed error; nothing
 * throws for a command that fails on the page.
 */
import { existsSync } from 'node:fs';
import type * as PlaywrightModule from 'playwright-core';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { JsonObject } from '../core/blocks.js';
import { GolemError, type ErrorCode } from '../core/errors.js';
import { importOptional } from '../core/optional-import.js';
import { redactSecrets } from '../protocol/interpolation.js';
import { hostAllowed, SNAPSHOT_REF, selectorProblem, urlProblem } from '../protocol/security.js';
import type { ExecutorCommand, SecurityPolicy } from '../protocol/types.js';
import { describeElement, firstLine, hostOf, pageError, pageState, redactStrings, resolverRules, settle, type DomElement } from './page-helpers.js';
import { locateRef, readDocument, refTargets, TabDocuments } from './ref-documents.js';
import { RefTable } from './ref-table.js';
import { renderSnapshot, snapshotEntries, type PageSnapshot } from './snapshot.js';
import { diffSnapshots, type SnapshotChanges } from './snapshot-diff.js';
import type { Entry } from './snapshot-layout.js';

/** The flags Chromium runs with here: headless, no sandbox (root in containers), nothing phoning home. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
] as const;
const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export interface ExecutorOptions {
  /** Chromium's path (default: GOLEM_CHROMIUM, else the first of /usr/bin/chromium, chromium-browser, google-chrome). */
  executablePath?: string;
  /** Extra Chromium flags. */
  args?: readonly string[];
  security?: SecurityPolicy;
  /** How long a command may wait for the page (default 5,000 ms; OPEN_PAGE gets three times that). */
  timeoutMs?: number;
  /** GET_DOM's token budget (default 2,000). */
  snapshotBudget?: number;
  /** Counts tokens for the budget (default: about four characters a token). */
  countTokens?: (text: string) => number;
}

/** What a command did (seed 002: the result the model's next decision looks at). */
export interface ExecutionResult {
  success: boolean;
  action: string;
  /** What it produced: OPEN_PAGE's status, SAVE_VARIABLE's value, the element clicked... */
  data: JsonObject;
  /** The page after the command. */
  page: { url: string; title: string };
  /**
   * A fresh snapshot: after GET_DOM, and after OPEN_PAGE and CLICK_ELEMENT when they load a new document (or when
   * the changes would be no shorter).
   */
  snapshot?: PageSnapshot;
  /** After OPEN_PAGE, CLICK_ELEMENT and INPUT_TEXT that leave the same document: what changed since its previous snapshot. */
  changes?: SnapshotChanges;
  timing: { startedAt: string; durationMs: number };
  error?: { code: ErrorCode; message: string };
}

/** An open session: its context and tab, and what tells its snapshots' age. */
interface Tab {
  context: BrowserContext;
  page: Page;
  /** Which document the page, and each iframe, shows: refs of one since left are stale (Playwright's restart in each). */
  documents: TabDocuments;
  /** The ids its snapshots gave elements. */
  refs: RefTable;
  nextSnapshot: number;
  /**
   * The last snapshot the model was shown (its lines, whole page; of the document `document`): the next action's changes
   * are from it. Snapshots for others (`snapshot()`) leave it, or the model would be told changes from one it never saw.
   */
  last?: { id: string; document: string; entries: Entry[]; url: string };
  /** Secrets of this session, hidden in everything shown. */
  secrets: Readonly<Record<string, string>>;
  /** Tabs the page opened (and were closed) since the last result. */
  closedTabs: string[];
  /** The last navigation of the page the allowlist stopped (a meta refresh, a script, a form), not yet reported. */
  stopped?: string;
}

type Playwright = typeof PlaywrightModule;
let playwright: Promise<Playwright> | undefined;

export class BrowserExecutor {
  readonly #browser: Browser;
  readonly #options: ExecutorOptions;
  readonly #tabs = new Map<string, Tab>();
  #nextId = 0;

  private constructor(browser: Browser, options: ExecutorOptions) {
    this.#browser = browser;
    this.#options = options;
  }

  /** Starts Chromium. BROWSER_UNAVAILABLE when playwright-core or Chromium cannot be found or started. */
  static async launch(options: ExecutorOptions = {}): Promise<BrowserExecutor> {
    const executablePath = options.executablePath ?? process.env.GOLEM_CHROMIUM ?? CHROMIUM_PATHS.find((p) => existsSync(p));
    if (executablePath === undefined) {
      throw new GolemError('BROWSER_UNAVAILABLE', 'no Chromium found: install it (Debian/Ubuntu: apt-get install chromium) or set GOLEM_CHROMIUM to its path');
    }
    let module: Playwright;
    try {
      const need = { packages: ['playwright-core'], purpose: 'the browser executor', code: 'BROWSER_UNAVAILABLE' } as const;
      module = await (playwright ??= importOptional(() => import('playwright-core'), need));
    } catch (cause) {
      playwright = undefined;
      throw GolemError.isInstance(cause) ? cause : new GolemError('BROWSER_UNAVAILABLE', `playwright-core could not be loaded: ${String(cause)}`, { cause });
    }
    const overriding = (options.args ?? []).find((a) => /^--(host-resolver-rules|proxy-server|proxy-pac-url)\b/.test(a));
    if (options.security?.allowedDomains !== undefined && overriding !== undefined) {
      throw new GolemError(
        'INVALID_ARGUMENT',
        `${overriding.split('=')[0] ?? overriding} cannot be given with allowedDomains: the allowlist is enforced through Chromium's host resolution`,
      );
    }
    try {
      const browser = await module.chromium.launch({ executablePath, args: [...CHROMIUM_ARGS, ...resolverRules(options.security), ...(options.args ?? [])] });
      return new BrowserExecutor(browser, options);
    } catch (cause) {
      throw new GolemError('BROWSER_UNAVAILABLE', `Chromium at ${executablePath} could not be started: ${(cause as Error).message.split('\n')[0] ?? ''}`, {
        cause,
      });
    }
  }

  get security(): SecurityPolicy {
    return this.#options.security ?? {};
  }

  /** Opens a session: a fresh browser context (its own cookies and storage) with one tab. */
  async createSession(options: { id?: string; secrets?: Readonly<Record<string, string>> } = {}): Promise<string> {
    const id = options.id ?? `browser-${++this.#nextId}`;
    if (this.#tabs.has(id)) throw new GolemError('DUPLICATE_ID', `a browser session "${id}" is already open`);
    const context = await this.#browser.newContext();
    try {
      context.setDefaultTimeout(this.#timeout());
      if (this.security.allowedDomains !== undefined) {
        // Every request is held to the allowlist, not only OPEN_PAGE's: a link, a script or an image cannot leave it.
        // (Redirects do not pass through here: the resolver rules Chromium was launched with stop those.)
        await context.route('**/*', async (route) => {
          const request = route.request();
          if (this.#blocked(request.url(), request.isNavigationRequest())) return route.abort('blockedbyclient');
          return route.fallback();
        });
      }
      const page = await context.newPage();
      const documents = await TabDocuments.open(page);
      const tab: Tab = { context, page, documents, refs: new RefTable(), nextSnapshot: 1, secrets: options.secrets ?? {}, closedTabs: [] };
      // A navigation the page starts on its own (a meta refresh, a script, a form) and the allowlist stops is remembered:
      // the command it happened during (or the next one) fails with URL_NOT_ALLOWED, instead of showing an error page.
      page.on('requestfailed', (request) => {
        try {
          if (request.isNavigationRequest() && request.frame() === page.mainFrame() && this.#blocked(request.url(), true)) tab.stopped = request.url();
        } catch {
          // a request of no frame (a service worker's): not a navigation of this tab
        }
      });
      // One tab per session: a page that opens another (target=_blank, window.open) has it closed, and the next result says so.
      context.on('page', (other) => {
        if (other === page) return;
        tab.closedTabs.push(other.url());
        void other.close().catch(() => undefined);
      });
      this.#tabs.set(id, tab);
      return id;
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  /** Closes a session (its context and tab). Closing one that is not open does nothing. */
  async closeSession(id: string): Promise<void> {
    const tab = this.#tabs.get(id);
    if (tab === undefined) return;
    this.#tabs.delete(id);
    await tab.context.close().catch(() => undefined);
  }

  /** The open sessions' ids. */
  sessions(): string[] {
    return [...this.#tabs.keys()];
  }

  /** The session's tab, for callers that need Playwright itself (tests, screenshots). */
  page(id: string): Page {
    return this.#tab(id).page;
  }

  /** Runs one command. Failures on the page come back as `success: false` with a typed error; an unknown session throws. */
  async execute(command: ExecutorCommand): Promise<ExecutionResult> {
    const tab = this.#tab(command.sessionId);
    const started = new Date();
    const t0 = performance.now();
    let data: JsonObject = {};
    let snapshot: PageSnapshot | undefined;
    let changes: SnapshotChanges | undefined;
    let error: ExecutionResult['error'];
    try {
      ({ data, snapshot, changes } = await this.#run(tab, command));
      await this.#checkWhereItLanded(tab);
    } catch (cause) {
      const e = pageError(cause, this.security.allowedDomains !== undefined);
      error = { code: e.code, message: e.message };
      if (e.code === 'URL_NOT_ALLOWED') {
        snapshot = undefined; // never show a page off the list
        changes = undefined;
        await this.#checkWhereItLanded(tab).catch(() => undefined);
      }
    }
    if (tab.closedTabs.length > 0) data = { ...data, closedTabs: tab.closedTabs.splice(0) };
    const result: ExecutionResult = {
      success: error === undefined,
      action: command.action,
      data,
      page: await pageState(tab.page, this.#timeout()),
      ...(snapshot !== undefined && { snapshot }),
      ...(changes !== undefined && { changes }),
      timing: { startedAt: started.toISOString(), durationMs: Math.round((performance.now() - t0) * 10) / 10 },
      ...(error !== undefined && { error }),
    };
    // Secrets are hidden in all of it, in whatever form the page put them (a URL's query, say), once, here.
    return Object.keys(tab.secrets).length === 0 ? result : redactStrings(result, tab.secrets);
  }

  /**
   * A page that ended up off the allowlist (a redirect, a script), or that tried to and was stopped (a meta refresh, a
   * script, a form: it ends on Chromium's error page), is left for a blank one, and the command fails.
   */
  async #checkWhereItLanded(tab: Tab): Promise<void> {
    const url = tab.page.url();
    const stopped = tab.stopped;
    delete tab.stopped;
    if (this.security.allowedDomains === undefined) return;
    const offList = stopped ?? (!url.startsWith('chrome-error:') && this.#blocked(url, true) ? url : undefined);
    if (offList === undefined) return;
    await tab.page.goto('about:blank').catch(() => undefined);
    throw new GolemError(
      'URL_NOT_ALLOWED',
      `the page went to ${hostOf(offList)}, which is not on the allowlist; it was stopped, and the tab left for a blank page`,
    );
  }

  /** A URL this session may not load: a navigation must pass every rule, anything else its host. */
  #blocked(url: string, navigation: boolean): boolean {
    if (navigation) return url !== 'about:blank' && urlProblem(url, this.security) !== undefined;
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return true;
    }
    return host !== '' && this.security.allowedDomains !== undefined && !hostAllowed(host, this.security.allowedDomains);
  }

  /** The session's page now: its URL and title (secrets hidden). */
  async state(id: string): Promise<{ url: string; title: string }> {
    const tab = this.#tab(id);
    return redactStrings(await pageState(tab.page, this.#timeout()), tab.secrets);
  }

  /** A snapshot of the session's page now (what GET_DOM returns; secrets hidden). */
  async snapshot(id: string, budget = this.#options.snapshotBudget): Promise<PageSnapshot> {
    const tab = this.#tab(id);
    return redactStrings(this.#render(tab, await this.#read(tab), budget), tab.secrets);
  }

  /** Closes every session and the browser. */
  async close(): Promise<void> {
    for (const id of [...this.#tabs.keys()]) await this.closeSession(id);
    await this.#browser.close().catch(() => undefined);
  }

  async #run(tab: Tab, command: ExecutorCommand): Promise<{ data: JsonObject; snapshot?: PageSnapshot; changes?: SnapshotChanges }> {
    const p = command.parameters;
    const text = (key: string): string => {
      const value = p[key];
      if (typeof value !== 'string') throw new GolemError('INVALID_ARGUMENT', `${command.action} needs the parameter "${key}" as a string`);
      return value;
    };
    switch (command.action) {
      case 'OPEN_PAGE': {
        const url = text('url');
        const problem = urlProblem(url, this.security);
        if (problem !== undefined) throw new GolemError('URL_NOT_ALLOWED', `OPEN_PAGE refused: ${problem}`, { details: { url } });
        const response = await tab.page.goto(url, { waitUntil: 'domcontentloaded', timeout: this.#timeout() * 3 });
        await settle(tab.page, this.#timeout());
        const status = response?.status() ?? null;
        // The model wrote the address: a snapshot of the page it asked for need not repeat it.
        return this.#withPage(tab, { status }, url);
      }
      case 'CLICK_ELEMENT': {
        const target = await this.#locate(tab, text('selector'));
        const element = await describeElement(target, tab.secrets);
        await target.click();
        await settle(tab.page, this.#timeout());
        return this.#withPage(tab, { clicked: element });
      }
      case 'INPUT_TEXT': {
        const target = await this.#locate(tab, text('selector'));
        const value = text('text');
        const tag = await target.evaluate((node) => (node as unknown as DomElement).tagName.toLowerCase());
        if (tag === 'select') {
          // A select takes the option's label (or its value): looked up at once, never waited for.
          const options = await target.evaluate((node) =>
            Array.from((node as unknown as { options: ArrayLike<{ label: string; value: string }> }).options, (o) => ({ label: o.label, value: o.value })),
          );
          const byLabel = options.filter((o) => o.label.trim() === value.trim());
          const matches = byLabel.length > 0 ? byLabel : options.filter((o) => o.value === value);
          if (matches.length !== 1) {
            const listed = options.map((o) => JSON.stringify(o.label)).join(', ');
            throw new GolemError(
              matches.length === 0 ? 'ELEMENT_NOT_FOUND' : 'ELEMENT_AMBIGUOUS',
              `the select has ${matches.length === 0 ? 'no' : 'more than one'} option ${JSON.stringify(value)}; its options are ${listed}`,
            );
          }
          await target.selectOption({ index: options.indexOf(matches[0] as { label: string; value: string }) });
          return this.#withPage(tab, { selected: (matches[0] as { label: string }).label });
        }
        await target.fill(value);
        await settle(tab.page, this.#timeout());
        return this.#withPage(tab, { typed: redactSecrets(value, tab.secrets) === value ? value.length : '(a secret)' });
      }
      case 'SAVE_VARIABLE': {
        const target = await this.#locate(tab, text('selector'));
        const name = text('variableName');
        if (Object.hasOwn(tab.secrets, name)) throw new GolemError('INVALID_ARGUMENT', `"${name}" is the name of a secret; save the value under another name`);
        const value = await target.evaluate((node) => {
          const el = node as unknown as DomElement;
          return ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) ? (el.value ?? '') : (el.innerText ?? el.textContent ?? '').trim();
        });
        if (redactSecrets(value, tab.secrets) !== value)
          throw new GolemError('INVALID_ARGUMENT', 'the element holds a secret; secrets cannot be saved as variables');
        return { data: { variableName: name, value } };
      }
      case 'GET_DOM': {
        const page = typeof p.page === 'number' ? p.page : undefined;
        const query = typeof p.query === 'string' ? p.query : undefined;
        const read = await this.#read(tab);
        tab.last = read;
        return { data: {}, snapshot: this.#render(tab, read, undefined, { page, query }) };
      }
      default:
        throw new GolemError('INVALID_ARGUMENT', `the browser has no command "${command.action}"`);
    }
  }

  /**
   * An action's result with the page after it. A page that cannot be read now (it keeps loading documents, say) does not
   * make the action that ran a failure, or a model told to RETRY would click twice: the result says the page was not read.
   */
  async #withPage(tab: Tab, data: JsonObject, opened?: string): Promise<{ data: JsonObject; snapshot?: PageSnapshot; changes?: SnapshotChanges }> {
    try {
      return { data, ...(await this.#after(tab, opened)) };
    } catch (cause) {
      const e = pageError(cause, this.security.allowedDomains !== undefined);
      return { data: { ...data, snapshot: `not read (${e.code}: ${e.message}); GET_DOM reads it again` } };
    }
  }

  /**
   * The page after an action: what changed since the previous snapshot when the page is still the document it was of,
   * else (a new document, no snapshot yet, lines that moved, or changes no shorter than the page) a whole snapshot.
   */
  async #after(tab: Tab, opened?: string): Promise<{ snapshot: PageSnapshot } | { changes: SnapshotChanges }> {
    const previous = tab.last;
    const read = await this.#read(tab);
    tab.last = read;
    const snapshot = this.#render(tab, read, undefined, { knownUrl: opened });
    if (previous === undefined || previous.document !== read.document) return { snapshot };
    const changes = diffSnapshots(previous.entries, read.entries, {
      id: read.id,
      since: previous.id,
      url: read.url,
      previousUrl: previous.url,
      title: read.title,
      secrets: tab.secrets,
      ...(this.#options.countTokens !== undefined && { countTokens: this.#options.countTokens }),
    });
    return changes !== undefined && changes.tokens < snapshot.tokens ? { changes } : { snapshot };
  }

  /** Reads the page's lines (a new snapshot id), each ref tied to the document it was read from. */
  async #read(tab: Tab): Promise<{ id: string; document: string; entries: Entry[]; url: string; title: string }> {
    const id = `s${tab.nextSnapshot++}`;
    const read = await readDocument(tab.documents, this.#timeout());
    const url = tab.page.url();
    const target = refTargets(read, { url, snapshot: id });
    const entries = snapshotEntries(read.tree, { hide: read.passwords ?? 'all', ref: (r) => tab.refs.idFor(target(r)) });
    return { id, document: read.document, entries, url, title: read.title };
  }

  #render(
    tab: Tab,
    { id, entries, url, title }: { id: string; entries: Entry[]; url: string; title: string },
    budget = this.#options.snapshotBudget,
    view: { page?: number | undefined; query?: string | undefined; knownUrl?: string | undefined } = {},
  ): PageSnapshot {
    return renderSnapshot(entries, {
      id,
      url,
      title,
      secrets: tab.secrets,
      ...(budget !== undefined && { budget }),
      ...(view.page !== undefined && { page: view.page }),
      ...(view.query !== undefined && { query: view.query }),
      ...(view.knownUrl !== undefined && { knownUrl: view.knownUrl }),
      ...(this.#options.countTokens !== undefined && { countTokens: this.#options.countTokens }),
    });
  }

  /** The one element a selector names: a snapshot ref (checked for staleness) or a CSS/Playwright selector. */
  async #locate(tab: Tab, selector: string): Promise<Locator> {
    const problem = selectorProblem(selector, this.security);
    if (problem !== undefined) throw new GolemError('SELECTOR_NOT_ALLOWED', problem, { details: { selector } });
    const ref = /^ref=(.*)$/.exec(selector.trim())?.[1]?.trim() ?? (SNAPSHOT_REF.test(selector.trim()) ? selector.trim() : undefined);
    if (ref !== undefined) return locateRef(tab, ref, selector, this.#timeout());
    const target = tab.page.locator(selector);
    try {
      await target.first().waitFor({ state: 'attached', timeout: this.#timeout() });
    } catch (cause) {
      throw new GolemError(
        'ELEMENT_NOT_FOUND',
        `no element matches the selector ${JSON.stringify(selector)}${/Timeout/i.test((cause as Error).message) ? ` (waited ${this.#timeout()} ms)` : `: ${firstLine(cause)}`}; check it against a GET_DOM snapshot, or use a ref from one`,
        { details: { selector } },
      );
    }
    const n = await target.count();
    if (n > 1)
      throw new GolemError(
        'ELEMENT_AMBIGUOUS',
        `the selector ${JSON.stringify(selector)} matches ${n} elements; make it name one (or use a ref from GET_DOM)`,
        { details: { selector, matches: n } },
      );
    return target;
  }

  #tab(id: string): Tab {
    const tab = this.#tabs.get(id);
    if (tab === undefined) throw new GolemError('BROWSER_SESSION_NOT_FOUND', `no open browser session "${id}"`, { details: { sessionId: id } });
    return tab;
  }

  #timeout(): number {
    return this.#options.timeoutMs ?? 5_000;
  }
}

/**
 * The bookshelf of seed 000: the Markdown, text and PDF files of a folder, split into
 * pages. The model picks a book and a page through `updateEditableStatus`, searches with
 * `semantic_search` (BM25 over every page), and reads the current page in its context.
 */
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, parse } from 'node:path';
import MiniSearch from 'minisearch';
import { z } from 'zod';
import type { JsonValue } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import { defineAction, type Action } from '../action/action.js';
import { searchTerms } from '../prompt/context-retriever.js';
import type { WorkspaceManager } from '../core/manager.js';
import { importOptional } from '../core/optional-import.js';
import { BaseEnvironment } from './base-environment.js';
import type { EditableStatusUpdateResult, EnvironmentInfo, HowToCall, RenderContextOptions } from './environment.js';

export interface BookshelfOptions {
  /** The folder of books (.md, .markdown, .txt, .pdf). */
  dir: string;
  /** Characters per page of a text book (default 2,000); PDFs keep their own pages. */
  pageSize?: number;
  /** The id its values are kept under in the workspace (default 'bookshelf'). */
  id?: string;
}

export interface Book {
  name: string;
  file: string;
  pages: string[];
}

const TEXT_EXTENSIONS = new Set(['.md', '.markdown', '.txt']);

export class BookshelfEnvironment extends BaseEnvironment<'selected_book_name' | 'current_page'> {
  readonly info: EnvironmentInfo;
  readonly #options: BookshelfOptions;
  readonly #books = new Map<string, Book>();
  readonly #skipped: { file: string; error: string }[] = [];
  #search: MiniSearch<{ id: string; book: string; page: number; text: string }> | undefined;
  #loaded: Promise<void> | undefined;

  constructor(options: BookshelfOptions) {
    super({
      selected_book_name: { description: 'The book open', type: 'enum', enumValues: [], constraint: 'must be one of the available book names' },
      current_page: {
        description: 'The page open',
        type: 'number',
        constraint: "a whole number within the current book's page range",
        dependsOn: ['selected_book_name'],
        initial: '1',
        validation: (value) => this.#checkPage(value),
      },
    });
    this.#options = options;
    this.info = { id: options.id ?? 'bookshelf', name: 'Bookshelf', description: `The books in ${options.dir}` };
  }

  /** Reads the folder: every book split into pages, and the search index over them (once). */
  load(): Promise<void> {
    // A failed load (the folder missing) is not kept: the next call tries again.
    this.#loaded ??= this.#load().catch((error: unknown) => {
      this.#loaded = undefined;
      throw error;
    });
    return this.#loaded;
  }

  get books(): ReadonlyMap<string, Book> {
    return this.#books;
  }

  /** Files that could not be read as books (a broken PDF, say), with why. */
  get skipped(): readonly { file: string; error: string }[] {
    return this.#skipped;
  }

  get env(): Record<string, JsonValue> {
    const book = this.#currentBook();
    return {
      availableBooks: [...this.#books.values()].map((b) => ({ name: b.name, pages: b.pages.length })),
      ...(this.#skipped.length > 0 && { unreadableFiles: this.#skipped.map((x) => x.file) }),
      currentBook: book?.name ?? null,
      currentPage: book === undefined || this.editableStatus.current_page.value === null ? null : Number(this.editableStatus.current_page.value),
      totalPages: book?.pages.length ?? null,
    };
  }

  override async mount(manager: WorkspaceManager): Promise<{ ignored: { field: string; value: string | null; error: string }[] }> {
    await this.load();
    return super.mount(manager);
  }

  override async updateEditableStatus(fieldName: string, value: string | null): Promise<EditableStatusUpdateResult> {
    await this.load();
    return super.updateEditableStatus(fieldName, value);
  }

  /** The pages that best match a query: book, page and a snippet around the match. */
  search(query: string, limit = 5): { book: string; page: number; score: number; snippet: string }[] {
    const index = this.#search;
    if (index === undefined) throw new GolemError('INVALID_ARGUMENT', 'the bookshelf is not loaded yet; call load() first');
    const words = [...new Set(searchTerms(query))];
    if (words.length === 0) return [];
    return index
      .search(words.join(' '))
      .slice(0, limit)
      .map((r) => {
        const book = String(r.book);
        const page = Number(r.page);
        return { book, page, score: Math.round(r.score * 1000) / 1000, snippet: snippet(this.#books.get(book)?.pages[page - 1] ?? '', words) };
      });
  }

  /** The shelf's own action: semantic_search. */
  override actions(): Action[] {
    return [
      defineAction({
        name: 'semantic_search',
        repeatable: true,
        description: 'Searches every page of every book on the shelf; returns the best pages with a snippet each.',
        input: z.object({ query: z.string().min(1).describe('What to look for'), limit: z.number().int().min(1).max(20).optional() }),
        run: async ({ query, limit }) => {
          await this.load();
          return { success: true, data: this.search(query, limit ?? 5) };
        },
      }) as Action,
    ];
  }

  override renderContext(options?: RenderContextOptions): string {
    const book = this.#currentBook();
    const number = this.editableStatus.current_page.value;
    const page = book === undefined || number === null ? undefined : book.pages[Number(number) - 1];
    const current =
      book === undefined
        ? '(no book open)'
        : page === undefined
          ? `${book.name} is open; choose a page (1 to ${book.pages.length})`
          : `${book.name}, page ${number} of ${book.pages.length}:\n${page}`;
    return `${super.renderContext(options)}\n\n## Current page:\n${current}`;
  }

  protected override actionsHelp(how: HowToCall): string {
    return `  semantic_search: finds the pages that best match a query (at most \`limit\`, 5 unless given); ${how('semantic_search', { query: '<what to look for>' })}`;
  }

  #currentBook(): Book | undefined {
    const name = this.editableStatus.selected_book_name?.value;
    return name == null ? undefined : this.#books.get(name);
  }

  #checkPage(value: string | null): { valid: boolean; error?: string } {
    if (value === null) return { valid: true };
    const book = this.#currentBook();
    if (book === undefined) return { valid: false, error: 'Select a book (selected_book_name) before choosing a page' };
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > book.pages.length)
      return { valid: false, error: `Page ${value} is not in "${book.name}", which has pages 1 to ${book.pages.length}` };
    return { valid: true };
  }

  async #load(): Promise<void> {
    let files: string[];
    try {
      files = (await readdir(this.#options.dir)).sort();
    } catch (cause) {
      throw new GolemError('INVALID_ARGUMENT', `cannot read the bookshelf folder ${this.#options.dir}: ${(cause as Error).message}`, { cause });
    }
    const names = files.map((f) => parse(f).name);
    for (const file of files) {
      const ext = extname(file).toLowerCase();
      if (!TEXT_EXTENSIONS.has(ext) && ext !== '.pdf') continue;
      const path = join(this.#options.dir, file);
      // Two files of one name (Heart.md, Heart.pdf) keep their extensions to stay apart.
      const name = names.filter((n) => n === parse(file).name).length > 1 ? file : parse(file).name;
      try {
        const pages = ext === '.pdf' ? await pdfPages(path) : splitPages(await readFile(path, 'utf8'), this.#options.pageSize ?? 2000);
        if (pages.length > 0) this.#books.set(name, { name, file: path, pages });
      } catch (cause) {
        // One unreadable file does not take the shelf down: it is left out, and said so.
        this.#skipped.push({ file, error: (cause as Error).message });
      }
    }
    const field = this.field('selected_book_name');
    if (field !== undefined) field.enumValues = [...this.#books.keys()];
    const index = new MiniSearch<{ id: string; book: string; page: number; text: string }>({
      fields: ['text', 'book'],
      storeFields: ['book', 'page'],
      tokenize: (text) => searchTerms(text),
      processTerm: (term) => term,
      searchOptions: { boost: { book: 2 }, prefix: (term) => term.length > 4, combineWith: 'OR' },
    });
    index.addAll([...this.#books.values()].flatMap((b) => b.pages.map((text, i) => ({ id: `${b.name}#${i + 1}`, book: b.name, page: i + 1, text }))));
    this.#search = index;
  }
}

/** Pages of about `size` characters, broken at paragraph ends where it can. */
export function splitPages(text: string, size: number): string[] {
  const pages: string[] = [];
  let page = '';
  for (const paragraph of text.replace(/\r\n/g, '\n').split(/\n{2,}/)) {
    const p = paragraph.trim();
    if (p === '') continue;
    if (page !== '' && page.length + p.length + 2 > size) {
      pages.push(page);
      page = '';
    }
    for (let rest = p; rest !== '';) {
      // A paragraph longer than a page is cut at the last space before the limit (mid-word only if it has none).
      let cut = rest.length <= size ? rest.length : rest.lastIndexOf(' ', size);
      if (cut <= 0) cut = Math.min(size, rest.length);
      const piece = rest.slice(0, cut).trimEnd();
      rest = rest.slice(cut).trimStart();
      if (page !== '' && page.length + piece.length + 2 > size) {
        pages.push(page);
        page = '';
      }
      page = page === '' ? piece : `${page}\n\n${piece}`;
    }
  }
  if (page !== '') pages.push(page);
  return pages;
}

async function pdfPages(path: string): Promise<string[]> {
  const { extractText } = await importOptional(() => import('unpdf'), { packages: ['unpdf'], purpose: 'reading PDF books' });
  const { text } = await extractText(new Uint8Array(await readFile(path)), { mergePages: false });
  return text.map((t) => t.trim());
}

/** The stretch of a page with the most of the query's words, around `width` characters. */
function snippet(text: string, words: readonly string[], width = 160): string {
  const lower = text.toLowerCase();
  let best = 0;
  let bestScore = -1;
  for (const word of words) {
    for (let at = lower.indexOf(word), seen = 0; at !== -1 && seen < 50; at = lower.indexOf(word, at + 1), seen++) {
      const start = Math.max(0, at - width / 4);
      const window = lower.slice(start, start + width);
      const score = words.filter((w) => window.includes(w)).length;
      if (score > bestScore) [best, bestScore] = [start, score];
    }
  }
  const piece = text
    .slice(best, best + width)
    .replace(/\s+/g, ' ')
    .trim();
  return `${best > 0 ? '…' : ''}${piece}${best + width < text.length ? '…' : ''}`;
}

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BookshelfEnvironment, createWorkspace, splitPages, type Prompt } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { makePdf } from './fixtures/make-pdf.js';
import { tempDir } from './helpers.js';

/** A folder with a Markdown, a text and a PDF book. */
function shelfDir(): string {
  const dir = join(tempDir(), 'books');
  mkdirSync(dir);
  const chapters = ['Cells and tissues', 'The blood', 'The heart', 'The lungs', 'The kidneys'].map(
    (title, i) =>
      `# Chapter ${i + 1}: ${title}\n\n${`Notes on ${title.toLowerCase()}. `.repeat(30)}${title === 'The heart' ? '\n\nThe heart has four chambers: two atria receive blood and two ventricles pump it out through the valves.' : ''}`,
  );
  writeFileSync(join(dir, 'Physiology.md'), chapters.join('\n\n'));
  writeFileSync(join(dir, 'Anatomy.txt'), `The skeleton has 206 bones.\n\n${'Bones and joints. '.repeat(60)}`);
  writeFileSync(join(dir, 'Atlas.pdf'), makePdf([['Plate 1: the skull.'], ['Plate 2: the thorax and the heart in situ.'], ['Plate 3: the pelvis.']]));
  writeFileSync(join(dir, 'notes.json'), '{"not": "a book"}');
  return dir;
}

describe('the bookshelf', () => {
  it('reads Markdown, text and PDF books into pages', async () => {
    const shelf = new BookshelfEnvironment({ dir: shelfDir(), pageSize: 1000 });
    await shelf.load();
    expect([...shelf.books.keys()]).toEqual(['Anatomy', 'Atlas', 'Physiology']);
    expect(shelf.books.get('Atlas')?.pages).toEqual(['Plate 1: the skull.', 'Plate 2: the thorax and the heart in situ.', 'Plate 3: the pelvis.']);
    expect(shelf.books.get('Physiology')?.pages.length).toBeGreaterThan(3);
    expect(shelf.editableStatus.selected_book_name?.enumValues).toEqual(['Anatomy', 'Atlas', 'Physiology']);
    expect(shelf.env).toMatchObject({ currentBook: null, currentPage: null });
  });

  it('is navigated by updateEditableStatus, within its books and pages', async () => {
    const shelf = new BookshelfEnvironment({ dir: shelfDir() });
    expect(await shelf.updateEditableStatus('current_page', '2')).toMatchObject({ success: false, error: expect.stringContaining('Select a book') });
    expect(await shelf.updateEditableStatus('selected_book_name', 'Physiology')).toMatchObject({
      success: true,
      reset: [{ field: 'current_page', previousValue: null }],
    });
    expect(shelf.editableStatus.current_page?.value).toBe('1');
    expect(await shelf.updateEditableStatus('selected_book_name', 'Cookbook')).toMatchObject({
      success: false,
      error: expect.stringContaining('not "Cookbook"'),
    });
    const pages = shelf.books.get('Physiology')?.pages.length ?? 0;
    expect(await shelf.updateEditableStatus('current_page', String(pages + 1))).toMatchObject({
      success: false,
      error: `Page ${pages + 1} is not in "Physiology", which has pages 1 to ${pages}`,
    });
    expect(await shelf.updateEditableStatus('current_page', '3')).toMatchObject({ success: true });
    // Atlas has three pages: page 3 still stands. Anatomy has one: the page goes back to 1.
    expect(await shelf.updateEditableStatus('selected_book_name', 'Atlas')).not.toHaveProperty('reset');
    expect(shelf.editableStatus.current_page?.value).toBe('3');
    expect(shelf.books.get('Anatomy')?.pages.length).toBe(1);
    expect(await shelf.updateEditableStatus('selected_book_name', 'Anatomy')).toMatchObject({
      success: true,
      reset: [{ field: 'current_page', previousValue: '3' }],
    });
    expect(shelf.editableStatus.current_page?.value).toBe('1');
  });

  it('searches every page and shows the current page in its context', async () => {
    const shelf = new BookshelfEnvironment({ dir: shelfDir(), pageSize: 1000 });
    await shelf.load();
    const [best] = shelf.search('heart chambers ventricles');
    expect(best).toMatchObject({ book: 'Physiology', snippet: expect.stringContaining('four chambers') });
    expect(shelf.books.get('Physiology')?.pages[(best?.page ?? 1) - 1]).toContain('The heart has four chambers');
    await shelf.updateEditableStatus('selected_book_name', 'Atlas');
    await shelf.updateEditableStatus('current_page', '2');
    expect(shelf.renderContext()).toContain('## Current page:\nAtlas, page 2 of 3:\nPlate 2: the thorax and the heart in situ.');
    expect(shelf.renderContext()).toContain('semantic_search');
    expect(shelf.search('')).toEqual([]);
  });

  it("runs its actions through the seed's executeAction, validated", async () => {
    const shelf = new BookshelfEnvironment({ dir: shelfDir(), pageSize: 1000 });
    const found = await shelf.executeAction('semantic_search', { query: 'thorax', limit: 1 });
    expect(found).toMatchObject({ success: true, data: [{ book: 'Atlas', page: 2 }] });
    expect(await shelf.executeAction('semantic_search', { limit: 1 })).toMatchObject({
      success: false,
      error: expect.stringContaining('missing the required property "query"'),
    });
    expect(await shelf.executeAction('burn', {})).toEqual({ success: false, error: 'Unknown action: burn' });
  });

  it('splits text at paragraphs, and cuts what is longer than a page between words', () => {
    expect(splitPages('a\n\nb\n\nc', 4)).toEqual(['a\n\nb', 'c']);
    expect(splitPages('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    expect(splitPages('the heart has four chambers', 12)).toEqual(['the heart', 'has four', 'chambers']);
    expect(splitPages('\n\n  \n\n', 10)).toEqual([]);
  });

  it('leaves out a file it cannot read, keeps books of one name apart, and types its fields', async () => {
    const dir = shelfDir();
    writeFileSync(join(dir, 'Broken.pdf'), '%PDF-1.4 this is not really a pdf');
    writeFileSync(join(dir, 'Anatomy.pdf'), makePdf([['Plate A.']]));
    const shelf = new BookshelfEnvironment({ dir });
    expect(await shelf.updateEditableStatus('selected_book_name', 'Physiology')).toMatchObject({ success: true });
    expect(shelf.skipped.map((x) => x.file)).toEqual(['Broken.pdf']);
    expect([...shelf.books.keys()]).toEqual(['Anatomy.pdf', 'Anatomy.txt', 'Atlas', 'Physiology']);
    expect(shelf.env).toMatchObject({ unreadableFiles: ['Broken.pdf'] });
    // The named API compiles as written: the fields are typed by name.
    expect(shelf.editableStatus.current_page.value).toBe('1');
  });

  it('reports a folder it cannot read, and reads it once it is there', async () => {
    const dir = join(tempDir(), 'later');
    const shelf = new BookshelfEnvironment({ dir });
    await expect(shelf.load()).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    mkdirSync(dir);
    writeFileSync(join(dir, 'Late.md'), 'Arrived late.');
    await shelf.load();
    expect([...shelf.books.keys()]).toEqual(['Late']);
  });
});

/**
 * The model of the bookshelf run, scripted: it searches, opens the book it found, goes to
 * the page, and reads the page from its context. Each step reads what the last one returned.
 */
const reader = () =>
  scriptedModel((prompt: Prompt) => {
    const last = prompt.messages.at(-1)?.content.at(-1);
    const result =
      last?.type === 'tool-result' && last.output.type === 'text'
        ? (JSON.parse(last.output.text) as { data?: { book: string; page: number }[]; updatedField?: string })
        : undefined;
    if (result === undefined) return { toolCalls: [{ name: 'semantic_search', input: { query: 'heart chambers' } }] };
    if (result.data !== undefined) {
      const hit = result.data[0] as { book: string; page: number };
      return {
        toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'selected_book_name', value: hit.book } }],
        text: `Found it in ${hit.book} on page ${hit.page}.`,
      };
    }
    if (result.updatedField === 'selected_book_name') {
      const page = /Found it in \w+ on page (\d+)/.exec(JSON.stringify(prompt.messages))?.[1] ?? '1';
      return { toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'current_page', value: page } }] };
    }
    const page = /## Current page:\n[^\n]*\n([\s\S]*)$/.exec(prompt.system)?.[1] ?? '';
    return { text: `From the page: ${/The heart has four chambers[^.]*\./.exec(page)?.[0] ?? '(not found)'}` };
  });

describe('a bookshelf run through the model', () => {
  it('works with instructions written in the text as well', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const shelf = new BookshelfEnvironment({ dir: shelfDir(), pageSize: 1000 });
    const model = scriptedModel((prompt: Prompt) => {
      const feedback = JSON.stringify(prompt.messages.at(-1)?.content);
      if (!feedback.includes('Results of your instructions'))
        return { text: 'Searching: {"action": "semantic_search", "params": {"query": "heart chambers"}}' };
      const hit = /\\"book\\":\\"(\w+)\\",\\"page\\":(\d+)/.exec(feedback);
      if (hit !== null && !feedback.includes('update_editable_status')) {
        return {
          text: `Opening it:\n\`\`\`json\n{"type":"workspace_action","action":"update_editable_status","params":{"fieldName":"selected_book_name","value":"${hit[1]}"}}\n\`\`\`\nand {"action":"update_editable_status","fieldName":"current_page","value":"${hit[2]}"}`,
        };
      }
      return { text: 'Reading it now.' };
    });
    const outcome = await ws.worker({ session, model, environments: [shelf], mode: 'text' }).run('Find the heart chapter');
    expect(outcome).toMatchObject({
      status: 'done',
      actions: [
        { name: 'semantic_search', ok: true },
        { name: 'update_editable_status', ok: true },
        { name: 'update_editable_status', ok: true },
      ],
    });
    const page = Number(shelf.editableStatus.current_page?.value);
    expect(shelf.books.get(shelf.editableStatus.selected_book_name?.value ?? '')?.pages[page - 1]).toContain('The heart has four chambers');
    expect(model.calls.at(-1)?.system).toContain('The heart has four chambers');
    await ws.close();
  });

  it('searches, opens the book, goes to the page and reads it, all by the model; a restart in the middle resumes', async () => {
    const dir = shelfDir();
    const wsDir = tempDir();
    let ws = await createWorkspace({ dir: wsDir });
    const session = await ws.sessions.create();
    // The first two steps, then the process stops.
    const first = await ws
      .worker({ session, model: reader(), environments: [new BookshelfEnvironment({ dir, pageSize: 1000 })], maxSteps: 2 })
      .run('Find the chapter on the heart and read it');
    expect(first).toMatchObject({
      status: 'step_limit',
      actions: [
        { name: 'semantic_search', ok: true },
        { name: 'update_editable_status', ok: true },
      ],
    });
    await ws.close();

    ws = await createWorkspace({ dir: wsDir });
    const shelf = new BookshelfEnvironment({ dir, pageSize: 1000 });
    const again = ws.sessions.get(session.id);
    if (again === undefined) throw new Error('session lost');
    const rest = await ws.worker({ session: again, model: reader(), environments: [shelf] }).run();
    expect(shelf.editableStatus.selected_book_name?.value).toBe('Physiology');
    const page = Number(shelf.editableStatus.current_page?.value);
    expect(shelf.books.get('Physiology')?.pages[page - 1]).toContain('The heart has four chambers');
    expect(rest).toMatchObject({ status: 'done', actions: [{ name: 'update_editable_status', ok: true }] });
    expect(rest.turn?.blocks).toEqual([
      { type: 'text', text: 'From the page: The heart has four chambers: two atria receive blood and two ventricles pump it out through the valves.' },
    ]);
    await ws.close();
  });
});

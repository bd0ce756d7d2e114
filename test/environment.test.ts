import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createWorkspace, environmentValuesAt, validateFieldValue } from '../src/index.js';
import { Reader } from './fixtures/reader.js';
import { tempDir, text } from './helpers.js';

describe('an environment, updated directly', () => {
  it('follows the seed: exists, not read-only, valid, previous value, apply, refresh, result', async () => {
    const reader = new Reader();
    expect(reader.editableStatus.current_page?.value).toBeNull(); // page 1 means nothing before a book is open
    expect(await reader.updateEditableStatus('selected_book_name', 'Physiology')).toEqual({
      success: true,
      updatedField: 'selected_book_name',
      previousValue: null,
      newValue: 'Physiology',
      reset: [{ field: 'current_page', previousValue: null }],
    });
    expect(await reader.updateEditableStatus('current_page', '42')).toMatchObject({ success: true, previousValue: '1', newValue: '42' });
    expect(reader.refreshed).toEqual(['selected_book_name', 'current_page', 'current_page']);
    expect(reader.env).toEqual({ availableBooks: ['Physiology', 'Anatomy', 'Pocket'], currentBook: 'Physiology', pages: 450 });
  });

  it('refuses every bad input with a clear error, and changes nothing', async () => {
    const reader = new Reader();
    await reader.updateEditableStatus('selected_book_name', 'Pocket');
    const before = JSON.stringify(reader.getEditableStatusSchema());
    const cases: [string, string | null, RegExp][] = [
      ['volume', '3', /Unknown editable field: volume\. The fields are: selected_book_name, current_page, mode, large_print/],
      ['mode', 'scroll', /Field 'mode' is read-only/],
      ['selected_book_name', 'Cookbook', /must be one of \["Physiology","Anatomy","Pocket"\], not "Cookbook"/],
      ['current_page', 'ten', /takes a number written like 42 or 3\.5, not "ten"/],
      ['current_page', '0x2', /not "0x2"/],
      ['current_page', ' 2 ', /not " 2 "/],
      ['current_page', '4', /Page 4 is not in Pocket \(1 to 3\)/],
      ['current_page', '2.5', /Page 2\.5 is not in Pocket/],
      ['large_print', 'yes', /takes true or false, not "yes"/],
    ];
    for (const [field, value, error] of cases) {
      const result = await reader.updateEditableStatus(field, value);
      expect(result.success, `${field}=${value}`).toBe(false);
      expect(result.error).toMatch(error);
    }
    expect(JSON.stringify(reader.getEditableStatusSchema())).toBe(before);
  });

  it('resets a dependent field a change makes invalid, and says so', async () => {
    const reader = new Reader();
    await reader.updateEditableStatus('selected_book_name', 'Anatomy');
    await reader.updateEditableStatus('current_page', '500');
    const result = await reader.updateEditableStatus('selected_book_name', 'Pocket');
    expect(result).toMatchObject({ success: true, reset: [{ field: 'current_page', previousValue: '500' }] });
    expect(reader.editableStatus.current_page?.value).toBe('1');
    const kept = await reader.updateEditableStatus('selected_book_name', 'Physiology');
    expect(kept.reset).toBeUndefined(); // page 1 is still valid
    const cleared = await reader.updateEditableStatus('selected_book_name', null);
    expect(cleared).toMatchObject({ success: true, reset: [{ field: 'current_page', previousValue: '1' }] });
    expect(reader.editableStatus.current_page?.value).toBeNull();
  });

  it("renders the seed's context: env status, fields with constraints, how to update", async () => {
    const reader = new Reader();
    await reader.updateEditableStatus('selected_book_name', 'Anatomy');
    const context = reader.renderContext();
    expect(context).toContain('------Reader-------');
    expect(context).toContain('## Environment Status:\n{\n  "availableBooks"');
    expect(context).toContain('  selected_book_name: Anatomy [must be one of the available book names]');
    expect(context).toContain("  current_page: 1 [a whole number within the current book's page range]");
    expect(context).toContain('  mode: paged [set by the app] (read-only)');
    expect(context).toContain('{"action": "update_editable_status", "fieldName": "<field_name>", "value": "<new_value>"}');
  });

  it('persists every change as a command: values survive a restart, and past values can be read back', async () => {
    const dir = tempDir();
    const ws = await createWorkspace({ dir });
    const s = await ws.sessions.create();
    const reader = new Reader();
    await reader.mount(ws.manager);
    await reader.updateEditableStatus('selected_book_name', 'Anatomy');
    const t = await s.addTurn({ role: 'user', blocks: [text('read on')] });
    await reader.updateEditableStatus('current_page', '300');
    await ws.close();

    const again = await createWorkspace({ dir });
    const restored = new Reader();
    await restored.mount(again.manager);
    expect(restored.editableStatus.selected_book_name?.value).toBe('Anatomy');
    expect(restored.editableStatus.current_page?.value).toBe('300');
    expect(restored.refreshed).toEqual(['selected_book_name', 'current_page']);
    const log = await again.manager.store.commandLog();
    expect(log.filter((e) => e.type === 'environment:update')).toHaveLength(2);
    expect(environmentValuesAt(log, 'reader', t.seq)).toEqual({ selected_book_name: 'Anatomy', current_page: '1' });
    expect(environmentValuesAt(log, 'reader', log.at(-1)?.seq ?? 0)).toEqual({ selected_book_name: 'Anatomy', current_page: '300' });
    await again.close();
  });

  it('runs concurrent updates one after another, each checked against the last', async () => {
    const reader = new Reader();
    await reader.updateEditableStatus('selected_book_name', 'Anatomy');
    const [book, page] = await Promise.all([reader.updateEditableStatus('selected_book_name', 'Pocket'), reader.updateEditableStatus('current_page', '300')]);
    expect(book.success).toBe(true);
    expect(page).toMatchObject({ success: false, error: 'Page 300 is not in Pocket (1 to 3)' });
    expect(reader.editableStatus.current_page?.value).toBe('1');
  });

  it('refuses a change that would leave the fields invalid as a whole (a dependency cycle, a read-only dependent)', async () => {
    const { BaseEnvironment } = await import('../src/index.js');
    class Cycle extends BaseEnvironment {
      readonly info = { id: 'cycle', name: 'Cycle', description: '' };
      env = {};
      constructor() {
        super({
          x: {
            description: '',
            type: 'number',
            constraint: 'at most y',
            dependsOn: ['y'],
            validation: (v) => ({ valid: v === null || this.editableStatus.y?.value == null || Number(v) <= Number(this.editableStatus.y.value) }),
          },
          y: {
            description: '',
            type: 'number',
            constraint: 'at least x',
            dependsOn: ['x'],
            initial: '10',
            validation: (v) => ({ valid: v === null || Number(v) >= Number(this.editableStatus.x?.value ?? 0) }),
          },
          ruler: {
            description: '',
            type: 'number',
            constraint: 'x or more',
            readonly: true,
            dependsOn: ['x'],
            initial: '3',
            validation: (v) => ({ valid: v === null || Number(v) >= Number(this.editableStatus.x?.value ?? 0) }),
          },
        });
      }
    }
    const env = new Cycle();
    expect(await env.updateEditableStatus('x', '2')).toMatchObject({ success: true });
    const refused = await env.updateEditableStatus('x', '5');
    expect(refused).toMatchObject({ success: false, error: expect.stringContaining("'ruler', which is read-only") });
    expect(env.editableStatus.x?.value).toBe('2');
    expect(env.editableStatus.ruler?.value).toBe('3');
  });

  it('ignores stored values that are no longer valid when mounted', async () => {
    const ws = await createWorkspace();
    await ws.manager.dispatch({
      type: 'environment:update',
      payload: { environmentId: 'reader', values: { selected_book_name: 'Burned', current_page: '9', large_print: 'true' } },
    });
    const reader = new Reader();
    const { ignored } = await reader.mount(ws.manager);
    expect(ignored.map((i) => i.field)).toEqual(['selected_book_name', 'current_page']);
    expect(reader.editableStatus.selected_book_name?.value).toBeNull();
    expect(reader.editableStatus.large_print?.value).toBe('true');
    await ws.close();
  });

  it('never leaves a field in a state its validation rejects (property)', async () => {
    const fields = ['selected_book_name', 'current_page', 'mode', 'large_print', 'volume'];
    const values = fc.oneof(fc.constantFrom(null, 'Physiology', 'Anatomy', 'Pocket', 'true', 'false', '1', '3', '4', '450', '521', 'x'), fc.string());
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(...fields), values), { maxLength: 30 }), async (updates) => {
        const reader = new Reader();
        for (const [field, value] of updates) {
          const before = JSON.stringify(reader.getEditableStatusSchema());
          const result = await reader.updateEditableStatus(field, value);
          if (!result.success) expect(JSON.stringify(reader.getEditableStatusSchema())).toBe(before);
          for (const [name, status] of Object.entries(reader.editableStatus)) {
            expect(validateFieldValue(name, status, status.value).valid, `${name}=${status.value}`).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * What an environment's context tells the model matches what the worker does with the
 * answer (issue 19): in every mode the context says how to call in that mode, shows each
 * field's schema, and an instruction written as text is carried out, never dropped; an
 * environment written in seed 000's own shape (executeAction, no actions()) is usable.
 */
import { describe, expect, it } from 'vitest';
import {
  createWorkspace,
  type ActionResult,
  type EditableStatus,
  type EditableStatusSchema,
  type EditableStatusUpdateResult,
  type Environment,
  type JsonValue,
  type Prompt,
} from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { Reader } from './fixtures/reader.js';

/** The system prompt of a model call. */
const systemOf = (prompt: Prompt | undefined) => prompt?.system ?? '';
/** The text of every message of a model call. */
const messagesOf = (prompt: Prompt | undefined) => JSON.stringify(prompt?.messages ?? []);

/**
 * Seed 000's BookshelfWorkspace, written exactly in the seed's shape: the IWorkspace members,
 * `executeAction` with a switch, no `actions()`, and its own renderContext that teaches the
 * seed's text instruction.
 */
class SeedShelf implements Environment {
  info = { id: 'seed-shelf', name: 'Bookshelf Workspace', description: 'Books to read' };
  env: Record<string, JsonValue> = { availableBooks: ['Physiology', 'Anatomy'], currentBook: null };
  editableStatus: Record<string, EditableStatus> = {
    selected_book_name: {
      value: null,
      constraint: 'must be one of the available book names',
      description: 'Select a book to browse',
      type: 'enum',
      enumValues: ['Physiology', 'Anatomy'],
      readonly: false,
    },
  };
  searches: string[] = [];

  renderContext(): string {
    return [
      '------Bookshelf Workspace-------',
      '## Environment Status:',
      JSON.stringify(this.env),
      '## Editable Status:',
      `  selected_book_name: ${this.editableStatus.selected_book_name?.value ?? '(not set)'} [must be one of the available book names]`,
      'To update a field, use this format:',
      '{"action": "update_editable_status", "fieldName": "<field_name>", "value": "<new_value>"}',
      'Actions: semantic_search {"query": "..."}',
    ].join('\n');
  }

  async updateEditableStatus(fieldName: string, value: string | null): Promise<EditableStatusUpdateResult> {
    const field = this.editableStatus[fieldName];
    if (field === undefined) return { success: false, error: `Unknown editable field: ${fieldName}` };
    if (value !== null && !(field.enumValues ?? []).includes(value)) return { success: false, error: `Book "${value}" not found` };
    const previousValue = field.value;
    field.value = value;
    this.env = { ...this.env, currentBook: value };
    return { success: true, updatedField: fieldName, previousValue, newValue: value };
  }

  getEditableStatusSchema(): EditableStatusSchema {
    const fields: EditableStatusSchema['fields'] = {};
    for (const [name, f] of Object.entries(this.editableStatus)) {
      fields[name] = {
        description: f.description,
        type: f.type,
        constraint: f.constraint,
        readonly: f.readonly,
        value: f.value,
        enumValues: f.enumValues ?? [],
      };
    }
    return { fields };
  }

  async executeAction(actionName: string, params: Record<string, JsonValue>): Promise<ActionResult> {
    switch (actionName) {
      case 'semantic_search':
        this.searches.push(typeof params.query === 'string' ? params.query : JSON.stringify(params.query));
        return { success: true, data: [{ book: 'Physiology', page: 12, snippet: 'The heart has four chambers' }] };
      default:
        return { success: false, error: `Unknown action: ${actionName}` };
    }
  }
}

describe('what the context says matches what the worker does', () => {
  it('tools mode: the context says to call the tool, with each field schema, and the tool call changes the field', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const reader = new Reader();
    const model = scriptedModel([
      { toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'selected_book_name', value: 'Anatomy' } }] },
      { text: 'Anatomy is open.' },
    ]);
    const outcome = await ws.worker({ session, model, environments: [reader] }).run('open anatomy');
    expect(outcome.status).toBe('done');
    expect(reader.editableStatus.selected_book_name?.value).toBe('Anatomy');
    const system = systemOf(model.calls[0]);
    // How to update, in this mode: a tool call, never a text instruction.
    expect(system).toContain('To update a field, call the update_editable_status tool with {"fieldName": "<field_name>", "value": "<new_value>"}');
    expect(system).not.toContain('write in your answer');
    expect(system).not.toContain('answer with:');
    // The schema: description, type, choices, dependencies and read-only, for every field.
    expect(system).toContain(
      '  selected_book_name: (not set) [must be one of the available book names]\n    The book open. Type: one of "Physiology", "Anatomy", "Pocket".',
    );
    expect(system).toContain('    The page open. Type: number. Depends on: selected_book_name.');
    expect(system).toContain('  mode: paged [set by the app] (read-only)\n    How pages are shown. Type: string. Read-only: only the app sets it.');
    expect(system).toContain('    Large print. Type: boolean.');
    await ws.close();
  });

  it('text mode: the context says to write the instruction, and the written instruction changes the field', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const reader = new Reader();
    const model = scriptedModel([
      { text: 'Opening it: {"action": "update_editable_status", "fieldName": "selected_book_name", "value": "Pocket"}' },
      { text: 'Done.' },
    ]);
    await ws.worker({ session, model, environments: [reader], mode: 'text' }).run('open the pocket book');
    expect(reader.editableStatus.selected_book_name?.value).toBe('Pocket');
    expect(systemOf(model.calls[0])).toContain(
      'To update a field, write in your answer {"action": "update_editable_status", "fieldName": "<field_name>", "value": "<new_value>"}',
    );
    expect(systemOf(model.calls[0])).toContain('    The book open. Type: one of "Physiology", "Anatomy", "Pocket".');
    await ws.close();
  });

  it('envelope mode: the context says to give the command', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const reader = new Reader();
    const model = scriptedModel([
      {
        text: JSON.stringify({
          decision: { action: 'PROCEED', message: 'Opening the book.' },
          reasoning: { analysis: 'Nothing is open.', rationale: 'The user asked for Anatomy.', expectedOutcome: 'Anatomy is open.' },
          command: { action: 'update_editable_status', parameters: { fieldName: 'selected_book_name', value: 'Anatomy' } },
        }),
      },
      {
        text: JSON.stringify({
          decision: { action: 'PROCEED', message: 'Anatomy is open.' },
          reasoning: { analysis: 'It is open.', rationale: 'Nothing more to do.', expectedOutcome: 'The user reads.' },
        }),
      },
    ]);
    await ws.worker({ session, model, environments: [reader], mode: 'envelope' }).run('open anatomy');
    expect(reader.editableStatus.selected_book_name?.value).toBe('Anatomy');
    expect(systemOf(model.calls[0])).toContain(
      'To update a field, answer with the command {"action": "update_editable_status", "parameters": {"fieldName": "<field_name>", "value": "<new_value>"}}',
    );
    await ws.close();
  });

  it('tools mode: an instruction written as text is carried out, and the model is told to call tools next time', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const reader = new Reader();
    // What a real model does when a context (its own, or the seed's) taught it the text form.
    const model = scriptedModel([
      {
        text: 'I will open it.\n```json\n{"type": "workspace_action", "action": "update_editable_status", "params": {"fieldName": "selected_book_name", "value": "Anatomy"}}\n```\nand then {"action": "update_editable_status", "fieldName": "current_page", "value": 12}',
      },
      { text: 'Anatomy is open at page 12.' },
    ]);
    const outcome = await ws.worker({ session, model, environments: [reader] }).run('open anatomy at page 12');
    expect(outcome.status).toBe('done');
    expect(outcome.steps).toBe(2);
    expect(reader.editableStatus.selected_book_name?.value).toBe('Anatomy');
    expect(reader.editableStatus.current_page?.value).toBe('12');
    expect(outcome.actions).toEqual([
      { name: 'update_editable_status', input: { fieldName: 'selected_book_name', value: 'Anatomy' }, ok: true },
      { name: 'update_editable_status', input: { fieldName: 'current_page', value: 12 }, ok: true },
    ]);
    const told = messagesOf(model.calls[1]);
    expect(told).toContain('Results of your instructions:');
    expect(told).toContain('You wrote these as text; each line above says how it went. Your actions are tools here: call them as tool calls.');
    // Read back from the workspace: one user turn carries both results, after the answer.
    const transcript = await session.transcript();
    expect(transcript.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    await ws.close();
  });

  it('tools mode: a broken instruction naming an action is answered with why, a JSON example in prose is left alone', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const reader = new Reader();
    const model = scriptedModel([
      { text: 'Here: {"action": "update_editable_status", "fieldName": "selected_book_name", "value": }' },
      { text: 'A config looks like {"action": "deploy", "target": "prod"}; nothing to do.' },
    ]);
    const outcome = await ws.worker({ session, model, environments: [reader] }).run('open a book');
    expect(outcome.status).toBe('done');
    expect(outcome.steps).toBe(2);
    expect(messagesOf(model.calls[1])).toContain('could not read an instruction: an instruction is not valid JSON');
    expect(messagesOf(model.calls[1])).toContain('Nothing was run. Your actions are tools here');
    expect(outcome.actions).toEqual([]);
    expect(reader.editableStatus.selected_book_name?.value).toBeNull();
    await ws.close();
  });

  it('tools mode: an answer with tool calls is not also read for text instructions', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const reader = new Reader();
    const model = scriptedModel([
      {
        text: 'I could write {"action": "update_editable_status", "fieldName": "selected_book_name", "value": "Pocket"} but I call the tool.',
        toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'selected_book_name', value: 'Anatomy' } }],
      },
      { text: 'Open.' },
    ]);
    await ws.worker({ session, model, environments: [reader] }).run('open anatomy');
    expect(reader.editableStatus.selected_book_name?.value).toBe('Anatomy');
    await ws.close();
  });

  it('several environments: the context names the environment parameter each call takes', async () => {
    class Other extends Reader {
      override readonly info = { id: 'other', name: 'Other reader', description: 'A second reader' };
    }
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const model = scriptedModel([
      { toolCalls: [{ name: 'update_editable_status', input: { environment: 'other', fieldName: 'selected_book_name', value: 'Pocket' } }] },
      { text: 'ok' },
    ]);
    const [first, second] = [new Reader(), new Other()];
    await ws.worker({ session, model, environments: [first, second] }).run('open pocket in the other one');
    expect(second.editableStatus.selected_book_name?.value).toBe('Pocket');
    expect(first.editableStatus.selected_book_name?.value).toBeNull();
    expect(systemOf(model.calls[0])).toContain(
      'To update a field, call the update_editable_status tool with {"environment": "other", "fieldName": "<field_name>", "value": "<new_value>"}',
    );
    await ws.close();
  });
});

describe("an environment in seed 000's own shape", () => {
  it('tools mode: execute_action reaches executeAction, and the fields schema and how-to follow its own context', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const shelf = new SeedShelf();
    const model = scriptedModel([
      { toolCalls: [{ name: 'execute_action', input: { actionName: 'semantic_search', params: { query: 'heart' } } }] },
      { toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'selected_book_name', value: 'Physiology' } }] },
      { text: 'Physiology, page 12.' },
    ]);
    const worker = ws.worker({ session, model, environments: [shelf] });
    expect(worker.actions.map((a) => a.name)).toEqual(['update_editable_status', 'execute_action']);
    const outcome = await worker.run('where is the heart described?');
    expect(outcome.status).toBe('done');
    expect(shelf.searches).toEqual(['heart']);
    expect(shelf.editableStatus.selected_book_name?.value).toBe('Physiology');
    expect(messagesOf(model.calls[1])).toContain('The heart has four chambers');
    const system = systemOf(model.calls[0]);
    expect(system).toContain('## How to act on Bookshelf Workspace');
    expect(system).toContain('    Select a book to browse. Type: one of "Physiology", "Anatomy".');
    expect(system).toContain('To run one of its actions, call the execute_action tool with {"actionName": "<action_name>", "params": {"<param>": "<value>"}}');
    await ws.close();
  });

  it("text mode: the seed's own instructions work as the seed writes them, an unknown action gets the environment's answer", async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const shelf = new SeedShelf();
    const model = scriptedModel([
      {
        text: '{"type": "workspace_action", "action": "semantic_search", "params": {"query": "heart"}}\n{"type": "workspace_action", "action": "update_editable_status", "params": {"fieldName": "selected_book_name", "value": "Physiology"}}\n{"action": "burn", "params": {}}',
      },
      { text: 'Done.' },
    ]);
    await ws.worker({ session, model, environments: [shelf], mode: 'text' }).run('find the heart');
    expect(shelf.searches).toEqual(['heart']);
    expect(shelf.editableStatus.selected_book_name?.value).toBe('Physiology');
    expect(messagesOf(model.calls[1])).toContain('Unknown action: burn');
    await ws.close();
  });

  it('tools mode: the seed-shaped context teaches the text form, and a model that follows it is carried out', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const shelf = new SeedShelf();
    const model = scriptedModel([
      {
        text: '{"action": "update_editable_status", "fieldName": "selected_book_name", "value": "Anatomy"} {"action": "semantic_search", "params": {"query": "bones"}}',
      },
      { text: 'Done.' },
    ]);
    const outcome = await ws.worker({ session, model, environments: [shelf] }).run('open anatomy and find bones');
    expect(outcome.status).toBe('done');
    expect(shelf.editableStatus.selected_book_name?.value).toBe('Anatomy');
    expect(shelf.searches).toEqual(['bones']);
    await ws.close();
  });

  it('beside another environment: update_editable_status names the environment, execute_action (taking no such parameter) does not', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const shelf = new SeedShelf();
    const reader = new Reader();
    const model = scriptedModel([
      { toolCalls: [{ name: 'execute_action', input: { actionName: 'semantic_search', params: { query: 'lungs' } } }] },
      { toolCalls: [{ name: 'update_editable_status', input: { environment: 'seed-shelf', fieldName: 'selected_book_name', value: 'Anatomy' } }] },
      { text: 'Done.' },
    ]);
    const outcome = await ws.worker({ session, model, environments: [reader, shelf] }).run('find the lungs');
    expect(outcome.actions.map((a) => [a.name, a.ok])).toEqual([
      ['execute_action', true],
      ['update_editable_status', true],
    ]);
    expect(shelf.searches).toEqual(['lungs']);
    expect(shelf.editableStatus.selected_book_name?.value).toBe('Anatomy');
    const system = systemOf(model.calls[0]);
    expect(system).toContain('To run one of its actions, call the execute_action tool with {"actionName": "<action_name>", "params": {"<param>": "<value>"}}');
    expect(system).toContain('call the update_editable_status tool with {"environment": "seed-shelf", "fieldName": "<field_name>", "value": "<new_value>"}');
    await ws.close();
  });
});

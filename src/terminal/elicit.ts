/**
 * An MCP server's request for input, asked in the terminal: its message, then each field on a
 * line of its own (Enter keeps a default, a choice by its number or name, several by commas),
 * what is wrong said and asked again; then send, decline or cancel. A link to open is shown
 * with done or cancel. Ctrl-C or the end of input cancels.
 */
import type { ElicitationAnswer, ElicitationRequest } from '../mcp/connection.js';
import { elicitationContent, elicitationFields, type ElicitField } from '../mcp/elicitation.js';
import { sanitize } from './ansi.js';
import type { Read } from './line-reader.js';
import type { Screen } from './screen.js';

export async function askElicitation(screen: Screen, read: (prompt: string) => Promise<Read>, request: ElicitationRequest): Promise<ElicitationAnswer> {
  screen.endAnswer();
  screen.blankLine();
  screen.write(`${screen.paint('yellow', screen.paint('bold', `[${sanitize(request.server)} asks]`))} ${sanitize(request.message)}\n`);
  if (request.mode === 'url') {
    screen.write(`Open this address to go on: ${sanitize(request.url)}\n`);
    for (;;) {
      const answer = await read('[d]one / [c]ancel: ');
      if (answer.kind !== 'line') return { action: 'cancel' };
      const word = answer.text.trim().toLowerCase();
      if (word === 'd' || word === 'done') return { action: 'accept' };
      if (word === 'c' || word === 'cancel') return { action: 'cancel' };
      screen.write('Please answer d or c.\n');
    }
  }
  const fields = elicitationFields(request);
  screen.write(screen.paint('dim', 'Enter keeps the value in brackets; Ctrl-C cancels.') + '\n');
  const values: Record<string, string> = {};
  for (const field of fields) {
    for (;;) {
      if (field.description !== undefined) screen.write(screen.paint('dim', `  ${sanitize(field.description)}`) + '\n');
      if (field.choices !== undefined)
        screen.write(screen.paint('dim', `  ${field.choices.map((c, i) => `${i + 1}) ${sanitize(c.label)}`).join('  ')}`) + '\n');
      const answer = await read(`${sanitize(field.label)}${field.required ? ' *' : ''}${hint(field)}: `);
      if (answer.kind !== 'line') return { action: 'cancel' };
      const typed = answer.text.trim();
      const value = typed === '' ? defaultOf(field) : byNumber(field, typed);
      const { problems } = elicitationContent([field], { [field.key]: value });
      if (problems.length === 0) {
        values[field.key] = value;
        break;
      }
      screen.write(`${problems.join('; ')}.\n`);
    }
  }
  for (;;) {
    const answer = await read('[s]end / [d]ecline / [c]ancel: ');
    if (answer.kind !== 'line') return { action: 'cancel' };
    const word = answer.text.trim().toLowerCase();
    if (word === 's' || word === 'send') return elicitationContent(fields, values).answer;
    if (word === 'd' || word === 'decline') return { action: 'decline' };
    if (word === 'c' || word === 'cancel') return { action: 'cancel' };
    screen.write('Please answer s, d or c.\n');
  }
}

function hint(field: ElicitField): string {
  const kind = field.kind === 'boolean' ? ' (y/n)' : field.kind === 'list' ? ' (several, separated by commas)' : '';
  const d = defaultOf(field);
  return `${kind}${d === '' ? '' : ` [${sanitize(d)}]`}`;
}

function defaultOf(field: ElicitField): string {
  const d = field.default;
  if (d === undefined) return '';
  if (Array.isArray(d)) return d.join(', ');
  if (typeof d === 'boolean') return d ? 'y' : 'n';
  return String(d);
}

/** A choice typed by its number in the list shown. */
function byNumber(field: ElicitField, typed: string): string {
  const choices = field.choices;
  if (choices === undefined) return typed;
  const pick = (word: string) => (/^\d+$/.test(word) ? (choices[Number(word) - 1]?.value ?? word) : word);
  return field.kind === 'list'
    ? typed
        .split(',')
        .map((w) => pick(w.trim()))
        .join(', ')
    : pick(typed);
}

/**
 * The chat's slash commands: `/model`, `/new`, `/sessions`, `/diff`, `/compact`, `/cost`, `/session`,
 * `/clearance ...`, `/help`, `/exit`; and their Tab completion at the prompt.
 */
import type { ClearanceApi } from '../agent/clearance.js';
import { clearanceItems, toClearanceItem } from '../agent/clearance.js';
import type { ClearanceDecision } from '../agent/ui-adapter.js';
import { chatSessions } from '../agent/agent-records.js';
import { GolemError, toGolemError } from '../core/errors.js';
import { pathLength } from '../core/turn-tree.js';
import type { Workspace } from '../create-workspace.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Session } from '../prompt/session.js';
import type { Session as SessionRecord } from '../core/records.js';
import type { TerminalAdapter } from '../terminal/index.js';
import { compactSession } from './compact.js';
import { describePrompts, promptMessage, type PromptCommand } from '../mcp/prompts.js';
import { formatCost, sessionCost } from './session-view.js';
import { sessionDiffView } from './session-diff-view.js';

/** What `/help` prints: the commands and the keys of the chat. */
export const CHAT_HELP = `Commands in the chat:
  /model                     the model answering; /model <provider:model> switches for the next answers
  /new                       start a new session (it is made when you send its first message)
  /sessions                  the recent sessions; /sessions <number or id> switches to one
  /diff <number or id>       compare this session with another (a fork of it, say): the turns
                             since they parted, and the environment, UI and clearance that differ
  /compact                   summarize this session so far: later answers get the summary instead
  /cost                      the tokens and cost of this session's answers
  /session                   this session's id and the way back to it
  /mcp                       the MCP servers connected (.mcp.json), their tools and prompts
  /clearance                 list the items waiting for clearance
  /clearance diff <id>       show a staged change
  /clearance review          go through each waiting item: its diff, then push, discard or later
  /clearance push <id> [branch]  write it into the files (or run the waiting call);
                             with a branch, commit it there and leave the files
  /clearance discard <id>    drop it
  /clearance defer <id>      decide later
  /help                      this help
  /exit                      leave (Ctrl-D too)
Keys: Esc or Ctrl-C stops a running answer; ↑/↓ go through the messages sent before (kept
across runs); Tab completes a command; y/n/a/s answer an approval at once; a line ended
with \\ goes on on the next line, and a pasted block is one message.
While an answer runs: Enter queues what you typed (listed above the progress line as
"queued", it is sent as your next message once the run ends, and answered by the next run);
Tab steers instead (the model reads it before its next call); ↑ on an empty line takes the
last queued message back to edit. Esc stops the run; what you queued is still sent after it.
`;

const COMMANDS = ['/model', '/new', '/sessions', '/diff', '/compact', '/cost', '/session', '/clearance', '/mcp', '/help', '/exit'];
const CLEARANCE_SUBCOMMANDS = ['list', 'review', 'diff', 'push', 'discard', 'defer'];

/**
 * Tab at the chat prompt: a command's name, or `/clearance`'s subcommand. The candidates,
 * and the end of the line they complete (readline's completer contract).
 */
export function completeCommand(line: string, more: readonly string[] = []): [string[], string] {
  if (!line.startsWith('/')) return [[], line];
  const words = line.split(' ');
  if (words.length === 1) {
    const hits = [...COMMANDS, ...more].filter((c) => c.startsWith(line));
    return [hits.length === 1 ? [`${hits[0]} `] : hits, line];
  }
  const last = words.at(-1) ?? '';
  if (words.length === 2 && words[0] === '/clearance') {
    const hits = CLEARANCE_SUBCOMMANDS.filter((c) => c.startsWith(last));
    return [hits.length === 1 ? [`${hits[0]} `] : hits, last];
  }
  return [[], last];
}

/** What the commands act on: the chat's state and its means, kept by the chat. */
export interface ChatContext {
  ws: Workspace;
  ui: TerminalAdapter;
  clearance: ClearanceApi;
  say(text: string, level?: 'info' | 'warning' | 'error'): void;
  /** The session open, once it exists (a new one exists from its first message). */
  session(): Session | undefined;
  /** Its id (a new session's is chosen before it exists). */
  sessionId(): string;
  model(): ModelAdapter | undefined;
  /** The model for `spec`, or why there is none (throws). */
  resolveModel(spec: string): ModelAdapter;
  setModel(model: ModelAdapter): void;
  /** Opens `session` (or a new one, when undefined), showing its recent conversation. */
  open(session: Session | undefined): Promise<void>;
  /** Runs `body` holding the session's run lease, stoppable like a run (Esc, Ctrl-C); undefined when the lease was refused (said). */
  exclusive<T>(session: Session, body: (signal: AbortSignal) => Promise<T>): Promise<T | undefined>;
  /** The MCP servers' prompts, as commands. */
  prompts(): readonly PromptCommand[];
  /** Sends a message as the user (shown first, as it was not typed). */
  send(text: string): Promise<void>;
}

/** Runs a slash command; 'exit' when the chat is to end. */
export async function slashCommand(line: string, chat: ChatContext): Promise<'exit' | undefined> {
  const [name = '', ...args] = line.slice(1).trim().split(/\s+/);
  try {
    switch (name) {
      case 'exit':
      case 'quit':
        return 'exit';
      case 'help': {
        const prompts = chat.prompts();
        chat.ui.print(
          prompts.length === 0 ? CHAT_HELP : `${CHAT_HELP}MCP servers' prompts (each sends the prompt as your message):\n${describePrompts(prompts)}\n`,
        );
        return undefined;
      }
      case 'session': {
        const id = chat.sessionId();
        if (chat.session() === undefined) chat.say(`Session ${id}: new, it starts with your first message.`);
        else chat.say(`Session ${id}. Back to it later with: golem --session ${id}`);
        return undefined;
      }
      case 'model':
        model(args.join(' '), chat);
        return undefined;
      case 'new':
        await chat.open(undefined);
        chat.say(`New session ${chat.sessionId()}: it starts with your first message.`);
        return undefined;
      case 'sessions':
        await sessions(args[0], chat);
        return undefined;
      case 'diff':
        await diff(args[0], chat);
        return undefined;
      case 'compact':
        await compact(chat);
        return undefined;
      case 'cost': {
        const session = chat.session();
        chat.say(session === undefined ? 'No answers in this session yet: nothing used.' : formatCost(await sessionCost(chat.ws, session)));
        return undefined;
      }
      case 'clearance':
        await clearanceCommand(args, chat);
        return undefined;
      case 'mcp':
        mcpServers(chat);
        return undefined;
      default: {
        const prompt = chat.prompts().find((p) => p.command === `/${name}`);
        if (prompt !== undefined) {
          await chat.send(await promptMessage(prompt, line.slice(1).trim().slice(name.length)));
          return undefined;
        }
        chat.say(`Unknown command /${name}. /help lists them.`, 'warning');
        return undefined;
      }
    }
  } catch (error) {
    chat.say(GolemError.isInstance(error) ? `[${error.code}] ${error.message}` : (error as Error).message, 'error');
    return undefined;
  }
}

/** /mcp: the connected MCP servers, their tools and prompts. */
function mcpServers(chat: ChatContext): void {
  const connections = chat.ws.mcp.connections();
  if (connections.length === 0) {
    chat.say('No MCP servers are connected. golem mcp add <name> -- <command> adds one to .mcp.json; golem starts it next time.');
    return;
  }
  const lines = connections.map((c) => {
    const prompts = chat.prompts().filter((p) => p.connection === c).length;
    return `  ${c.name}: ${c.connected ? 'connected' : 'reconnects at its next call'}, ${c.tools().length} tool(s), ${prompts} prompt(s)`;
  });
  chat.ui.print(`MCP servers:\n${lines.join('\n')}\n`);
}

function model(spec: string, chat: ChatContext): void {
  const current = chat.model();
  if (spec === '') {
    chat.say(current === undefined ? 'No model. /model <provider:model> sets one.' : `Model: ${current.provider}:${current.modelId}`);
    return;
  }
  const next = chat.resolveModel(spec); // throws with what is wrong (a key not set, an unknown provider)
  chat.setModel(next);
  chat.say(`Model: ${next.provider}:${next.modelId} from the next answer on.`);
}

/** How many sessions `/sessions` lists. */
const LISTED = 10;

/** The chat session `pick` names (its number in /sessions, or the start or end of its id), or undefined when none or several do (said). */
function pickedSession(pick: string, chat: ChatContext): SessionRecord | undefined {
  const chats = chatSessions(chat.ws.manager.workspace(), chat.ws.sessions.list());
  const byNumber = /^\d+$/.test(pick) ? chats[Number(pick) - 1] : undefined;
  const matches = byNumber !== undefined ? [byNumber] : chats.filter((s) => s.id.startsWith(pick) || s.id.endsWith(pick));
  if (matches.length === 1) return matches[0];
  chat.say(`${matches.length > 1 ? `Several sessions match "${pick}"` : `No session "${pick}"`}: /sessions lists them.`, 'warning');
  return undefined;
}

/** /diff <session>: this session compared with another. */
async function diff(pick: string | undefined, chat: ChatContext): Promise<void> {
  const session = chat.session();
  if (pick === undefined) {
    chat.say('/diff <number or id> compares this session with another: /sessions lists them.', 'warning');
    return;
  }
  if (session === undefined) {
    chat.say('Nothing to compare yet: this session starts with your first message.');
    return;
  }
  const other = pickedSession(pick, chat);
  if (other === undefined) return;
  chat.ui.print(sessionDiffView(await chat.ws.sessions.diff(session.id, other.id), other));
}

async function sessions(pick: string | undefined, chat: ChatContext): Promise<void> {
  const { ws } = chat;
  const chats = chatSessions(ws.manager.workspace(), ws.sessions.list());
  if (pick !== undefined) {
    const target = pickedSession(pick, chat);
    if (target === undefined) return;
    if (target.id === chat.sessionId()) {
      chat.say(`Already in session ${target.id}.`);
      return;
    }
    await chat.open(ws.sessions.get(target.id));
    return;
  }
  if (chats.length === 0) {
    chat.say('No sessions yet: this one starts with your first message.');
    return;
  }
  // Ids begin with their time: their ends tell them apart (and name them to /sessions and golem --session).
  const shown = chats.slice(0, LISTED);
  await ws.manager.load(shown.map((s) => s.id)); // each line counts its session's turns
  const view = ws.manager.workspace();
  const lines = shown.map((s, i) => {
    const here = s.id === chat.sessionId() ? '*' : ' ';
    const when = s.updatedAt.slice(0, 16).replace('T', ' ');
    return `${here}${String(i + 1).padStart(2)}. …${s.id.slice(-12)}  ${when}  ${String(pathLength(view, s.head)).padStart(4)} turns  ${s.label ?? ''}`;
  });
  const more = chats.length > LISTED ? `\n    … ${chats.length - LISTED} more: golem sessions list` : '';
  chat.ui.print(`Recent sessions (* this one):\n${lines.join('\n')}${more}\nSwitch with /sessions <number or id>.\n`);
}

async function compact(chat: ChatContext): Promise<void> {
  const session = chat.session();
  const model = chat.model();
  if (model === undefined) {
    chat.say('/compact needs a model to write the summary. /model <provider:model> sets one.', 'warning');
    return;
  }
  if (session === undefined) {
    chat.say('Nothing to compact yet.');
    return;
  }
  chat.say('Compacting: the model summarizes the conversation so far…');
  const result = await chat.exclusive(session, (signal) => compactSession(session, model, { signal }));
  if (result === undefined) return;
  if (result.turns === 0) chat.say('Nothing to compact yet.');
  else
    chat.say(
      `Compacted ${result.turns} turn(s) into a summary of about ${result.summaryTokens} tokens: later answers get it in their place (the turns stay in golem sessions show).`,
    );
}

async function clearanceCommand([sub, id, target]: string[], chat: ChatContext): Promise<void> {
  const { clearance, ui } = chat;
  const sessionId = chat.sessionId();
  if (sub === undefined || sub === 'list') {
    const items = clearance.list({ sessionId });
    if (items.length === 0) chat.say('Nothing waits for clearance.');
    for (const item of items) ui.print(`  ${item.id}  ${item.type}  ${item.status}  ${item.description}`);
    return;
  }
  if (sub === 'review') {
    await reviewClearance(chat);
    return;
  }
  if (id === undefined) throw new GolemError('INVALID_ARGUMENT', `/clearance ${sub} needs an item id (see /clearance)`);
  const item = clearance.get(id);
  if (sub === 'diff') await ui.displayDiff({ title: item.description, diff: await clearance.diff(item.id) });
  else if (sub === 'push') await decideClearance(item.id, target === undefined ? { action: 'push' } : { action: 'push', target }, chat);
  else if (sub === 'discard' || sub === 'defer') await decideClearance(item.id, { action: sub }, chat);
  else throw new GolemError('INVALID_ARGUMENT', `unknown /clearance command "${sub}" (list, review, diff, push, discard, defer)`);
}

/** Carries out a decision on an item and shows how it went (a refusal as a failed result, with its reason). */
async function decideClearance(id: string, decision: ClearanceDecision, chat: ChatContext): Promise<void> {
  const { clearance, ui, ws } = chat;
  const item = clearance.get(id);
  try {
    const decided =
      decision.action === 'push'
        ? await clearance.push(item.id, decision.target === undefined ? {} : { target: decision.target })
        : await clearance[decision.action](item.id);
    const message = decided.outcome ?? (decision.action === 'defer' ? 'Deferred.' : 'Discarded.');
    ui.displayClearanceResult({ item: toClearanceItem(decided), decision, ok: true, message });
  } catch (error) {
    const e = toGolemError(error);
    ui.displayClearanceResult({ item: toClearanceItem(item), decision, ok: false, message: `[${e.code}] ${e.message}` });
  }
  ui.clearanceChanged(clearanceItems(ws.manager.workspace(), { sessionId: chat.sessionId() }).map(toClearanceItem));
}

/** Each item waiting for clearance in turn: its diff, then the user's decision (seed 003's getClearanceDecision). */
async function reviewClearance(chat: ChatContext): Promise<void> {
  const { clearance, ui } = chat;
  const items = clearance.list({ sessionId: chat.sessionId() });
  if (items.length === 0) chat.say('Nothing waits for clearance.');
  for (const item of items) {
    await ui.displayDiff({ title: item.description, diff: await clearance.diff(item.id) });
    await decideClearance(item.id, await ui.getClearanceDecision(toClearanceItem(item)), chat);
  }
}

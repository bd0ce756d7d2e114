/**
 * Scripted policies for the web tasks: test doubles of a model that read the page the way
 * a model would (the goal, the last result and the latest GET_DOM snapshot in the prompt)
 * and answer with one structured response per step. They know each task's query sentence
 * and nothing else: every ref comes from a snapshot, so the executor, the snapshots, the
 * protocol and the loop must all work for a task to pass.
 */
import type { Prompt } from '../../src/index.js';
import { scriptedModel, type ScriptedModel } from '../../src/test/index.js';

/** What the policy sees of the prompt. */
export interface Observation {
  goal: string;
  /** The last user turn (the previous command's result), '' on the first step. */
  last: string;
  /** The newest snapshot text the model has been shown, after the lines added or changed since (newest first). */
  snapshot: string | undefined;
}

/** One step of a plan: a command whose selector (and text) come from the snapshot at the time. */
interface Step {
  action: 'OPEN_PAGE' | 'CLICK_ELEMENT' | 'INPUT_TEXT' | 'SAVE_VARIABLE' | 'GET_DOM';
  /** The element, found in the snapshot; undefined while it is not on the page yet. */
  target?: (snapshot: string) => string | undefined;
  text?: string | ((snapshot: string) => string | undefined) | undefined;
  variableName?: string;
  url?: string;
}

type Planner = (query: string, snapshot: string) => Step[] | undefined;

const text = (prompt: Prompt, index: number): string => (prompt.messages.at(index)?.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');

export function observe(prompt: Prompt): Observation {
  const users = prompt.messages.filter((m) => m.role === 'user');
  const texts = users.map((m) => m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n'));
  const at = texts.findLastIndex((t) => /^Snapshot s\d+:/m.test(t));
  // Results after it carry what changed since (+ added, ~ changed, - removed): read newest first, before the snapshot.
  const changes = texts
    .slice(at + 1)
    .reverse()
    .flatMap((t) => [...t.matchAll(/^[+~] (.*)$/gm)].map((m) => (m[1] as string).replace(/ \(in [^\n]*\)$/, '')));
  const snapshot = at < 0 ? undefined : [...changes, texts[at] as string].join('\n');
  return { goal: texts[0] ?? '', last: users.length > 1 ? text(prompt, -1) : '', snapshot };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `ref=e7` of the first interactive element with this role and name. */
export function ref(snapshot: string, role: string, name: string): string | undefined {
  const m = new RegExp(`^\\s*${role} ${escape(JSON.stringify(name))}[^\\n]*?\\[ref=((?:f\\d+)?e\\d+)\\]`, 'm').exec(snapshot);
  return m === null ? undefined : `ref=${m[1]}`;
}

const isChecked = (snapshot: string, role: string, name: string): boolean =>
  new RegExp(`^\\s*${role} ${escape(JSON.stringify(name))} \\[checked\\]`, 'm').test(snapshot);

const quoted = (query: string): string[] => [...query.matchAll(/"([^"]*)"/g)].map((m) => m[1] as string);

const click = (role: string, name: string): Step => ({ action: 'CLICK_ELEMENT', target: (s) => ref(s, role, name) });
const type = (role: string, name: string, value: Step['text']): Step => ({ action: 'INPUT_TEXT', target: (s) => ref(s, role, name), text: value });

/** Each task's plan, from its query sentence. */
export const PLANS: Record<string, Planner> = {
  login: (q) => {
    const [user, password] = quoted(q);
    return user === undefined || password === undefined
      ? undefined
      : [type('textbox', 'Username', user), type('textbox', 'Password', password), click('button', 'Log in')];
  },
  form: (q) => {
    const [name, email, age, comments] = quoted(q);
    if (comments === undefined) return undefined;
    return [
      type('textbox', 'Full name', name),
      type('textbox', 'Email', email),
      type('spinbutton', 'Age', age),
      type('textbox', 'Comments', comments),
      click('button', 'Submit'),
    ];
  },
  'select-radio': (q) => {
    const [country, shipping] = quoted(q);
    return country === undefined || shipping === undefined
      ? undefined
      : [type('combobox', 'Country', country), click('radio', shipping), click('button', 'Submit')];
  },
  checkboxes: (q, snapshot) => {
    const wanted = new Set(quoted(q));
    const boxes = [...snapshot.matchAll(/^\s*checkbox ("(?:[^"\\]|\\.)*")/gm)].map((m) => JSON.parse(m[1] as string) as string);
    const toggle = boxes.filter((b) => wanted.has(b) !== isChecked(snapshot, 'checkbox', b));
    return [...toggle.map((b) => click('checkbox', b)), click('button', 'Submit')];
  },
  'table-lookup': (q) => {
    const [product, variable] = quoted(q);
    if (product === undefined || variable === undefined) return undefined;
    // The price is the cell after the product's, in the same row (a table's rows are drawn a line each: cells with their refs).
    const priceCell = (s: string) => new RegExp(`^\\s*${escape(product)} \\[ref=[^\\]]+\\] \\| [^|\\n]* \\[ref=([^\\]]+)\\]`, 'm').exec(s)?.[1];
    return [
      { action: 'SAVE_VARIABLE', target: (s) => (priceCell(s) === undefined ? undefined : `ref=${priceCell(s)}`), variableName: variable },
      type('textbox', 'Price', `\${${variable}}`),
      click('button', 'Check'),
    ];
  },
  'multi-page': (q) => {
    const m = /^Order (\d+) of "([^"]+)"/.exec(q);
    if (m === null) return undefined;
    return [click('link', m[2] as string), type('spinbutton', 'Quantity', m[1]), click('button', 'Continue'), click('button', 'Confirm order')];
  },
  'late-content': () => [
    click('button', 'Start'),
    click('button', 'Reveal code'),
    // The code is read with a CSS selector and typed from the variable: it never needs to be copied by hand.
    { action: 'SAVE_VARIABLE', target: () => '#code', variableName: 'code' },
    type('textbox', 'Code', '${code}'),
    click('button', 'Submit'),
  ],
  modal: (q) => {
    const [button, email] = quoted(q);
    return button === undefined || email === undefined ? undefined : [click('button', button), type('textbox', 'Email', email), click('button', 'Subscribe')];
  },
};

/** The query sentence: the text under the page's first heading. */
export function queryOf(snapshot: string): string | undefined {
  const value = /^ {2}h1 "[^\n]*\n {2}(.*)$/m.exec(snapshot)?.[1];
  // Text that starts with a quote is a JSON string in the snapshot, escapes and all.
  return value?.startsWith('"') === true ? (JSON.parse(value) as string) : value;
}

export interface PolicyOptions {
  /** Before the plan's step with this index, aim at a ref of a snapshot of the first page (to show stale refs are caught). */
  staleRefAt?: number;
}

/** A scripted model that solves one task by its plan, a step per call. */
export function taskPolicy(task: string, options: PolicyOptions = {}): ScriptedModel {
  const planner = PLANS[task];
  if (planner === undefined) throw new Error(`no plan for the task "${task}"`);
  let plan: Step[] | undefined;
  let next = 0;
  let firstSnapshot: string | undefined;
  let staleShown = false;
  return scriptedModel(async (prompt) => {
    const { goal, last, snapshot } = observe(prompt);
    if (snapshot === undefined) {
      const url = /https?:\/\/\S+/.exec(goal)?.[0];
      if (url === undefined) return answer('ABORT', 'The goal gives no address to open.');
      return answer('PROCEED', 'Open the task page.', { action: 'OPEN_PAGE', parameters: { url } });
    }
    firstSnapshot ??= snapshot;
    if (/^Result of \w+: failed\n\[SNAPSHOT_STALE\]/m.test(last)) {
      next--; // the command did not run: take a fresh snapshot and do it again
      return answer('RETRY', 'The snapshot was stale; take a fresh one.', { action: 'GET_DOM', parameters: {} });
    }
    if (/^Result of \w+: failed/m.test(last)) return answer('ABORT', `The last command failed: ${last.split('\n')[1] ?? ''}`);
    if (plan === undefined) {
      const query = queryOf(snapshot);
      plan = query === undefined ? undefined : planner(query, snapshot);
      if (plan === undefined) return answer('ABORT', `I cannot read the task on this page.`);
    }
    const step = plan[next];
    if (step === undefined) {
      const reward = /status[^:\n]*: "?(Reward: [^"\n]*)/.exec(snapshot)?.[1];
      if (reward === undefined) return answer('PROCEED', 'Look at the page after submitting.', { action: 'GET_DOM', parameters: {} });
      return answer(reward.startsWith('Reward: 1') ? 'PROCEED' : 'ABORT', `The page says ${reward}`);
    }
    let target = step.target?.(snapshot);
    if (step.target !== undefined && target === undefined) {
      // Not on the page yet (late content): look again, after the pause a model's answer takes anyway.
      await new Promise((resolve) => setTimeout(resolve, 250));
      return answer('PROCEED', 'Wait for the element to appear.', { action: 'GET_DOM', parameters: {} });
    }
    if (options.staleRefAt === next && !staleShown && firstSnapshot !== snapshot) {
      staleShown = true;
      target = /\[ref=(e\d+)\]/.exec(firstSnapshot)?.[1];
      target = target === undefined ? undefined : `ref=${target}`;
    }
    next++;
    const value = typeof step.text === 'function' ? step.text(snapshot) : step.text;
    const parameters: Record<string, string> = {
      ...(step.url !== undefined && { url: step.url }),
      ...(target !== undefined && { selector: target }),
      ...(value !== undefined && { text: value }),
      ...(step.variableName !== undefined && { variableName: step.variableName }),
    };
    return answer('PROCEED', `Step ${next} of ${plan.length}.`, { action: step.action, parameters });
  });
}

function answer(action: 'PROCEED' | 'RETRY' | 'ABORT', message: string, command?: { action: string; parameters: Record<string, string> }): { text: string } {
  const response = {
    decision: { action, message },
    reasoning: {
      analysis: 'The page and the last result, as shown.',
      rationale: message,
      expectedOutcome: command === undefined ? 'The task ends.' : `${command.action} succeeds.`,
    },
    ...(command !== undefined && { command }),
  };
  return { text: JSON.stringify(response) };
}

/**
 * Plans in the terminal (issue 37, tasks and plans): the checklist kept above the progress
 * line while a run goes (each plan's title, then its steps with their marks; a sub-worker's
 * plan nested under its parent's step), and the question a proposed plan asks: accept, edit
 * or decline, with one key, as an approval is answered.
 */
import type { ApprovalRequest, ApprovalResult } from '../agent/ui-adapter.js';
import type { TaskRecord } from '../agent/task-records.js';
import { sanitize, type Style } from './ansi.js';
import type { Read } from './line-reader.js';
import type { Screen } from './screen.js';
import { cutTo } from './text-width.js';

/** What the checklist shows of a task. */
export type PlanTask = Pick<TaskRecord, 'id' | 'title' | 'steps' | 'status' | 'parentTask'>;

/** A plan's edits as the user typed them: its steps, one a line. */
export interface PlanEdits {
  title?: string;
  steps: string[];
}

/** The question a proposed plan asks; the first letter of each word answers it. */
export const PLAN_PROMPT = '[a]ccept / [e]dit / [d]ecline: ';
export const PLAN_WORDS = ['accept', 'edit', 'decline'] as const;

/** The most lines the checklist takes (a long plan shows its steps around the one in progress). */
const MAX_LINES = 12;

const MARK: Record<PlanTask['steps'][number]['status'], [string, Style | undefined]> = {
  done: ['✓', 'green'],
  in_progress: ['●', 'cyan'],
  pending: ['○', 'dim'],
  skipped: ['–', 'dim'],
};

/**
 * The checklist of `tasks`: each plan not nested in another, its title then its steps, and
 * under a step the plans of the sub-workers started at it. At most `MAX_LINES` lines, each
 * cut to the width.
 */
export function planLines(screen: Screen, tasks: readonly PlanTask[]): string[] {
  const width = screen.width() - 1;
  const ids = new Set(tasks.map((t) => t.id));
  const lines: string[] = [];
  const draw = (task: PlanTask, indent: string) => {
    const proposed = task.status === 'proposed' ? ' (proposed)' : '';
    lines.push(screen.paint('bold', cutTo(`${indent}Plan: ${sanitize(task.title)}${proposed}`, width)));
    task.steps.forEach((step, i) => {
      const [mark, style] = MARK[step.status];
      const text = cutTo(`${indent}  ${mark} ${i + 1}. ${sanitize(step.text).split('\n')[0] ?? ''}`, width);
      lines.push(screen.paint(style, text));
      for (const child of tasks) if (child.parentTask?.taskId === task.id && child.parentTask.step === i) draw(child, `${indent}    `);
    });
  };
  for (const task of tasks) if (task.parentTask === null || !ids.has(task.parentTask.taskId)) draw(task, '');
  return lines.length <= MAX_LINES
    ? lines
    : [...lines.slice(0, MAX_LINES - 1), screen.paint('dim', cutTo(`  … ${lines.length - MAX_LINES + 1} more lines`, width))];
}

/** The title and steps a plan approval's details carry (`{ taskId, title, steps }`), if they are there. */
export function proposedPlan(details: unknown): { taskId: string; title: string; steps: string[] } | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const { taskId, title, steps } = details as { taskId?: unknown; title?: unknown; steps?: unknown };
  if (typeof taskId !== 'string' || typeof title !== 'string' || !Array.isArray(steps)) return undefined;
  return {
    taskId,
    title,
    steps: steps.map((s) => (typeof s === 'string' ? s : typeof s === 'object' && s !== null ? String((s as { text?: unknown }).text) : String(s))),
  };
}

/**
 * Asks the user about a proposed plan: accept (a), edit (e: the steps typed again, one a line,
 * an empty line ends them; kept through `edit`, then accepted), or decline (d, with a reason).
 */
export async function askPlan(
  screen: Screen,
  read: (prompt: string, words?: readonly string[]) => Promise<Read>,
  request: ApprovalRequest,
  edit: ((taskId: string, edits: PlanEdits) => Promise<void>) | undefined,
): Promise<ApprovalResult> {
  const plan = proposedPlan(request.details);
  screen.write(`${screen.paint('yellow', screen.paint('bold', '[Plan proposed]'))} ${sanitize(plan?.title ?? request.description)}\n`);
  for (const [i, step] of (plan?.steps ?? []).entries()) screen.write(`  ${screen.paint('dim', '○')} ${i + 1}. ${sanitize(step)}\n`);
  screen.write('\n');
  for (;;) {
    const answer = await read(PLAN_PROMPT, PLAN_WORDS);
    if (answer.kind === 'end') return { approved: false, reason: 'no answer (input closed)' };
    if (answer.kind === 'interrupt') return { approved: false, reason: 'interrupted by the user' };
    const key = answer.text.trim().toLowerCase()[0];
    if (key === 'a') return { approved: true };
    if (key === 'd') {
      const reason = await read('Reason (optional): ');
      const text = reason.kind === 'line' ? reason.text.trim() : '';
      return text === '' ? { approved: false } : { approved: false, reason: text };
    }
    if (key === 'e' && plan !== undefined && edit !== undefined) {
      screen.write('Type the steps, one a line; an empty line ends them (none: keep these).\n');
      const steps: string[] = [];
      for (;;) {
        const line = await read(`${steps.length + 1}. `);
        if (line.kind !== 'line' || line.text.trim() === '') break;
        steps.push(line.text.trim());
      }
      if (steps.length > 0) await edit(plan.taskId, { steps });
      return { approved: true };
    }
    screen.write(edit === undefined ? 'Please answer a or d.\n' : 'Please answer a, e or d.\n');
  }
}

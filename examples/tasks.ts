/**
 * Tasks and plans, offline: `npx tsx examples/tasks.ts [dir]`.
 *
 * The agent (a scripted model here) proposes a plan with propose_plan. propose_plan is
 * supervised by default, so the user reviews it: here they accept it with one step changed,
 * as the page or the terminal would through `ws.tasks.accept(id, edits)`. The agent marks its
 * steps with update_plan as it goes. Then a new session on the same topic reads, in its prompt,
 * what is left of it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkspace, type TaskRecord } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'golem-tasks-'));
const ws = await createWorkspace({ dir });
const checklist = (task: TaskRecord) =>
  task.steps.map((s, i) => `  ${s.status === 'done' ? '[x]' : s.status === 'in_progress' ? '[~]' : '[ ]'} ${i + 1}. ${s.text}`).join('\n');

const chat = await ws.sessions.create({ label: 'invoices', topics: ['billing'] });
const model = scriptedModel([
  { toolCalls: [{ name: 'propose_plan', input: { title: 'Fix invoice rounding', steps: ['Find the rounding code', 'Fix it', 'Run the tests'] } }] },
  { toolCalls: [{ name: 'update_plan', input: { step: 1, status: 'done' } }] },
  { toolCalls: [{ name: 'update_plan', input: { step: 2, status: 'in_progress' } }] },
  { text: 'The rounding code is in invoice.ts; I am fixing it now.' },
]);
const worker = ws.worker({
  session: chat,
  model,
  plans: true,
  // The user's review: accept, with the last step made more precise.
  requestApproval: async (request) => {
    const { taskId } = request.details as { taskId: string };
    console.log(`asked: ${request.description.split('\n')[0]}`);
    await ws.tasks.accept(taskId, { steps: ['Find the rounding code', 'Fix it', 'Run the billing tests'] });
    return { approved: true };
  },
});
await worker.run('Invoices round 0.005 down; fix it.');

const [task] = ws.tasks.list({ topic: 'billing' });
if (task === undefined) throw new Error('no task was proposed');
console.log(`task "${task.title}" is ${task.status}:\n${checklist(task)}`);
await ws.close();

// Later, another session on the topic sees what is left.
const again = await createWorkspace({ dir });
const next = await again.sessions.create({ label: 'invoices, day 2', topics: ['billing'] });
const reader = scriptedModel([{ text: 'Steps 2 and 3 of "Fix invoice rounding" are left.' }]);
await again.worker({ session: next, model: reader }).run('What is left to do on billing?');
const system = reader.calls[0]?.system ?? '';
console.log(system.slice(system.indexOf('## Open tasks')).split('\n').slice(0, 7).join('\n'));
await again.close();

import { createContext } from 'preact';
import { useContext, useState } from 'preact/hooks';
import type { TaskDecisionBody, TaskView } from '../../../src/serve/api-types.js';

/** The open session's plans, and how the user decides a proposed one (POST /api/tasks/:id). */
export interface PlansServices {
  tasks: readonly TaskView[];
  decide: (taskId: string, body: TaskDecisionBody) => Promise<void>;
}

export const PlansContext = createContext<PlansServices>({ tasks: [], decide: async () => undefined });

const MARK: Record<TaskView['steps'][number]['status'], { mark: string; label: string }> = {
  done: { mark: '✓', label: 'done' },
  in_progress: { mark: '●', label: 'in progress' },
  pending: { mark: '○', label: 'to do' },
  skipped: { mark: '–', label: 'skipped' },
};

/** A plan as a checklist: its title and status, its steps with their marks, the plans of sub-workers under the step they started at. */
export function PlanChecklist({ task, tasks }: { task: TaskView; tasks: readonly TaskView[] }) {
  return (
    <div class={`plan status-${task.status}`} data-testid="plan" data-task-id={task.id} data-status={task.status}>
      <div class="plan-head">
        <span class="plan-title">{task.title}</span>
        <span class={`tag plan-status status-${task.status}`}>{task.status}</span>
      </div>
      <ol class="plan-steps">
        {task.steps.map((step, i) => (
          <li key={i} class={`plan-step ${step.status}`} data-testid="plan-step" data-status={step.status}>
            <span class="plan-mark" role="img" aria-label={MARK[step.status].label}>
              {MARK[step.status].mark}
            </span>
            <span class="plan-step-text">{step.text}</span>
            {tasks
              .filter((t) => t.parentTask?.taskId === task.id && t.parentTask.step === i)
              .map((child) => (
                <PlanChecklist key={child.id} task={child} tasks={tasks} />
              ))}
          </li>
        ))}
      </ol>
      {task.status === 'declined' && task.reason !== null && <p class="muted small">Declined: {task.reason}</p>}
      {task.status === 'proposed' && <PlanDecision task={task} />}
    </div>
  );
}

/** Accept, edit (the steps, one a line, then accept) or decline a proposed plan. */
function PlanDecision({ task }: { task: TaskView }) {
  const { decide } = useContext(PlansContext);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const act = async (body: TaskDecisionBody) => {
    setBusy(true);
    try {
      await decide(task.id, body);
    } finally {
      setBusy(false);
    }
  };
  if (editing) {
    const steps = draft
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    return (
      <div class="plan-edit">
        <label class="small" for={`plan-edit-${task.id}`}>
          The steps, one a line
        </label>
        <textarea
          id={`plan-edit-${task.id}`}
          data-testid="plan-edit-steps"
          rows={Math.min(10, task.steps.length + 2)}
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
        />
        <div class="plan-actions">
          <button type="button" class="btn btn-secondary btn-small" onClick={() => setEditing(false)} disabled={busy}>
            Cancel
          </button>
          <button
            type="button"
            class="btn btn-primary btn-small"
            data-testid="plan-save"
            disabled={busy || steps.length === 0}
            onClick={() => void act({ action: 'accept', steps })}
          >
            Accept as edited
          </button>
        </div>
      </div>
    );
  }
  return (
    <div class="plan-actions">
      <button type="button" class="btn btn-danger-outline btn-small" data-testid="plan-decline" disabled={busy} onClick={() => void act({ action: 'decline' })}>
        Decline
      </button>
      <button
        type="button"
        class="btn btn-secondary btn-small"
        data-testid="plan-edit"
        disabled={busy}
        onClick={() => {
          setDraft(task.steps.map((s) => s.text).join('\n'));
          setEditing(true);
        }}
      >
        Edit
      </button>
      <button type="button" class="btn btn-primary btn-small" data-testid="plan-accept" disabled={busy} onClick={() => void act({ action: 'accept' })}>
        Accept
      </button>
    </div>
  );
}

/** A plan a turn proposed (its `task:proposal` block), drawn as the task is now. */
export function PlanProposal({ taskId, title }: { taskId: string; title: string }) {
  const { tasks } = useContext(PlansContext);
  const task = tasks.find((t) => t.id === taskId);
  return (
    <section class="plan-proposal" data-testid="plan-proposal" aria-label={`Plan: ${title}`}>
      {task === undefined ? <p class="muted small">Plan: {title}</p> : <PlanChecklist task={task} tasks={tasks} />}
    </section>
  );
}

/** The side panel's plans: each plan not nested in another, newest first, live as its steps change. */
export function TasksPanel() {
  const { tasks } = useContext(PlansContext);
  const ids = new Set(tasks.map((t) => t.id));
  const top = tasks.filter((t) => t.parentTask === null || !ids.has(t.parentTask.taskId)).reverse();
  return (
    <section class="workers plans" data-testid="tasks-panel" aria-labelledby="plans-heading">
      <div class="section-head">
        <h2 id="plans-heading">Plans</h2>
      </div>
      {top.length === 0 ? <p class="muted small">No plan yet.</p> : top.map((task) => <PlanChecklist key={task.id} task={task} tasks={tasks} />)}
    </section>
  );
}

import type { WorkerView } from '../../../src/serve/api-types.js';

/** A `golem.progress` event's value: it updates (or adds) a node while the worker runs. */
export interface ProgressValue {
  id: string;
  description: string;
  depth: number;
  status: 'waiting' | 'running' | 'complete' | 'failed';
}

type Status = WorkerView['status'] | ProgressValue['status'];

interface Node {
  id: string;
  task: string;
  depth: number;
  status: Status;
  children: Node[];
}

const MARKS: Record<Status, string> = { running: '●', done: '✓', complete: '✓', question: '?', failed: '✗', waiting: '○' };

interface Props {
  sessionId: string;
  label: string;
  running: boolean;
  workers: WorkerView[];
  progress: Record<string, ProgressValue>;
}

/** The open session's workers, nested by parent; live progress overrides what the last read said. */
export function WorkerTree({ sessionId, label, running, workers, progress }: Props) {
  const nodes = new Map<string, Node>();
  const order: { node: Node; parent: string }[] = [];
  for (const w of workers) {
    const p = progress[w.id];
    const node: Node = { id: w.id, task: w.task, depth: w.depth, status: p?.status ?? w.status, children: [] };
    nodes.set(w.id, node);
    order.push({ node, parent: w.parentSessionId });
  }
  // Progress of workers the last read did not know yet (while the session runs): under the root until the next read places them.
  for (const p of Object.values(progress)) {
    if (!running || nodes.has(p.id) || p.id === sessionId) continue;
    const node: Node = { id: p.id, task: p.description, depth: p.depth, status: p.status, children: [] };
    nodes.set(p.id, node);
    order.push({ node, parent: sessionId });
  }
  const roots: Node[] = [];
  for (const { node, parent } of order) {
    const owner = nodes.get(parent);
    if (owner !== undefined && owner !== node) owner.children.push(node);
    else roots.push(node);
  }
  return (
    <section class="workers">
      <div class="section-head">
        <h2>Workers</h2>
      </div>
      <div class="worker-tree" data-testid="worker-tree" role="tree">
        <div class="worker-root" data-status={running ? 'running' : 'done'}>
          <span class={`mark ${running ? 'running' : 'done'}`}>{running ? MARKS.running : '◆'}</span>
          <span class="worker-task">{label}</span>
        </div>
        {roots.length === 0 ? (
          <p class="muted small tree-empty">No sub-workers.</p>
        ) : (
          <ul role="group">
            {roots.map((n) => (
              <WorkerNode key={n.id} node={n} />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function WorkerNode({ node }: { node: Node }) {
  return (
    <li role="treeitem">
      <div class="worker-node" data-testid="worker-node" data-worker-id={node.id} data-depth={node.depth} data-status={node.status} title={node.task}>
        <span class={`mark ${node.status}`} aria-label={node.status}>
          {MARKS[node.status]}
        </span>
        <span class="worker-task">{node.task}</span>
      </div>
      {node.children.length > 0 && (
        <ul role="group">
          {node.children.map((c) => (
            <WorkerNode key={c.id} node={c} />
          ))}
        </ul>
      )}
    </li>
  );
}

import { useEffect, useState } from 'preact/hooks';
import type { SessionDetail, WorkerState, WorkerView } from '../../../src/serve/api-types.js';

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
  /** What it does now (from its live state), and since when / until when. */
  activity: string | null;
  startedAt: number | null;
  endedAt: number | null;
  children: Node[];
}

const MARKS: Record<Status, string> = { running: '●', done: '✓', complete: '✓', question: '?', failed: '✗', waiting: '○' };

interface Props {
  sessionId: string;
  label: string;
  running: boolean;
  workers: WorkerView[];
  progress: Record<string, ProgressValue>;
  /** The sub-workers' live states (`golem.worker` events), by id. */
  live: Record<string, WorkerState>;
  /** Reads a worker's own session (its transcript), for its details. */
  loadSession: (id: string) => Promise<SessionDetail>;
}

/**
 * The open session's workers, nested by parent: each with its live state (what it does now,
 * how long it has run), its children folding away, and its own conversation on demand.
 */
export function WorkerTree({ sessionId, label, running, workers, progress, live, loadSession }: Props) {
  const now = useClock(Object.values(live).some((w) => w.status === 'running'));
  const nodes = new Map<string, Node>();
  const order: { node: Node; parent: string }[] = [];
  const add = (id: string, task: string, depth: number, status: Status, parent: string) => {
    const l = live[id];
    const node: Node = {
      id,
      task,
      depth,
      status: l?.status ?? status,
      activity: l?.activity ?? null,
      startedAt: l?.startedAt ?? null,
      endedAt: l?.endedAt ?? null,
      children: [],
    };
    nodes.set(id, node);
    order.push({ node, parent });
  };
  for (const w of workers) add(w.id, w.task, w.depth, progress[w.id]?.status ?? w.status, w.parentSessionId);
  // Workers the last read did not know yet (while the session runs): placed by their live state, else under the root.
  for (const l of Object.values(live)) if (!nodes.has(l.id) && running) add(l.id, l.task, l.depth, l.status, l.parentId ?? sessionId);
  for (const p of Object.values(progress)) if (!nodes.has(p.id) && running && p.id !== sessionId) add(p.id, p.description, p.depth, p.status, sessionId);
  const roots: Node[] = [];
  for (const { node, parent } of order) {
    const owner = nodes.get(parent);
    if (owner !== undefined && owner !== node) owner.children.push(node);
    else roots.push(node);
  }
  const side = roots.filter((n) => n.status === 'running').length;
  return (
    <section class="workers">
      <div class="section-head">
        <h2>Workers</h2>
        {side > 1 && <span class="muted small">{side} side by side</span>}
      </div>
      {/* Nested lists with disclosure buttons: a tree role would promise arrow-key navigation. */}
      <ul class="worker-tree" data-testid="worker-tree" aria-label="Workers">
        <li>
          <div class="worker-root" data-status={running ? 'running' : 'done'}>
            <span class={`mark ${running ? 'running' : 'done'}`} aria-hidden="true">
              {running ? MARKS.running : '◆'}
            </span>
            <span class="worker-task">
              {label}
              <span class="sr-only">, {running ? 'running' : 'idle'}</span>
            </span>
          </div>
          {roots.length === 0 ? (
            <p class="muted small tree-empty">No sub-workers.</p>
          ) : (
            <ul>
              {roots.map((n) => (
                <WorkerNode key={n.id} node={n} now={now} loadSession={loadSession} live={live[n.id]} liveOf={(id) => live[id]} />
              ))}
            </ul>
          )}
        </li>
      </ul>
    </section>
  );
}

interface NodeProps {
  node: Node;
  now: number;
  live: WorkerState | undefined;
  liveOf: (id: string) => WorkerState | undefined;
  loadSession: Props['loadSession'];
}

function WorkerNode({ node, now, live, liveOf, loadSession }: NodeProps) {
  const [folded, setFolded] = useState(false);
  const [open, setOpen] = useState(false);
  const hasChildren = node.children.length > 0;
  const elapsed = node.startedAt === null ? null : seconds((node.endedAt ?? now) - node.startedAt);
  const detailsId = `worker-details-${node.id}`;
  const childrenId = `worker-children-${node.id}`;
  return (
    <li>
      <div class="worker-node" data-testid="worker-node" data-worker-id={node.id} data-depth={node.depth} data-status={node.status} title={node.task}>
        {hasChildren ? (
          <button
            type="button"
            class="twisty"
            aria-expanded={!folded}
            aria-controls={childrenId}
            aria-label={folded ? `Show the workers of ${node.task}` : `Hide the workers of ${node.task}`}
            onClick={() => setFolded(!folded)}
          >
            <span aria-hidden="true">{folded ? '▸' : '▾'}</span>
          </button>
        ) : (
          <span class="twisty" aria-hidden="true" />
        )}
        <span class={`mark ${node.status}`} aria-hidden="true">
          {MARKS[node.status]}
        </span>
        <span class="worker-name">
          <button type="button" class="worker-task worker-open" aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen(!open)}>
            {node.task}
          </button>
          <span class="sr-only">, {node.status}</span>
        </span>
        {elapsed !== null && <span class="worker-elapsed muted small">{elapsed}</span>}
      </div>
      {node.activity !== null && node.status === 'running' && (
        <div class="worker-activity muted small" data-testid="worker-activity">
          {node.activity}
        </div>
      )}
      {open && <WorkerDetails id={node.id} domId={detailsId} version={`${live?.activity ?? ''}:${live?.status ?? node.status}`} loadSession={loadSession} />}
      {hasChildren && !folded && (
        <ul id={childrenId}>
          {node.children.map((c) => (
            <WorkerNode key={c.id} node={c} now={now} live={liveOf(c.id)} liveOf={liveOf} loadSession={loadSession} />
          ))}
        </ul>
      )}
    </li>
  );
}

/** A worker's own conversation: its task, what it said and the actions it ran; read again as its state changes. */
function WorkerDetails({ id, domId, version, loadSession }: { id: string; domId: string; version: string; loadSession: Props['loadSession'] }) {
  const [detail, setDetail] = useState<SessionDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    loadSession(id).then(
      (d) => current && (setDetail(d), setError(null)),
      (e: unknown) => current && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      current = false;
    };
  }, [id, version, loadSession]);
  return (
    <div class="worker-details" id={domId} data-testid="worker-details">
      {error !== null && <p class="small error-text">{error}</p>}
      {detail === null && error === null && <p class="muted small">Loading…</p>}
      {detail !== null && detail.turns.length === 0 && <p class="muted small">Nothing yet.</p>}
      {detail !== null && (
        <ol class="worker-turns">
          {detail.turns.flatMap((t) => [
            ...(t.text.trim() === ''
              ? []
              : [
                  <li key={`${t.id}:text`} class={`worker-turn ${t.role}`}>
                    {clip(t.text)}
                  </li>,
                ]),
            ...t.toolCalls.map((c) => {
              const result = detail.turns.flatMap((r) => r.toolResults).find((r) => r.callId === c.callId);
              return (
                <li key={`${t.id}:${c.callId}`} class="worker-turn call">
                  <code>{c.name}</code> {result === undefined ? '…' : result.isError ? '✗' : '✓'}
                </li>
              );
            }),
          ])}
        </ol>
      )}
    </div>
  );
}

/** Now, ticking each second while `running`. */
function useClock(running: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}

function seconds(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  return s < 60 ? `${s.toFixed(s < 10 ? 1 : 0)}s` : `${Math.floor(s / 60)}m ${Math.round(s % 60)}s`;
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 240 ? `${line.slice(0, 239)}…` : line;
}

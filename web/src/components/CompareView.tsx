/**
 * The Compare view (issue 37): two branches side by side (a what-if fork and the session it
 * came from, or any two sessions), from `GET /api/sessions/:a/diff/:b`. The turns each has
 * since their common ancestor in two columns (stacked on a phone), the environment values that
 * differ, the UI instances that differ as RFC 6902 ops from the first's to the second's (one a
 * line), and the clearance items waiting on each side. A modal dialog over the page.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ClearanceView, MergeBody, SessionComparison, SessionSummary, TurnView } from '../../../src/serve/api-types.js';
import { plainText } from '../markdown.js';
import { Markdown } from './Markdown.js';
import './compare.css';

interface Props {
  sessions: SessionSummary[];
  /** The session shown first (the open one, when there is one). */
  first: string | null;
  compare: (a: string, b: string) => Promise<SessionComparison>;
  /** Brings `body.from` into `into`; the server's refusal as an ApiError. */
  merge: (into: string, body: MergeBody) => Promise<void>;
  /** The server has a model to write a merge's summary. */
  canSummarize: boolean;
  onClose: () => void;
}

const nameOf = (sessions: SessionSummary[], id: string) => plainText(sessions.find((s) => s.id === id)?.label ?? 'Untitled');

/** What to set beside `a` first: its most recently updated fork (the list is newest first), else the session it was forked from, else the newest other. */
export function partnerOf(sessions: SessionSummary[], a: string): string {
  const fork = sessions.find((s) => s.forkedFrom === a);
  const parent = sessions.find((s) => s.id === sessions.find((x) => x.id === a)?.forkedFrom);
  return (fork ?? parent ?? sessions.find((s) => s.id !== a))?.id ?? '';
}

export function CompareView({ sessions, first, compare, merge, canSummarize, onClose }: Props) {
  const [a, setA] = useState<string>(first ?? sessions[0]?.id ?? '');
  const [b, setB] = useState<string>(() => partnerOf(sessions, first ?? sessions[0]?.id ?? ''));
  const [result, setResult] = useState<SessionComparison | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Bumped after a merge: the comparison is read again.
  const [round, setRound] = useState(0);
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const d = dialog.current;
    if (d !== null && !d.open) d.showModal();
  }, []);

  // Read again when either side changes (a turn added, a merge): what is shown is what a merge would bring.
  const stamp = sessions
    .filter((s) => s.id === a || s.id === b)
    .map((s) => `${s.id}:${s.updatedAt}:${s.turns}`)
    .join();
  const pair = useRef('');
  useEffect(() => {
    // Another pair: the last one's result goes; the same pair read again keeps it meanwhile (and the focus in it).
    if (pair.current !== `${a}|${b}`) setResult(null);
    pair.current = `${a}|${b}`;
    setError(null);
    if (a === '' || b === '' || a === b) return;
    let live = true;
    compare(a, b).then(
      (r) => live && setResult(r),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [a, b, compare, round, stamp]);
  // A side deleted meanwhile is replaced, as when the view opened.
  useEffect(() => {
    if (sessions.length === 0) return;
    if (!sessions.some((s) => s.id === a)) setA(sessions[0]?.id ?? '');
    else if (!sessions.some((s) => s.id === b)) setB(partnerOf(sessions, a));
  }, [sessions, a, b]);

  const chooseBranch = (side: 'a' | 'b', id: string) => {
    if (side === 'a') {
      setA(id);
      if (id === b) setB(partnerOf(sessions, id));
    } else setB(id);
  };
  const aName = nameOf(sessions, a);
  const bName = nameOf(sessions, b);

  return (
    <dialog ref={dialog} class="compare" aria-labelledby="compare-title" data-testid="compare-view" onClose={onClose}>
      <div class="compare-head">
        <h2 id="compare-title">Compare branches</h2>
        <button type="button" class="btn btn-secondary btn-small" data-testid="compare-close" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
      {sessions.length < 2 ? (
        <p class="muted">Fork a session to have two branches to compare.</p>
      ) : (
        <div class="compare-pick">
          <SessionSelect label="First branch" testId="compare-a" sessions={sessions} value={a} onPick={(id) => chooseBranch('a', id)} />
          <button
            type="button"
            class="btn btn-secondary btn-small"
            data-testid="compare-swap"
            aria-label="Swap the two branches"
            onClick={() => {
              setA(b);
              setB(a);
            }}
          >
            ⇄
          </button>
          <SessionSelect
            label="second branch"
            testId="compare-b"
            sessions={sessions.filter((s) => s.id !== a)}
            value={b}
            onPick={(id) => chooseBranch('b', id)}
          />
        </div>
      )}
      {error !== null && (
        <p class="compare-error" role="alert">
          The comparison failed: {error}
        </p>
      )}
      {result === null && error === null && sessions.length >= 2 && (
        <p class="muted" role="status">
          Comparing…
        </p>
      )}
      {result !== null && (
        <MergeBar
          a={aName}
          b={bName}
          nothing={result.turns.b.length === 0}
          related={result.turns.base !== null}
          canSummarize={canSummarize}
          onMerge={async (as) => {
            await merge(a, { from: b, as });
            setRound((n) => n + 1);
          }}
        />
      )}
      {result !== null && <Sections result={result} a={aName} b={bName} />}
    </dialog>
  );
}

/** Brings the second branch into the first: its turns since they parted, or a summary of them (with a model). */
function MergeBar(props: {
  a: string;
  b: string;
  nothing: boolean;
  related: boolean;
  canSummarize: boolean;
  onMerge: (as: 'turns' | 'summary') => Promise<void>;
}) {
  const [as, setAs] = useState<'turns' | 'summary'>('turns');
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const why = !props.related ? 'Unrelated sessions cannot be merged.' : props.nothing ? `${props.a} already has everything ${props.b} has.` : null;
  return (
    <div class="compare-merge" data-testid="compare-merge">
      <button
        type="button"
        class="btn btn-primary btn-small"
        data-testid="compare-merge-button"
        // aria-disabled, not disabled: the button stays focusable, and its reason is read with it.
        aria-disabled={why !== null || busy ? 'true' : undefined}
        aria-describedby={why === null ? undefined : 'compare-merge-why'}
        onClick={() => {
          if (why !== null || busy) return;
          setBusy(true);
          setRefused(null);
          setDone(null);
          const merged = `Merged ${props.b} into ${props.a}.`;
          props.onMerge(as).then(
            () => {
              setBusy(false);
              setDone(merged);
            },
            (e: Error) => {
              setBusy(false);
              setRefused(e.message);
            },
          );
        }}
      >
        Merge {props.b} into {props.a}
      </button>
      {props.canSummarize && why === null && (
        <label class="compare-select">
          <span class="muted">as</span>
          <select value={as} data-testid="compare-merge-as" onChange={(e) => setAs((e.target as HTMLSelectElement).value as 'turns' | 'summary')}>
            <option value="turns">its turns</option>
            <option value="summary">a summary</option>
          </select>
        </label>
      )}
      {why !== null && (
        <span class="muted small" id="compare-merge-why">
          {why}
        </span>
      )}
      {refused !== null && (
        <span class="compare-error" role="alert">
          The merge failed: {refused}
        </span>
      )}
      <span class="muted small" role="status" data-testid="compare-merge-status">
        {done}
      </span>
    </div>
  );
}

function SessionSelect(props: { label: string; testId: string; sessions: SessionSummary[]; value: string; onPick: (id: string) => void }) {
  return (
    <label class="compare-select">
      <span class="muted">{props.label}</span>
      <select value={props.value} data-testid={props.testId} onChange={(e) => props.onPick((e.target as HTMLSelectElement).value)}>
        {props.sessions.map((s) => (
          <option key={s.id} value={s.id}>
            {plainText(s.label ?? 'Untitled')}
          </option>
        ))}
      </select>
    </label>
  );
}

function Sections({ result, a, b }: { result: SessionComparison; a: string; b: string }) {
  return (
    <div class="compare-body">
      <section aria-labelledby="compare-turns">
        <h3 id="compare-turns">Turns since they parted</h3>
        <p class="muted small">
          {result.turns.base === null ? 'These sessions share no history: each side’s whole conversation.' : 'Each side’s turns after their last common turn.'}
        </p>
        <div class="compare-columns">
          <TurnColumn side="a" name={a} turns={result.turns.a} />
          <TurnColumn side="b" name={b} turns={result.turns.b} />
        </div>
      </section>
      <section aria-labelledby="compare-env">
        <h3 id="compare-env">Environment values that differ</h3>
        {result.environment.length === 0 ? (
          <p class="muted small">None: both saw the same values.</p>
        ) : (
          <div class="compare-table-wrap" tabIndex={0} role="region" aria-labelledby="compare-env">
            <table class="compare-table" data-testid="compare-environment">
              <thead>
                <tr>
                  <th scope="col">Value</th>
                  <th scope="col">{a}</th>
                  <th scope="col">{b}</th>
                </tr>
              </thead>
              <tbody>
                {result.environment.map((d) => (
                  <tr key={`${d.environment}.${d.field}`} data-testid="compare-env-row">
                    <th scope="row">
                      <code>
                        {d.environment}.{d.field}
                      </code>
                    </th>
                    <td>{d.a === null ? <span class="muted">not set</span> : <code>{d.a}</code>}</td>
                    <td>{d.b === null ? <span class="muted">not set</span> : <code>{d.b}</code>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="compare-ui">
        <h3 id="compare-ui">UI that differs</h3>
        {result.ui.length === 0 ? (
          <p class="muted small">None.</p>
        ) : (
          <p class="muted small">
            JSON Patch (RFC 6902) from {a} to {b}, one operation a line.
          </p>
        )}
        {result.ui.map((u) => (
          <div key={u.instanceId} class="compare-patch" data-testid="compare-ui" data-instance-id={u.instanceId}>
            <h4>
              <code>{u.instanceId}</code> <span class={`compare-change compare-${u.change}`}>{changeWord(u.change, a, b)}</span>
            </h4>
            <pre tabIndex={0} aria-label={`Patch for ${u.instanceId}`}>
              {u.patch.map((op, i) => (
                <span key={i} class={`compare-op compare-op-${op.op}`} data-testid="compare-op">
                  {JSON.stringify(op)}
                  {'\n'}
                </span>
              ))}
            </pre>
          </div>
        ))}
      </section>
      <section aria-labelledby="compare-clearance">
        <h3 id="compare-clearance">Waiting for your clearance</h3>
        <div class="compare-columns">
          <ClearanceColumn side="a" name={a} items={result.clearance.a} />
          <ClearanceColumn side="b" name={b} items={result.clearance.b} />
        </div>
      </section>
    </div>
  );
}

function changeWord(change: 'added' | 'removed' | 'changed', a: string, b: string): string {
  return change === 'added' ? `only in ${b}` : change === 'removed' ? `only in ${a}` : 'changed';
}

function TurnColumn({ side, name, turns }: { side: 'a' | 'b'; name: string; turns: TurnView[] }) {
  return (
    <div class="compare-column" data-testid={`compare-turns-${side}`}>
      <h4>{name}</h4>
      {turns.length === 0 ? (
        <p class="muted small">No turns since.</p>
      ) : (
        <ol class="compare-turns">
          {turns.map((t) => (
            <li key={`${t.id}:${t.version}`} class={`compare-turn role-${t.role}`} data-testid="compare-turn" data-role={t.role}>
              <span class="compare-role">{roleWord(t)}</span>
              {t.kind === 'notice' ? <p class="muted small compare-notice">{t.text}</p> : t.text !== '' && <Markdown text={t.text} testId="compare-text" />}
              {t.toolCalls.map((c) => (
                <span key={c.callId} class="compare-call">
                  called <code>{c.name}</code>
                </span>
              ))}
              {t.kind === 'results' && t.text === '' && (
                <span class="muted small">{t.toolResults.length === 1 ? 'a result' : `${t.toolResults.length} results`}</span>
              )}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function roleWord(t: TurnView): string {
  if (t.kind === 'ui-action') return 'You, on a UI';
  if (t.kind === 'results') return 'Results';
  if (t.kind === 'notice') return 'Notice';
  return t.role === 'user' ? 'You' : t.role === 'assistant' ? 'Golem' : t.role;
}

function ClearanceColumn({ side, name, items }: { side: 'a' | 'b'; name: string; items: ClearanceView[] }) {
  return (
    <div class="compare-column" data-testid={`compare-clearance-${side}`}>
      <h4>{name}</h4>
      {items.length === 0 ? (
        <p class="muted small">Nothing waiting.</p>
      ) : (
        <ul class="compare-items">
          {items.map((c) => (
            <li key={c.id} data-testid="compare-clearance-item">
              {plainText(c.description)} <span class="muted small">({c.status})</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

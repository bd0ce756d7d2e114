import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { UIInstance } from '../types.js';
import { INPUT_TYPES, liveState, type InstanceEdits, type RawEdit } from '../form-values.js';
import { inputTypes, UiContext } from '../ui-context.js';
import { fieldShown, isVisible } from '../ui-rules.js';
import type { Reveal } from '../use-forms.js';
import { AgentLabel } from './AgentLabel.js';
import type { LoadImage } from './BlockData.js';
import { ActionBar, domId, type InstanceView } from './UiBlockView.js';
import { UiLayout } from './UiLayout.js';

interface Props {
  instances: Record<string, UIInstance>;
  /** The instances the open conversation may show, in order (its own: a click on another's would go out of view). */
  shown: readonly string[];
  touched: Record<string, number>;
  edits: Record<string, InstanceEdits>;
  /** Why the last click was not sent, by instance and field key. */
  fieldErrors: Record<string, Record<string, string>>;
  /** The field a stopped or refused click asks to bring into view and focus. */
  reveal: Reveal | null;
  /** The count inputs' text as typed, by instance, not yet sent. */
  counts: Record<string, string>;
  sending: Record<string, boolean>;
  /** Instances whose action the user sent, unchanged since: no longer live. */
  sent: Record<string, boolean>;
  errors: Record<string, string>;
  onEdit: (instanceId: string, key: string, value: RawEdit) => void;
  onCount: (instanceId: string, text: string) => void;
  onAction: (instanceId: string, actionId: string) => void;
  loadImage: LoadImage;
}

/** The UIs the model built (patch_ui_state), live from the socket's state. */
export function UiInstances(props: Props) {
  const ids = props.shown;
  return (
    <section class="panel uis">
      <div class="section-head">
        <h2>Model-built UIs</h2>
        <span class="badge">{ids.length}</span>
      </div>
      {ids.length === 0 && <p class="muted small">None yet. The agent can build forms here.</p>}
      {ids.map((id) => {
        const instance = props.instances[id];
        return instance === undefined ? null : (
          <InstanceCard
            key={id}
            id={id}
            instance={instance}
            version={props.touched[id] ?? 0}
            edits={props.edits[id]}
            fieldErrors={props.fieldErrors[id]}
            reveal={props.reveal?.instanceId === id ? props.reveal : undefined}
            count={props.counts[id]}
            sending={props.sending[id] === true}
            sent={props.sent[id] === true || instance.meta?.status === 'submitted'}
            error={props.errors[id]}
            onEdit={props.onEdit}
            onCount={props.onCount}
            onAction={props.onAction}
            loadImage={props.loadImage}
          />
        );
      })}
    </section>
  );
}

interface CardProps {
  id: string;
  instance: UIInstance;
  version: number;
  edits: InstanceEdits | undefined;
  fieldErrors: Record<string, string> | undefined;
  reveal: Reveal | undefined;
  count: string | undefined;
  sending: boolean;
  sent: boolean;
  error: string | undefined;
  onEdit: Props['onEdit'];
  onCount: Props['onCount'];
  onAction: Props['onAction'];
  loadImage: LoadImage;
}

function InstanceCard({ id, instance, version, edits, fieldErrors, reveal, count, sending, sent, error, onEdit, onCount, onAction, loadImage }: CardProps) {
  const meta = instance.meta;
  const status = meta?.status === 'submitted' ? 'submitted' : sent ? 'sent' : (meta?.status ?? 'idle');
  const state = liveState(instance, edits, inputTypes(useContext(UiContext).catalog, INPUT_TYPES));
  // Dialogs closed on this page, each until the model changes its block or its rule hides it and shows it again
  // (not at every change of the instance: a live dashboard would bring it back each second).
  const [closedAs, setClosedAs] = useState<Record<string, string>>({});
  const blocks = instance.blocks ?? [];
  const closed = new Set(blocks.flatMap((block) => (closedAs[block.id] === JSON.stringify(block) ? [block.id] : [])));
  const hidden = blocks.filter((block) => closedAs[block.id] !== undefined && !isVisible(block.props?.visible, state)).map((block) => block.id);
  useEffect(() => {
    if (hidden.length === 0) return;
    setClosedAs((prev) => Object.fromEntries(Object.entries(prev).filter(([blockId]) => !hidden.includes(blockId))));
  }, [hidden.join('\n')]);
  // The chosen tab (layout tabs; null: the first), and the dialog to show first.
  const [tab, setTab] = useState<string | null>(null);
  const [front, setFront] = useState<string | null>(null);
  // A field a click was stopped by: its dialog reopened, its tab chosen, then focused once drawn.
  const focusing = useRef<{ inputId: string; tries: number } | null>(null);
  useEffect(() => {
    if (reveal === undefined) return;
    const block = blocks.find((b) => (b.props?.fields ?? []).some((f) => f.key === reveal.key && fieldShown(b, f, state)));
    if (block === undefined) return;
    if (block.props?.modal === true) {
      setClosedAs((prev) => Object.fromEntries(Object.entries(prev).filter(([blockId]) => blockId !== block.id)));
      setFront(block.id);
    } else setTab(block.id);
    focusing.current = { inputId: `f-${domId(id)}-${domId(block.id)}-${domId(reveal.key)}`, tries: 0 };
  }, [reveal?.seq]);
  // After the dialog's own focus (its effect runs before this card's): the field, once it is drawn and shown.
  useEffect(() => {
    const want = focusing.current;
    if (want === null) return;
    const control = focusable(want.inputId);
    control?.focus();
    if ((control !== null && document.activeElement === control) || ++want.tries >= 3) focusing.current = null;
  });
  const view: InstanceView = {
    instanceId: id,
    instance,
    edits,
    state,
    fieldErrors,
    count,
    disabled: sending || sent,
    loadImage,
    onEdit,
    onCount,
    onAction,
  };
  return (
    <div
      class={`ui-instance agent-frame${sending ? ' sending' : ''}${sent ? ' sent' : ''}`}
      data-testid="ui-instance"
      data-instance-id={id}
      data-version={version}
      data-status={meta?.status}
      data-sent={sent}
    >
      <AgentLabel />
      <header class="ui-head">
        <h3>{meta?.pageKey ?? id}</h3>
        <span class="ui-meta">
          {meta?.step !== undefined && (
            <span class="muted small" data-testid="ui-step">
              step {meta.step.current} / {meta.step.total}
            </span>
          )}
          <span class={`tag status-${status}`}>{status}</span>
        </span>
      </header>
      <form
        onSubmit={(e) => {
          e.preventDefault();
        }}
      >
        <UiLayout
          view={view}
          closed={closed}
          front={front}
          tab={tab}
          onTab={setTab}
          onClose={(blockId) => setClosedAs((prev) => ({ ...prev, [blockId]: JSON.stringify(blocks.find((b) => b.id === blockId) ?? null) }))}
        />
        {error !== undefined && (
          <p class="ui-error" role="alert">
            {error}
          </p>
        )}
        <ActionBar view={view} actions={instance.actions ?? []} className="ui-actions">
          {sending && <span class="muted small sending-note">sending…</span>}
          {sent && !sending && (
            <span class="muted small sending-note" data-testid="ui-sent">
              Sent: the agent has your answer.
            </span>
          )}
        </ActionBar>
      </form>
    </div>
  );
}

/** A field's control to focus: the input of that id, or the first control of a group (radio, multiselect) labelled by it. */
function focusable(inputId: string): HTMLElement | null {
  const own = document.getElementById(inputId);
  if (own !== null) return own;
  return document.getElementById(`${inputId}-label`)?.closest('.field')?.querySelector<HTMLElement>('input, select, textarea, button') ?? null;
}

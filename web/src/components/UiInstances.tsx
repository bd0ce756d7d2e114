import { useEffect, useState } from 'preact/hooks';
import type { UIInstance } from '../types.js';
import { liveState, type InstanceEdits, type RawEdit } from '../form-values.js';
import { isVisible } from '../ui-rules.js';
import type { LoadImage } from './BlockData.js';
import { ActionBar, type InstanceView } from './UiBlockView.js';
import { UiLayout } from './UiLayout.js';

interface Props {
  instances: Record<string, UIInstance>;
  /** The instances the open conversation may show, in order (its own: a click on another's would go out of view). */
  shown: readonly string[];
  touched: Record<string, number>;
  edits: Record<string, InstanceEdits>;
  /** Why the last click was not sent, by instance and field key. */
  fieldErrors: Record<string, Record<string, string>>;
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
  count: string | undefined;
  sending: boolean;
  sent: boolean;
  error: string | undefined;
  onEdit: Props['onEdit'];
  onCount: Props['onCount'];
  onAction: Props['onAction'];
  loadImage: LoadImage;
}

function InstanceCard({ id, instance, version, edits, fieldErrors, count, sending, sent, error, onEdit, onCount, onAction, loadImage }: CardProps) {
  const meta = instance.meta;
  const status = meta?.status === 'submitted' ? 'submitted' : sent ? 'sent' : (meta?.status ?? 'idle');
  const state = liveState(instance, edits);
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
      class={`ui-instance${sending ? ' sending' : ''}${sent ? ' sent' : ''}`}
      data-testid="ui-instance"
      data-instance-id={id}
      data-version={version}
      data-status={meta?.status}
      data-sent={sent}
    >
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

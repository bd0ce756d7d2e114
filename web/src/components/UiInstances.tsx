import type { FieldConfig, UIBlock, UIInstance } from '../types.js';
import { shows } from '../block-data.js';
import { displayText, fieldValue, type InstanceEdits, type RawEdit } from '../form-values.js';
import { BlockData, CountInput, type LoadImage } from './BlockData.js';

interface Props {
  instances: Record<string, UIInstance>;
  /** The instances the open conversation may show, in order (its own: a click on another's would go out of view). */
  shown: readonly string[];
  touched: Record<string, number>;
  edits: Record<string, InstanceEdits>;
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
  count: string | undefined;
  sending: boolean;
  sent: boolean;
  error: string | undefined;
  onEdit: Props['onEdit'];
  onCount: Props['onCount'];
  onAction: Props['onAction'];
  loadImage: LoadImage;
}

function InstanceCard({ id, instance, version, edits, count, sending, sent, error, onEdit, onCount, onAction, loadImage }: CardProps) {
  const meta = instance.meta;
  const status = meta?.status === 'submitted' ? 'submitted' : sent ? 'sent' : (meta?.status ?? 'idle');
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
        {(instance.blocks ?? []).map((block) => {
          const fields = block.props?.fields ?? [];
          const counting = shows(block, 'showCountInput');
          return (
            <div key={block.id} class="ui-block" data-testid="ui-block" data-block-id={block.id}>
              <BlockData instanceId={id} instance={instance} block={block} loadImage={loadImage} />
              {(fields.length > 0 || counting) && (
                <fieldset class="ui-fields" disabled={sending || sent}>
                  {fields.map((field) => (
                    <Field key={field.key} instanceId={id} instance={instance} block={block} field={field} edits={edits} onEdit={onEdit} />
                  ))}
                  {counting && <CountInput instanceId={id} instance={instance} block={block} typed={count} onCount={onCount} />}
                </fieldset>
              )}
            </div>
          );
        })}
        {error !== undefined && (
          <p class="ui-error" role="alert">
            {error}
          </p>
        )}
        <div class="ui-actions">
          {sending && <span class="muted small sending-note">sending…</span>}
          {sent && !sending && (
            <span class="muted small sending-note" data-testid="ui-sent">
              Sent: the agent has your answer.
            </span>
          )}
          {(instance.actions ?? []).map((action) => (
            <button
              key={action.id}
              type="button"
              class={`btn btn-${action.style === 'secondary' ? 'secondary' : action.style === 'danger' ? 'danger' : 'primary'} btn-small`}
              data-testid={`action-${action.id}`}
              data-style={action.style}
              disabled={sending || sent}
              onClick={() => onAction(id, action.id)}
            >
              {action.label}
            </button>
          ))}
        </div>
      </form>
    </div>
  );
}

interface FieldProps {
  instanceId: string;
  instance: UIInstance;
  block: UIBlock;
  field: FieldConfig;
  edits: InstanceEdits | undefined;
  onEdit: Props['onEdit'];
}

function Field({ instanceId, instance, block, field, edits, onEdit }: FieldProps) {
  const value = fieldValue(instance, block, field, edits);
  const text = displayText(field, edits, value);
  const inputId = `f-${instanceId}-${block.id}-${field.key}`;
  const testId = `field-${field.key}`;
  const set = (v: RawEdit) => onEdit(instanceId, field.key, v);
  const description = field.description !== undefined && <p class="field-desc">{field.description}</p>;

  if (field.type === 'checkbox') {
    return (
      <div class="field field-checkbox">
        <label>
          <input id={inputId} type="checkbox" data-testid={testId} checked={value === true} onChange={(e) => set(e.currentTarget.checked)} />
          <span>{field.label}</span>
        </label>
        {description}
      </div>
    );
  }
  if (field.type === 'radio') {
    return (
      <div class="field">
        <div class="field-label" id={`${inputId}-label`}>
          {field.label}
        </div>
        {description}
        <div class="radio-group" role="radiogroup" aria-labelledby={`${inputId}-label`} data-testid={testId}>
          {(field.options ?? []).map((option) => (
            <label key={option.value}>
              <input type="radio" name={inputId} value={option.value} checked={text === option.value} onChange={() => set(option.value)} />
              <span>{option.label}</span>
            </label>
          ))}
        </div>
      </div>
    );
  }
  let control;
  switch (field.type) {
    case 'textarea':
      control = <textarea id={inputId} data-testid={testId} rows={3} value={text} onInput={(e) => set(e.currentTarget.value)} />;
      break;
    case 'select': {
      const known = (field.options ?? []).some((o) => o.value === text);
      control = (
        <select id={inputId} data-testid={testId} value={known ? text : ''} onChange={(e) => set(e.currentTarget.value)}>
          {!known && (
            <option value="" disabled>
              Choose…
            </option>
          )}
          {(field.options ?? []).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
      break;
    }
    case 'number':
      control = <input id={inputId} type="number" data-testid={testId} value={text} onInput={(e) => set(e.currentTarget.value)} />;
      break;
    default:
      control = <input id={inputId} type="text" data-testid={testId} value={text} onInput={(e) => set(e.currentTarget.value)} />;
  }
  return (
    <div class="field">
      <label class="field-label" for={inputId}>
        {field.label}
      </label>
      {description}
      {control}
    </div>
  );
}

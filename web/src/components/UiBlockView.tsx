/**
 * One block of a model-built UI: its title and description (templates filled), what its
 * seed properties show (BlockData), its visible fields, and its own buttons, which take the
 * same click path as the instance's.
 */
import type { ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import { shows } from '../block-data.js';
import { INPUT_TYPES, type InstanceEdits, type LiveState, type RawEdit } from '../form-values.js';
import type { UIAction, UIBlock, UIInstance } from '../types.js';
import { inputTypes, UiContext } from '../ui-context.js';
import { fillTemplate, isVisible } from '../ui-rules.js';
import { BlockData, CountInput, type LoadImage } from './BlockData.js';
import { Field } from './fields/Field.js';
import { domId } from './fields/field-props.js';
export { domId };

/** What every block of an instance card shares. */
export interface InstanceView {
  instanceId: string;
  instance: UIInstance;
  edits: InstanceEdits | undefined;
  /** The server's state with the user's edits over it: what templates and rules read. */
  state: LiveState;
  fieldErrors: Record<string, string> | undefined;
  count: string | undefined;
  /** Sending, or sent and not changed since: no input field takes input (display fields still sort and copy). */
  disabled: boolean;
  loadImage: LoadImage;
  onEdit: (instanceId: string, key: string, value: RawEdit) => void;
  onCount: (instanceId: string, text: string) => void;
  onAction: (instanceId: string, actionId: string) => void;
}

export function blockTitle(block: UIBlock, state: LiveState): string | undefined {
  const title = block.props?.title;
  return typeof title === 'string' && title !== '' ? fillTemplate(title, state) : undefined;
}

export function UiBlockView({ view, block, showTitle = true, headingId }: { view: InstanceView; block: UIBlock; showTitle?: boolean; headingId?: string }) {
  const { instanceId, instance, edits, state } = view;
  const isInput = inputTypes(useContext(UiContext).catalog, INPUT_TYPES);
  const fields = (block.props?.fields ?? []).filter((field) => isVisible(field.visible, state));
  const counting = shows(block, 'showCountInput');
  const title = blockTitle(block, state);
  const description = typeof block.props?.description === 'string' ? fillTemplate(block.props.description, state) : undefined;
  const titleId = headingId ?? `t-${domId(instanceId)}-${domId(block.id)}`;
  return (
    <div
      class="ui-block"
      data-testid="ui-block"
      data-block-id={block.id}
      role={title !== undefined && showTitle ? 'group' : undefined}
      aria-labelledby={title !== undefined && showTitle ? titleId : undefined}
    >
      {title !== undefined && showTitle && (
        <h4 class="ui-block-title" id={titleId}>
          {title}
        </h4>
      )}
      {description !== undefined && description !== '' && <p class="ui-block-desc">{description}</p>}
      <BlockData instanceId={instanceId} instance={instance} block={block} loadImage={view.loadImage} />
      {(fields.length > 0 || counting) && (
        <div class="ui-fields">
          {fields.map((field, at) => {
            // Display fields may share a key (a table and a chart of the same rows): each keeps its own React key and ids.
            const occurrence = fields.slice(0, at).filter((f) => f.key === field.key).length;
            const key = occurrence > 0 ? `${field.key}#${occurrence}` : field.key;
            const drawn = (
              <Field
                key={key}
                occurrence={occurrence}
                instanceId={instanceId}
                instance={instance}
                block={block}
                field={field}
                edits={edits}
                state={state}
                error={view.fieldErrors?.[field.key]}
                onEdit={view.onEdit}
              />
            );
            // Only what takes input is disabled while a click is out: a table still sorts, code is still copied.
            return isInput(field.type) ? (
              <InputBox key={key} disabled={view.disabled}>
                {drawn}
              </InputBox>
            ) : (
              drawn
            );
          })}
          {counting && (
            <InputBox disabled={view.disabled}>
              <CountInput instanceId={instanceId} instance={instance} block={block} typed={view.count} onCount={view.onCount} />
            </InputBox>
          )}
        </div>
      )}
      {(block.props?.actions ?? []).length > 0 && <ActionBar view={view} actions={block.props?.actions ?? []} className="ui-block-actions" />}
    </div>
  );
}

/** What disables an input field's controls, a custom renderer's too; drawn as if it were not there (no group, no box). */
function InputBox({ disabled, children }: { disabled: boolean; children: ComponentChildren }) {
  return (
    <fieldset class="ui-input" role="none" disabled={disabled}>
      {children}
    </fieldset>
  );
}

/** Buttons (an instance's or a block's): the visible ones, labels' templates filled, each sending its click. */
export function ActionBar({
  view,
  actions,
  className,
  children,
}: {
  view: InstanceView;
  actions: readonly UIAction[];
  className: string;
  children?: ComponentChildren;
}) {
  const shown = actions.filter((action) => isVisible(action.visible, view.state));
  if (shown.length === 0 && children === undefined) return null;
  return (
    <div class={className}>
      {children}
      {shown.map((action) => (
        <button
          key={action.id}
          type="button"
          class={`btn btn-${action.style === 'secondary' ? 'secondary' : action.style === 'danger' ? 'danger' : 'primary'} btn-small`}
          data-testid={`action-${action.id}`}
          data-style={action.style}
          disabled={view.disabled}
          onClick={() => view.onAction(view.instanceId, action.id)}
        >
          {fillTemplate(action.label, view.state)}
        </button>
      ))}
    </div>
  );
}

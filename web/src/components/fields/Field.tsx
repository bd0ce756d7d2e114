/**
 * One field of a model-built UI, drawn by its type: the built-in inputs and displays, else a
 * registered component's renderer, else its value as JSON. Templates in its texts are filled
 * from the state the user sees (what they typed over the server's).
 */
import type { JSX } from 'preact';
import { boundState, displayText, fieldValue, type InstanceEdits, type LiveState, type RawEdit } from '../../form-values.js';
import type { FieldConfig, UIBlock, UIInstance } from '../../types.js';
import { stripBidiControls } from '../../../../src/core/text.js';
import { fillTemplate } from '../../ui-rules.js';
import { CheckInput, DateInput, NumberInput, PasswordInput, RadioInput, SelectInput, SliderInput, TextInput } from './BasicInputs.js';
import { ChartField } from './Chart.js';
import { CustomField } from './CustomField.js';
import { TableField } from './DataTable.js';
import { BadgeField, CodeField, MarkdownField, MetricField, ProgressField } from './Displays.js';
import { domId, type FieldProps } from './field-props.js';
import { FileInput } from './FileInput.js';
import { ImageField } from './ImageField.js';
import { JsonInput } from './JsonInput.js';
import { MultiselectInput, TagsInput } from './ListInputs.js';

const COMPONENTS: Record<string, (props: FieldProps) => JSX.Element> = {
  text: TextInput,
  textarea: TextInput,
  password: PasswordInput,
  number: NumberInput,
  date: DateInput,
  select: SelectInput,
  radio: RadioInput,
  checkbox: CheckInput,
  switch: CheckInput,
  slider: SliderInput,
  multiselect: MultiselectInput,
  tags: TagsInput,
  file: FileInput,
  json: JsonInput,
  markdown: MarkdownField,
  code: CodeField,
  badge: BadgeField,
  metric: MetricField,
  progress: ProgressField,
  table: TableField,
  chart: ChartField,
  image: ImageField,
};

/** Display fields whose own `value` text may hold templates. */
const TEMPLATED_VALUES = new Set(['markdown', 'badge', 'code']);

interface Props {
  instanceId: string;
  instance: UIInstance;
  block: UIBlock;
  field: FieldConfig;
  edits: InstanceEdits | undefined;
  state: LiveState;
  error: string | undefined;
  onEdit: (instanceId: string, key: string, value: RawEdit) => void;
  /** Display fields of a block may share a key: how many fields before this one have it (its ids stay its own). */
  occurrence?: number;
}

export function Field({ instanceId, instance, block, field, edits, state, error, onEdit, occurrence = 0 }: Props) {
  const filled: FieldConfig = {
    ...field,
    label: fillTemplate(field.label, state),
    ...(typeof field.description === 'string' && { description: fillTemplate(field.description, state) }),
    ...(typeof field.placeholder === 'string' && { placeholder: fillTemplate(field.placeholder, state) }),
    // Choices are labels too: drawn without bidi controls, as fillTemplate draws the others.
    ...(Array.isArray(field.options) && { options: field.options.map((o) => ({ ...o, label: stripBidiControls(o.label) })) }),
  };
  let value = fieldValue(instance, block, field, edits);
  if (TEMPLATED_VALUES.has(field.type) && typeof value === 'string' && !Object.hasOwn(boundState(instance, block), field.key))
    value = fillTemplate(value, state);
  const props: FieldProps = {
    instanceId,
    block,
    field: filled,
    value,
    text: displayText(field, edits, value),
    inputId: `f-${domId(instanceId)}-${domId(block.id)}-${domId(field.key)}${occurrence > 0 ? `-${occurrence}` : ''}`,
    error,
    set: (v: RawEdit) => onEdit(instanceId, field.key, v),
  };
  const Component = Object.hasOwn(COMPONENTS, field.type) ? COMPONENTS[field.type] : undefined;
  return Component === undefined ? <CustomField {...props} /> : <Component {...props} />;
}

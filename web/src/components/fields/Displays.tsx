/**
 * The display fields that are one piece of text or one number: markdown (the page's safe
 * renderer), badge, metric, progress and code (highlight.js, read back as elements). They show
 * the bound value, else the field's own; a value in no shape they draw is a short note.
 */
import type { ComponentChildren } from 'preact';
import { formatNumber, readBadge, readMetric, readProgress, type Read } from '../../display-values.js';
import type { Json } from '../../types.js';
import { Progress } from '../BlockData.js';
import { CodeBlock, Markdown } from '../Markdown.js';
import { descriptionId, stringProp, type FieldProps } from './field-props.js';

/** A display field's frame: its label and description, then what it draws. */
export function DisplayShell({ props, children, labelled = true }: { props: FieldProps; children: ComponentChildren; labelled?: boolean }) {
  const { field, inputId } = props;
  return (
    <div class="field field-display" data-field-type={field.type} data-testid={`field-${field.key}`}>
      {labelled && (
        <div class="field-label" id={`${inputId}-label`}>
          {field.label}
        </div>
      )}
      {field.description !== undefined && (
        <p class="field-desc" id={descriptionId(props)}>
          {field.description}
        </p>
      )}
      {children}
    </div>
  );
}

/** What a display field shows for a value it cannot draw. */
export function BadValue({ props, what }: { props: FieldProps; what: string }) {
  return (
    <p class="ui-data-bad" data-testid="field-bad" data-key={props.field.key}>
      The {what} ({props.field.key}) is not in a shape this page draws.
    </p>
  );
}

/** Draws a reader's result: nothing for none, the note for bad. */
export function drawn<T>(props: FieldProps, what: string, read: Read<T>, draw: (value: T) => ComponentChildren): ComponentChildren {
  if (read.kind === 'none') return <p class="ui-data-none muted small">Nothing yet.</p>;
  if (read.kind === 'bad') return <BadValue props={props} what={what} />;
  return draw(read.value);
}

const textOf = (value: Json | undefined): string | undefined | false =>
  value === undefined || value === null ? undefined : typeof value === 'string' ? value : false;

export function MarkdownField(props: FieldProps) {
  const text = textOf(props.value);
  return (
    <DisplayShell props={props}>
      {text === undefined ? null : text === false ? (
        <BadValue props={props} what="text" />
      ) : (
        <Markdown text={text} testId={`field-${props.field.key}-markdown`} />
      )}
    </DisplayShell>
  );
}

export function CodeField(props: FieldProps) {
  const text = textOf(props.value);
  return (
    <DisplayShell props={props}>
      {text === undefined ? null : text === false ? <BadValue props={props} what="code" /> : <CodeBlock code={text} lang={stringProp(props.field.language)} />}
    </DisplayShell>
  );
}

export function BadgeField(props: FieldProps) {
  const { field } = props;
  const read = readBadge(props.value, field.tone as Json | undefined, field.tones as Json | undefined);
  return (
    <div class="field field-display field-inline" data-field-type="badge" data-testid={`field-${field.key}`}>
      <span class="field-label" id={`${props.inputId}-label`}>
        {field.label}
      </span>
      {read.kind === 'ok' ? (
        <span class={`ui-badge tone-${read.value.tone}`} data-tone={read.value.tone} data-testid={`field-${field.key}-badge`}>
          {read.value.text}
        </span>
      ) : read.kind === 'bad' ? (
        <BadValue props={props} what="badge" />
      ) : (
        <span class="muted small">none</span>
      )}
      {field.description !== undefined && (
        <p class="field-desc" id={descriptionId(props)}>
          {field.description}
        </p>
      )}
    </div>
  );
}

export function MetricField(props: FieldProps) {
  const { field } = props;
  const read = readMetric(props.value, field.unit as Json | undefined);
  return (
    <DisplayShell props={props} labelled={false}>
      <div class="ui-metric" role="group" aria-labelledby={`${props.inputId}-label`}>
        <div class="field-label ui-metric-label" id={`${props.inputId}-label`}>
          {field.label}
        </div>
        {drawn(props, 'metric', read, (metric) => (
          <div class="ui-metric-row">
            <span class="ui-metric-value" data-testid={`field-${field.key}-value`}>
              {formatNumber(metric.value)}
              {metric.unit !== undefined && <span class="ui-metric-unit"> {metric.unit}</span>}
            </span>
            {metric.change !== undefined && metric.change !== 0 && (
              <span
                class={`ui-metric-change ${metric.change > 0 ? 'up' : 'down'}`}
                data-testid={`field-${field.key}-change`}
                data-direction={metric.change > 0 ? 'up' : 'down'}
              >
                <span aria-hidden="true">{metric.change > 0 ? '▲' : '▼'} </span>
                <span class="visually-hidden">{metric.change > 0 ? 'up ' : 'down '}</span>
                {metric.change > 0 ? '+' : '−'}
                {formatNumber(Math.abs(metric.change))}
              </span>
            )}
            {metric.change === 0 && <span class="ui-metric-change flat">no change</span>}
          </div>
        ))}
      </div>
    </DisplayShell>
  );
}

export function ProgressField(props: FieldProps) {
  const read = readProgress(props.value);
  return (
    <div class="field field-display" data-field-type="progress" data-testid={`field-${props.field.key}`}>
      {read.kind === 'ok' ? (
        <Progress progress={{ ...read.value, label: read.value.label ?? props.field.label }} id={props.inputId} />
      ) : (
        <>
          <div class="field-label">{props.field.label}</div>
          {read.kind === 'bad' ? <BadValue props={props} what="progress" /> : <p class="ui-data-none muted small">Nothing yet.</p>}
        </>
      )}
      {props.field.description !== undefined && (
        <p class="field-desc" id={descriptionId(props)}>
          {props.field.description}
        </p>
      )}
    </div>
  );
}

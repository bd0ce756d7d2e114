/**
 * A chart field (line, bar or pie) drawn as inline SVG: role="img" named by the field's label
 * and what it shows, its numbers in a visually hidden table for a screen reader. Colours are
 * the page's light-dark() pairs; every label is the model's text, drawn as text.
 */
import type { ComponentChildren } from 'preact';
import { formatNumber, readChart, type ChartView } from '../../display-values.js';
import { niceTicks, pieSlices, shortLabel, valueRange } from '../../chart-geometry.js';
import type { Json } from '../../types.js';
import { DisplayShell, drawn } from './Displays.js';
import type { FieldProps } from './field-props.js';

const W = 420;
const H = 220;
const PAD = { left: 44, right: 12, top: 12, bottom: 30 };
const SERIES = 6;

type Kind = 'line' | 'bar' | 'pie';

export function ChartField(props: FieldProps) {
  const { field } = props;
  const kind: Kind = field.chart === 'bar' || field.chart === 'pie' ? field.chart : 'line';
  const read = readChart(props.value, field.x as Json | undefined, field.y as Json | undefined);
  return (
    <DisplayShell props={props}>
      {drawn(props, 'chart', read, (chart) => (
        <Figure props={props} kind={kind} chart={chart} />
      ))}
    </DisplayShell>
  );
}

function Figure({ props, kind, chart }: { props: FieldProps; kind: Kind; chart: ChartView }) {
  const { field, inputId } = props;
  const series = kind === 'pie' ? chart.series.slice(0, 1) : chart.series;
  const summary = `${field.label}: ${kind} chart of ${series.map((s) => s.key).join(', ')} by ${String(field.x)}, ${chart.labels.length} ${chart.labels.length === 1 ? 'point' : 'points'}`;
  const legend = kind === 'pie' ? chart.labels : series.length > 1 ? series.map((s) => s.key) : [];
  return (
    <figure class="ui-chart" data-testid={`field-${field.key}-chart`} data-chart={kind}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${inputId}-title`} class="ui-chart-svg">
        <title id={`${inputId}-title`}>{summary}</title>
        {chart.labels.length === 0 ? (
          <text x={W / 2} y={H / 2} text-anchor="middle" class="chart-note">
            No data yet
          </text>
        ) : kind === 'pie' ? (
          <Pie values={series[0]?.values ?? []} labels={chart.labels} />
        ) : (
          <Axes kind={kind} chart={{ labels: chart.labels, series }} />
        )}
      </svg>
      {legend.length > 0 && (
        <ul class="chart-legend" aria-hidden="true">
          {legend.map((name, i) => (
            <li key={i}>
              <span class={`chart-swatch series-${i % SERIES}`} />
              {name}
            </li>
          ))}
        </ul>
      )}
      {/* A table is as wide as its cells whatever its width says: hidden inside a box that is not. */}
      <div class="visually-hidden">
        <table>
          <caption>{summary}</caption>
          <thead>
            <tr>
              <th scope="col">{String(field.x)}</th>
              {series.map((s) => (
                <th key={s.key} scope="col">
                  {s.key}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {chart.labels.map((label, r) => (
              <tr key={r}>
                <th scope="row">{label}</th>
                {series.map((s) => (
                  <td key={s.key}>{s.values[r] === null || s.values[r] === undefined ? '' : formatNumber(s.values[r])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

function Axes({ kind, chart }: { kind: 'line' | 'bar'; chart: ChartView }) {
  const { min, max } = valueRange(chart.series);
  const { ticks, low, high } = niceTicks(min, max);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v: number) => PAD.top + plotH - ((v - low) / (high - low)) * plotH;
  const n = chart.labels.length;
  const band = plotW / n;
  // Bars sit in bands; a line's points at the bands' centres too, so both read the same.
  const x = (i: number) => PAD.left + band * (i + 0.5);
  const every = Math.max(1, Math.ceil(n / 8));
  const parts: ComponentChildren[] = [];
  chart.series.forEach((s, si) => {
    if (kind === 'bar') {
      const width = (band * 0.7) / chart.series.length;
      s.values.forEach((v, i) => {
        if (v === null) return;
        const top = y(Math.max(v, 0));
        parts.push(
          <rect
            key={`b${si}-${i}`}
            class={`chart-bar series-${si % SERIES}`}
            data-testid="chart-bar"
            x={x(i) - band * 0.35 + width * si}
            y={top}
            width={Math.max(1, width - 1)}
            height={Math.max(1, Math.abs(y(v) - y(0)))}
            rx={2}
          />,
        );
      });
    } else {
      const points = s.values.flatMap((v, i) => (v === null ? [] : [[x(i), y(v)] as const]));
      parts.push(<polyline key={`l${si}`} class={`chart-line series-${si % SERIES}`} points={points.map((p) => p.join(',')).join(' ')} />);
      points.forEach(([px, py], i) =>
        parts.push(<circle key={`p${si}-${i}`} class={`chart-point series-${si % SERIES}`} data-testid="chart-point" cx={px} cy={py} r={3.5} />),
      );
    }
  });
  return (
    <g aria-hidden="true">
      {ticks.map((t) => (
        <g key={t}>
          <line class="chart-grid" x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
          <text class="chart-tick" x={PAD.left - 6} y={y(t) + 4} text-anchor="end">
            {formatNumber(t)}
          </text>
        </g>
      ))}
      <line class="chart-axis" x1={PAD.left} x2={W - PAD.right} y1={y(0)} y2={y(0)} />
      {chart.labels.map((label, i) =>
        i % every === 0 ? (
          <text key={i} class="chart-tick" x={x(i)} y={H - PAD.bottom + 16} text-anchor="middle">
            {shortLabel(label)}
          </text>
        ) : null,
      )}
      {parts}
    </g>
  );
}

function Pie({ values, labels }: { values: readonly (number | null)[]; labels: readonly string[] }) {
  const slices = pieSlices(values, W / 2, H / 2, H / 2 - 14);
  if (slices.length === 0)
    return (
      <text x={W / 2} y={H / 2} text-anchor="middle" class="chart-note">
        Nothing above zero to show
      </text>
    );
  return (
    <g aria-hidden="true">
      {slices.map((slice) =>
        slice.whole ? (
          <circle key={slice.index} class={`chart-slice series-${slice.index % SERIES}`} data-testid="chart-slice" cx={W / 2} cy={H / 2} r={H / 2 - 14}>
            <title>{labels[slice.index]}</title>
          </circle>
        ) : (
          <path key={slice.index} class={`chart-slice series-${slice.index % SERIES}`} data-testid="chart-slice" d={slice.path}>
            <title>{`${labels[slice.index] ?? ''}: ${formatNumber(slice.value)} (${Math.round(slice.share * 100)}%)`}</title>
          </path>
        ),
      )}
    </g>
  );
}

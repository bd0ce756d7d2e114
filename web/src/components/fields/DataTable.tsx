/** A table field: the bound rows under the field's columns, sorted by a header's button (aria-sort tells which way). */
import { useMemo, useState } from 'preact/hooks';
import { cellOf, cellText, readRows, sortRows, type Row } from '../../display-values.js';
import { BadValue, DisplayShell } from './Displays.js';
import type { FieldProps } from './field-props.js';

type Sort = { key: string; direction: 'ascending' | 'descending' } | null;

function columnsOf(field: FieldProps['field'], rows: readonly Row[]): { key: string; label: string }[] {
  const given = Array.isArray(field.columns) ? field.columns.filter((c) => typeof c?.key === 'string') : [];
  if (given.length > 0) return given.map((c) => ({ key: c.key, label: typeof c.label === 'string' ? c.label : c.key }));
  return [...new Set(rows.flatMap((row) => Object.keys(row)))].map((key) => ({ key, label: key }));
}

export function TableField(props: FieldProps) {
  const { field, inputId } = props;
  const read = readRows(props.value);
  const rows = read.kind === 'ok' ? read.value : [];
  const columns = columnsOf(field, rows);
  const sortable = field.sortable !== false;
  const [sort, setSort] = useState<Sort>(null);
  const shown = useMemo(() => (sort === null ? rows : sortRows(rows, sort.key, sort.direction)), [rows, sort]);
  // A column of numbers is aligned to the right, its header with it.
  const numeric = columns.map(
    (c) =>
      rows.some((row) => typeof cellOf(row, c.key) === 'number') &&
      rows.every((row) => ['number', 'undefined'].includes(typeof cellOf(row, c.key)) || cellOf(row, c.key) === null),
  );
  if (read.kind === 'bad')
    return (
      <DisplayShell props={props}>
        <BadValue props={props} what="table" />
      </DisplayShell>
    );
  return (
    <DisplayShell props={props}>
      {/* Scrolls sideways on a narrow screen: focusable, so a keyboard scrolls it too. */}
      <div
        class="ui-table-wrap"
        role="region"
        aria-labelledby={`${inputId}-label`}
        tabIndex={0}
        data-testid={`field-${field.key}-table`}
        data-rows={rows.length}
      >
        <table class="ui-table">
          <thead>
            <tr>
              {columns.map((column, i) => {
                const sorted = sort?.key === column.key ? sort.direction : undefined;
                return (
                  <th key={i} scope="col" class={numeric[i] === true ? 'num' : undefined} aria-sort={sortable ? (sorted ?? 'none') : undefined}>
                    {sortable ? (
                      <button
                        type="button"
                        class="sort-button"
                        data-testid={`sort-${column.key}`}
                        onClick={() => setSort({ key: column.key, direction: sorted === 'ascending' ? 'descending' : 'ascending' })}
                      >
                        <span>{column.label}</span>
                        <span class="sort-mark" aria-hidden="true">
                          {sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : '↕'}
                        </span>
                      </button>
                    ) : (
                      column.label
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 && (
              <tr>
                <td class="ui-table-empty" colSpan={Math.max(columns.length, 1)}>
                  No rows yet.
                </td>
              </tr>
            )}
            {shown.map((row, r) => (
              <tr key={r}>
                {columns.map((column, i) => (
                  <td key={i} class={numeric[i] === true ? 'num' : undefined}>
                    {cellText(cellOf(row, column.key))}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </DisplayShell>
  );
}

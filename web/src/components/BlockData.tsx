import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  BLOCK_DATA_KEYS,
  parseCount,
  readCount,
  readImages,
  readProgress,
  readStatus,
  readTable,
  readTaskId,
  runtimeValue,
  shows,
  type BlockDataProp,
  type ImageView,
  type ProgressView,
  type Read,
  type StatusView,
  type TableView,
} from '../block-data.js';
import type { UIBlock, UIInstance } from '../types.js';
import { CopyButton } from './CopyButton.js';

/** Loads an image the server holds for an instance (a blob), as a data URL. */
export type LoadImage = (instanceId: string, sha256: string) => Promise<string>;

interface Props {
  instanceId: string;
  instance: UIInstance;
  block: UIBlock;
  loadImage: LoadImage;
}

const WHAT: Record<BlockDataProp, string> = {
  showProgress: 'progress',
  showStatus: 'status',
  showImages: 'images',
  showTable: 'table',
  showCountInput: 'count',
  showTaskId: 'task ID',
};

/**
 * What a block's properties show of `state.runtime` (seed 004's showStatus, showProgress,
 * showTaskId, showTable, showImages), above its fields. Every text is the model's, drawn as
 * text; an image is a data URL or a blob of the server, never an address elsewhere.
 */
export function BlockData({ instanceId, instance, block, loadImage }: Props) {
  const base = `d-${instanceId}-${block.id}`;
  const part = <T,>(prop: BlockDataProp, read: (value: ReturnType<typeof runtimeValue>) => Read<T>, draw: (value: T) => JSX.Element) => {
    if (!shows(block, prop)) return null;
    const got = read(runtimeValue(instance, BLOCK_DATA_KEYS[prop]));
    if (got.kind === 'none') return null;
    if (got.kind === 'bad')
      return (
        <p class="ui-data-bad" data-testid="block-data-bad" data-key={BLOCK_DATA_KEYS[prop]}>
          The {WHAT[prop]} (state.runtime.{BLOCK_DATA_KEYS[prop]}) is not in a shape this page draws.
        </p>
      );
    return draw(got.value);
  };
  return (
    <>
      {part('showStatus', readStatus, (status) => (
        <Status status={status} />
      ))}
      {part('showProgress', readProgress, (progress) => (
        <Progress progress={progress} id={`${base}-progress`} />
      ))}
      {part('showTaskId', readTaskId, (taskId) => (
        <TaskId taskId={taskId} />
      ))}
      {part('showTable', readTable, (table) => (
        <Table table={table} />
      ))}
      {part('showImages', readImages, ({ images, skipped }) => (
        <Images instanceId={instanceId} images={images} skipped={skipped} loadImage={loadImage} />
      ))}
    </>
  );
}

const LEVEL_WORDS: Record<StatusView['level'], string> = { info: 'Status', success: 'Done', warning: 'Warning', error: 'Error' };

function Status({ status }: { status: StatusView }) {
  // A live region: a screen reader hears each new status.
  return (
    <div class={`ui-status level-${status.level}`} data-testid="block-status" data-level={status.level} role="status">
      <span class="ui-status-level">{LEVEL_WORDS[status.level]}</span>
      <span class="ui-status-text">{status.text}</span>
    </div>
  );
}

const number = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/\.?0+$/, ''));

export function Progress({ progress, id }: { progress: ProgressView; id: string }) {
  const percent = Math.round((progress.value / progress.max) * 100);
  const amount = progress.max === 100 ? `${number(progress.value)}%` : `${number(progress.value)} / ${number(progress.max)}`;
  return (
    <div class="ui-progress" data-testid="block-progress" data-value={progress.value} data-max={progress.max}>
      <div class="ui-progress-head">
        <span class="field-label" id={`${id}-label`}>
          {progress.label ?? 'Progress'}
        </span>
        <span class="ui-progress-amount" data-testid="block-progress-amount">
          {amount}
        </span>
      </div>
      <div
        class="ui-progress-track"
        role="progressbar"
        aria-labelledby={`${id}-label`}
        aria-valuemin={0}
        aria-valuemax={progress.max}
        aria-valuenow={progress.value}
        aria-valuetext={progress.max === 100 ? amount : `${amount} (${percent}%)`}
      >
        <div class="ui-progress-fill" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

function TaskId({ taskId }: { taskId: string }) {
  return (
    <div class="ui-task-id" data-testid="block-task-id">
      <span class="field-label">Task ID</span>
      <code data-testid="block-task-id-value">{taskId}</code>
      <CopyButton text={taskId} what="the task ID" testId="copy-task-id" />
    </div>
  );
}

function cellText(row: TableView['rows'][number], key: string): { text: string; numeric: boolean } {
  // An own key only: a column named "constructor" reads no prototype.
  const cell = Object.hasOwn(row, key) ? row[key] : undefined;
  if (typeof cell === 'number') return { text: number(cell), numeric: true };
  if (typeof cell === 'boolean') return { text: cell ? 'yes' : 'no', numeric: false };
  return { text: cell ?? '', numeric: false };
}

function Table({ table }: { table: TableView }) {
  const { columns, rows } = table;
  // A column of numbers is aligned to the right, its header with it.
  const numeric = columns.map(
    (column) =>
      rows.some((row) => cellText(row, column.key).numeric) && rows.every((row) => cellText(row, column.key).numeric || cellText(row, column.key).text === ''),
  );
  return (
    // Scrolls sideways on a narrow screen: focusable, so a keyboard scrolls it too.
    <div class="ui-table-wrap" data-testid="block-table" data-rows={rows.length} role="region" aria-label={`Table of ${rows.length} rows`} tabIndex={0}>
      <table class="ui-table">
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th key={i} scope="col" class={numeric[i] === true ? 'num' : undefined}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && (
            <tr>
              <td class="ui-table-empty" colSpan={Math.max(columns.length, 1)}>
                No rows yet.
              </td>
            </tr>
          )}
          {rows.map((row, r) => (
            <tr key={r}>
              {columns.map((column, i) => {
                const { text, numeric } = cellText(row, column.key);
                return (
                  <td key={i} class={numeric ? 'num' : undefined}>
                    {text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Images({ instanceId, images, skipped, loadImage }: { instanceId: string; images: ImageView[]; skipped: number; loadImage: LoadImage }) {
  return (
    <div class="ui-images-part">
      <ul class="ui-images" data-testid="block-images">
        {images.map((image, i) => (
          <li key={`${i}:${image.blob ?? image.src.slice(-24)}`}>
            <figure>
              {image.blob !== undefined ? (
                <BlobImage instanceId={instanceId} sha256={image.blob} alt={image.alt} loadImage={loadImage} />
              ) : (
                <img src={image.src} alt={image.alt} decoding="async" />
              )}
              {image.caption !== undefined && <figcaption>{image.caption}</figcaption>}
            </figure>
          </li>
        ))}
      </ul>
      {skipped > 0 && (
        <p class="ui-data-bad" data-testid="block-images-skipped">
          {skipped === 1 ? '1 image is' : `${skipped} images are`} not shown: only images of this server or data URLs are.
        </p>
      )}
    </div>
  );
}

/** An image the server holds for an instance, loaded with the token (a placeholder while it loads, or if it cannot). */
export function BlobImage({
  instanceId,
  sha256,
  alt,
  loadImage,
  className,
}: {
  instanceId: string;
  sha256: string;
  alt: string;
  loadImage: LoadImage;
  className?: string;
}) {
  const [image, setImage] = useState<{ state: 'loading' } | { state: 'failed' } | { state: 'loaded'; src: string }>({ state: 'loading' });
  useEffect(() => {
    let live = true;
    setImage({ state: 'loading' });
    loadImage(instanceId, sha256).then(
      (src) => live && setImage({ state: 'loaded', src }),
      () => live && setImage({ state: 'failed' }),
    );
    return () => {
      live = false;
    };
  }, [instanceId, sha256, loadImage]);
  if (image.state !== 'loaded')
    return (
      <div class="ui-image-placeholder" data-testid="block-image-placeholder" data-state={image.state}>
        {image.state === 'loading' ? 'Loading image…' : `Image not available${alt === '' ? '' : `: ${alt}`}`}
      </div>
    );
  return <img class={className} src={image.src} alt={alt} decoding="async" data-blob={sha256} />;
}

/** The count input of a block with showCountInput: a number bound to state.runtime.count, sent with the next action. */
export function CountInput({
  instanceId,
  instance,
  block,
  typed,
  onCount,
}: {
  instanceId: string;
  instance: UIInstance;
  block: UIBlock;
  typed: string | undefined;
  onCount: (instanceId: string, text: string) => void;
}) {
  const id = `count-${instanceId}-${block.id}`;
  const stored = readCount(runtimeValue(instance, BLOCK_DATA_KEYS.showCountInput));
  const text = typed ?? (stored.kind === 'ok' ? String(stored.value) : '');
  const invalid = text.trim() !== '' && parseCount(text) === undefined;
  return (
    <div class="field">
      <label class="field-label" for={id}>
        Count
      </label>
      <input
        id={id}
        type="number"
        min={0}
        step={1}
        inputMode="numeric"
        data-testid="count-input"
        value={text}
        aria-invalid={invalid}
        aria-describedby={invalid ? `${id}-hint` : undefined}
        onInput={(e) => onCount(instanceId, e.currentTarget.value)}
      />
      {invalid && (
        <p class="field-desc" id={`${id}-hint`}>
          A whole number, 0 or more.
        </p>
      )}
    </div>
  );
}

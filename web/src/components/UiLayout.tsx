/**
 * An instance's blocks laid out (layout.type): one under another (single, column), side by side
 * (row), in a grid of 1 to 4 columns (each block spanning props.span), or as tabs. Row and grid
 * stack when the panel is narrow (a phone). Blocks hidden by their rule are not drawn; modal
 * blocks are drawn as dialogs over the page, until closed on this page.
 */
import type { UIBlock } from '../types.js';
import { isVisible } from '../ui-rules.js';
import { blockTitle, domId, UiBlockView, type InstanceView } from './UiBlockView.js';
import { UiModal } from './UiModal.js';

const clamp = (n: unknown, low: number, high: number, fallback: number) =>
  typeof n === 'number' && Number.isInteger(n) ? Math.min(high, Math.max(low, n)) : fallback;

export function UiLayout({
  view,
  closed,
  front,
  tab,
  onTab,
  onClose,
}: {
  view: InstanceView;
  closed: ReadonlySet<string>;
  /** The dialog shown first when several are open (one a stopped click asks for). */
  front: string | null;
  /** The chosen tab's block (null: the first). */
  tab: string | null;
  onTab: (blockId: string) => void;
  onClose: (blockId: string) => void;
}) {
  const { instance, state } = view;
  const visible = (instance.blocks ?? []).filter((block) => isVisible(block.props?.visible, state));
  const inline = visible.filter((block) => block.props?.modal !== true);
  const modals = visible.filter((block) => block.props?.modal === true && !closed.has(block.id));
  const layout = instance.layout?.type ?? 'single';
  const columns = clamp(instance.layout?.columns, 1, 4, 2);
  const modal = modals.find((block) => block.id === front) ?? modals[0];
  return (
    <>
      <div class="ui-layout-box">
        {layout === 'tabs' && inline.length > 0 ? (
          <Tabs view={view} blocks={inline} chosen={tab} onChoose={onTab} />
        ) : (
          <div
            class={`ui-layout layout-${layout === 'row' || layout === 'grid' ? layout : 'column'}`}
            data-testid="ui-layout"
            data-layout={layout}
            style={layout === 'grid' ? { '--ui-columns': String(columns) } : undefined}
          >
            {inline.map((block) => (
              <div
                key={block.id}
                class="ui-cell"
                style={layout === 'grid' ? { '--ui-span': String(clamp(block.props?.span, 1, columns, 1)) } : undefined}
                data-span={layout === 'grid' ? clamp(block.props?.span, 1, columns, 1) : undefined}
              >
                <UiBlockView view={view} block={block} />
              </div>
            ))}
          </div>
        )}
      </div>
      {/* One dialog at a time: the next shows once this one is closed. */}
      {modal !== undefined && <ModalBlock key={modal.id} view={view} block={modal} onClose={() => onClose(modal.id)} />}
    </>
  );
}

function ModalBlock({ view, block, onClose }: { view: InstanceView; block: UIBlock; onClose: () => void }) {
  const titleId = `m-${domId(view.instanceId)}-${domId(block.id)}`;
  return (
    <UiModal title={blockTitle(block, view.state) ?? block.id} titleId={titleId} onClose={onClose}>
      <UiBlockView view={view} block={block} showTitle={false} />
    </UiModal>
  );
}

/** Each block a tab named by its title (or id); arrow keys, Home and End move between them (the WAI-ARIA tabs pattern). */
function Tabs({
  view,
  blocks,
  chosen,
  onChoose: setChosen,
}: {
  view: InstanceView;
  blocks: UIBlock[];
  chosen: string | null;
  onChoose: (blockId: string) => void;
}) {
  const current = blocks.find((b) => b.id === chosen) ?? (blocks[0] as UIBlock);
  const base = `tab-${domId(view.instanceId)}`;
  const tabId = (block: UIBlock) => `${base}-${domId(block.id)}`;
  const move = (e: KeyboardEvent, index: number) => {
    const to =
      e.key === 'ArrowRight'
        ? (index + 1) % blocks.length
        : e.key === 'ArrowLeft'
          ? (index - 1 + blocks.length) % blocks.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? blocks.length - 1
              : -1;
    const next = blocks[to];
    if (next === undefined) return;
    e.preventDefault();
    setChosen(next.id);
    document.getElementById(tabId(next))?.focus();
  };
  return (
    <div class="ui-tabs" data-testid="ui-layout" data-layout="tabs">
      <div class="ui-tablist" role="tablist" aria-label={`${view.instance.meta?.pageKey ?? view.instanceId}: sections`}>
        {blocks.map((block, i) => {
          const selected = block.id === current.id;
          return (
            <button
              key={block.id}
              id={tabId(block)}
              type="button"
              role="tab"
              class={`ui-tab${selected ? ' current' : ''}`}
              aria-selected={selected}
              aria-controls={`${tabId(block)}-panel`}
              tabIndex={selected ? 0 : -1}
              data-testid={`tab-${block.id}`}
              onClick={() => setChosen(block.id)}
              onKeyDown={(e) => move(e, i)}
            >
              {blockTitle(block, view.state) ?? block.id}
            </button>
          );
        })}
      </div>
      {blocks.map((block) => (
        // Every panel is kept (what was typed in another tab is sent too); only the chosen one shows.
        <div
          key={block.id}
          id={`${tabId(block)}-panel`}
          role="tabpanel"
          aria-labelledby={tabId(block)}
          hidden={block.id !== current.id}
          tabIndex={0}
          class="ui-tabpanel"
        >
          <UiBlockView view={view} block={block} showTitle={false} />
        </div>
      ))}
    </div>
  );
}

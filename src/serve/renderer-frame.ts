/**
 * The document a registered component's renderer runs in (the MCP Apps pattern): the page
 * puts it in `<iframe sandbox="allow-scripts">`, so it has an opaque origin of its own and
 * can read nothing of the page (its storage, where the token is; its cookies; its DOM) nor
 * call the API as the page. Its policy allows no network at all (connect-src 'none', images
 * only as data: and blob: URLs) and no script but its bootstrap and the renderer it loads.
 *
 * The bootstrap holds the renderer's snapshot (the code read at register), imports it from a
 * blob: URL, and speaks to the page only by `postMessage` (web/src/renderer-messages.ts reads
 * what it sends):
 * - page → frame `{ golem: 'renderer', type: 'render', field, value, theme, instanceId }`:
 *   calls the renderer's `render(element, { field, value, setValue, theme, instanceId })`
 *   (its cleanup first, if it gave one), as the page did before;
 * - frame → page `{ golem: 'renderer', type: 'ready' }` once it listens; `'set'` with the
 *   field's key and a value (its setValue); `'size'` with its content's height; `'failed'`
 *   with why (the module did not load, has no render, or render threw).
 */
import { createHash } from 'node:crypto';

/** The frame's script, run before the renderer. Plain ES2020: it runs as it is in the browser. */
const BOOTSTRAP = `(() => {
  const send = (message) => parent.postMessage(Object.assign({ golem: 'renderer' }, message), '*');
  const why = (error) => String((error && error.message) || error).slice(0, 300);
  const source = JSON.parse(document.getElementById('golem-renderer').textContent);
  const loading = import(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
  const root = document.getElementById('root');
  let cleanup;
  addEventListener('message', async (event) => {
    const data = event.data;
    if (event.source !== parent || data === null || typeof data !== 'object' || data.golem !== 'renderer' || data.type !== 'render') return;
    let module;
    try {
      module = await loading;
    } catch (error) {
      return send({ type: 'failed', stage: 'load', message: why(error) });
    }
    if (typeof module.render !== 'function') return send({ type: 'failed', stage: 'load', message: 'the module exports no render function' });
    const key = data.field.key;
    document.documentElement.dataset.theme = data.theme;
    document.documentElement.style.colorScheme = data.theme;
    try {
      if (typeof cleanup === 'function') cleanup();
    } catch {
      // A cleanup that throws leaves nothing behind: the next render draws afresh.
    }
    cleanup = undefined;
    try {
      const drawn = module.render(root, {
        field: data.field,
        value: data.value,
        setValue: (value) => send({ type: 'set', key, value }),
        theme: data.theme,
        instanceId: data.instanceId,
      });
      if (drawn && typeof drawn.then === 'function') drawn.then(undefined, (error) => send({ type: 'failed', stage: 'render', message: why(error) }));
      else cleanup = drawn;
    } catch (error) {
      send({ type: 'failed', stage: 'render', message: why(error) });
    }
  });
  new ResizeObserver(() => send({ type: 'size', height: Math.ceil(document.documentElement.getBoundingClientRect().height) })).observe(document.documentElement);
  send({ type: 'ready' });
})();`;

const BOOTSTRAP_HASH = createHash('sha256').update(BOOTSTRAP).digest('base64');

/** What the frame document may load and do: its bootstrap, the renderer's blob: module, inline styles, images as data; no network. */
export const RENDERER_FRAME_CSP = [
  "default-src 'none'",
  `script-src 'sha256-${BOOTSTRAP_HASH}' blob:`,
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  'font-src data:',
  "connect-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
].join('; ');

const STYLE = `html, body { margin: 0; background: transparent; }
body { display: flow-root; font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1f2328; }
:root[data-theme='dark'] body { color: #e6edf3; }`;

/** The frame document of a renderer: its snapshot (as JSON text, with no `<` left to end the script) and the bootstrap. */
export function rendererFrame(code: string): string {
  const data = JSON.stringify(code).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>renderer</title><style>${STYLE}</style></head>
<body><div id="root"></div>
<script type="application/json" id="golem-renderer">${data}</script>
<script>${BOOTSTRAP}</script>
</body></html>
`;
}

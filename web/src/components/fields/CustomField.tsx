/**
 * A field of a type the page does not draw itself: the catalog's renderer for it, run in a
 * sandboxed frame of its own (src/serve/renderer-frame.ts) that speaks to the page only by
 * postMessage, so the renderer never holds the page's token nor reaches its API. The page sends
 * the field, its value and the theme on load and on every change, takes a value back only for
 * this field and only as plain JSON, and sizes the frame to what it drew. Without a renderer,
 * or when it fails, the field's value as JSON under its label.
 */
import { useContext, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { RawEdit } from '../../form-values.js';
import { rendererMessage } from '../../renderer-messages.js';
import { currentTheme, UiContext } from '../../ui-context.js';
import { DisplayShell } from './Displays.js';
import type { FieldProps } from './field-props.js';

export function CustomField(props: FieldProps) {
  const { catalog } = useContext(UiContext);
  const url = catalog.components.find((c) => c.type === props.field.type)?.renderer;
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => setFailed(null), [url]);
  if (url === undefined || failed !== null) return <JsonFallback props={props} why={failed ?? `no renderer for “${props.field.type}”`} />;
  return <Framed props={props} url={url} onFail={setFailed} />;
}

/** The page's theme, followed as the user or the system changes it. */
function useTheme(): 'light' | 'dark' {
  const [theme, setTheme] = useState(currentTheme);
  useEffect(() => {
    const update = () => setTheme(currentTheme());
    const observer = new MutationObserver(update);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    media.addEventListener('change', update);
    return () => {
      observer.disconnect();
      media.removeEventListener('change', update);
    };
  }, []);
  return theme;
}

function Framed({ props, url, onFail }: { props: FieldProps; url: string; onFail: (why: string) => void }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [ready, setReady] = useState(0);
  const [height, setHeight] = useState(0);
  const theme = useTheme();
  const latest = useRef(props.set);
  latest.current = props.set;
  const key = props.field.key;
  // Before the frame can load: its first message must find the page listening.
  useLayoutEffect(() => {
    const onMessage = (event: MessageEvent) => {
      const element = frame.current;
      // Only this field's own frame, and only what its shape allows.
      if (element === null || event.source === null || event.source !== element.contentWindow) return;
      const message = rendererMessage(event.data, key);
      if (message === null) return;
      if (message.type === 'ready') setReady((n) => n + 1);
      else if (message.type === 'size') setHeight(message.height);
      else if (message.type === 'failed')
        onFail(message.stage === 'load' ? `its renderer did not load (${message.message})` : `its renderer failed (${message.message})`);
      // While a click is out (its fieldset disabled), the renderer changes nothing.
      else if (element.closest('fieldset:disabled') === null) latest.current(message.value as RawEdit);
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [key, onFail]);
  useEffect(() => {
    if (ready === 0) return;
    // The frame's origin is opaque: '*' is the only target there is; what is sent is this field's own.
    frame.current?.contentWindow?.postMessage(
      { golem: 'renderer', type: 'render', field: props.field, value: props.value, theme, instanceId: props.instanceId },
      '*',
    );
  }, [ready, props.field, props.value, props.instanceId, theme]);
  return (
    <div class="field field-custom" data-field-type={props.field.type} data-testid={`field-${props.field.key}`}>
      <div class="field-label" id={`${props.inputId}-label`}>
        {props.field.label}
      </div>
      <div class="custom-host" role="group" aria-labelledby={`${props.inputId}-label`} data-state={ready === 0 ? 'loading' : 'rendered'}>
        <iframe
          ref={frame}
          class="custom-frame"
          src={url}
          sandbox="allow-scripts"
          referrerpolicy="no-referrer"
          title={props.field.label}
          style={{ height: `${height}px` }}
        />
      </div>
    </div>
  );
}

function JsonFallback({ props, why }: { props: FieldProps; why: string }) {
  let text: string;
  try {
    text = props.value === undefined ? 'no value' : (JSON.stringify(props.value, null, 2) ?? 'no value');
  } catch {
    text = 'a value that is not JSON';
  }
  return (
    <DisplayShell props={props}>
      <pre class="ui-json" data-testid={`field-${props.field.key}-json`} tabIndex={0} aria-label={`${props.field.label} as JSON`}>
        {text}
      </pre>
      <p class="muted small" data-testid="field-fallback-note">
        Shown as JSON: {why}.
      </p>
    </DisplayShell>
  );
}

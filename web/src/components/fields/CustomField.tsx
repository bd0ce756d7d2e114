/**
 * A field of a type the page does not draw itself: the catalog's renderer for it (an ES module
 * of the server, imported once), called on mount and on every change; without one, or when it
 * fails, the field's value as JSON under its label.
 */
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { RawEdit } from '../../form-values.js';
import type { FieldConfig, Json } from '../../types.js';
import { currentTheme, UiContext } from '../../ui-context.js';
import { DisplayShell } from './Displays.js';
import type { FieldProps } from './field-props.js';

/** What a renderer module exports (docs/ui-catalog.md). */
interface RendererModule {
  render: (
    element: HTMLElement,
    context: { field: FieldConfig; value: Json | undefined; setValue: (value: Json) => void; theme: 'light' | 'dark'; instanceId: string },
  ) => void | (() => void);
}

const modules = new Map<string, Promise<RendererModule>>();

function loadRenderer(url: string): Promise<RendererModule> {
  let module = modules.get(url);
  if (module === undefined) {
    module = (import(/* @vite-ignore */ url) as Promise<Partial<RendererModule>>).then((m) => {
      if (typeof m.render !== 'function') throw new Error('the module exports no render function');
      return m as RendererModule;
    });
    modules.set(url, module);
  }
  return module;
}

export function CustomField(props: FieldProps) {
  const { catalog } = useContext(UiContext);
  const url = catalog.components.find((c) => c.type === props.field.type)?.renderer;
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => setFailed(null), [url]);
  if (url === undefined || failed !== null) return <JsonFallback props={props} why={failed ?? `no renderer for “${props.field.type}”`} />;
  return <Rendered props={props} url={url} onFail={setFailed} />;
}

function Rendered({ props, url, onFail }: { props: FieldProps; url: string; onFail: (why: string) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const [module, setModule] = useState<RendererModule | null>(null);
  const latest = useRef(props.set);
  latest.current = props.set;
  useEffect(() => {
    let live = true;
    loadRenderer(url).then(
      (m) => live && setModule(() => m),
      (error: unknown) => live && onFail(`its renderer did not load (${(error as Error).message})`),
    );
    return () => {
      live = false;
    };
  }, [url]);
  useEffect(() => {
    const element = host.current;
    if (module === null || element === null) return;
    let cleanup: void | (() => void);
    try {
      cleanup = module.render(element, {
        field: props.field,
        value: props.value,
        setValue: (value: Json) => latest.current(value as RawEdit),
        theme: currentTheme(),
        instanceId: props.instanceId,
      });
    } catch (error) {
      onFail(`its renderer failed (${(error as Error).message})`);
      return;
    }
    return () => {
      try {
        if (typeof cleanup === 'function') cleanup();
      } catch {
        // A renderer's cleanup that throws leaves nothing of ours behind.
      }
    };
  }, [module, props.field, props.value, props.instanceId]);
  return (
    <div class="field field-custom" data-field-type={props.field.type} data-testid={`field-${props.field.key}`}>
      <div class="field-label" id={`${props.inputId}-label`}>
        {props.field.label}
      </div>
      <div ref={host} class="custom-host" role="group" aria-labelledby={`${props.inputId}-label`} data-state={module === null ? 'loading' : 'rendered'} />
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

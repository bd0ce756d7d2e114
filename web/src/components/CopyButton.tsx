import { useEffect, useState } from 'preact/hooks';

/**
 * Puts text on the clipboard; says "Copied" for a moment (or that it could not), and tells a
 * screen reader so. `what` completes the name a screen reader hears ("Copy" the answer).
 */
export function CopyButton({ text, what, testId = 'copy' }: { text: string; what: string; testId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" class="link-btn copy-btn" data-testid={testId} data-state={state} onClick={() => void copy()}>
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
        <span class="sr-only"> {what}</span>
      </button>
      <span class="sr-only" role="status">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'The browser did not let the page copy' : ''}
      </span>
    </>
  );
}

/**
 * Esc stops a running answer, as the Stop button does: not while a dialog is open, nor when
 * the key belongs to what has focus (an element that handled it, a list that closes with it,
 * a box being typed in other than the message box).
 */
import { useEffect, useRef } from 'preact/hooks';

export function useEscapeToStop(active: boolean, stop: () => void): void {
  const state = useRef({ active, stop });
  state.current = { active, stop };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented || event.isComposing || !state.current.active) return;
      if (document.querySelector('[aria-modal="true"]') !== null) return;
      if (usesEscape(event.target)) return;
      event.preventDefault();
      state.current.stop();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

function usesEscape(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.dataset.testid === 'chat-input') return false; // the message box: Esc stops, as in the terminal
  return target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement || target.isContentEditable;
}

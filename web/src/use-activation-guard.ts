import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/**
 * How long the approving buttons of a prompt ignore presses: after it opens or changes, and
 * after any key typed or press attempted meanwhile. Chrome's permission prompts wait the
 * same (its double-click interval, 500 ms) before a press counts.
 */
export const ACTIVATION_DELAY_MS = 500;

/** What `useActivationGuard` gives a dialog. */
export interface ActivationGuard {
  /** The approving buttons take a press now (draw them as waiting until then). */
  armed: boolean;
  /** True when a press (a click, or Enter or Space on the button) counts; false when it is dropped, which restarts the wait. */
  allow: (event: Event) => boolean;
  /** A key typed in the dialog: not a press of an approving button, it restarts the wait (the user is still typing). */
  onKeyDown: (event: KeyboardEvent) => void;
}

/**
 * The rule browsers apply to their permission prompts (Chrome's InputEventActivationProtector):
 * an approving button ignores presses for `ACTIVATION_DELAY_MS` after the prompt opens or its
 * question changes (`key`), after a key typed in it, and after an earlier press in that time
 * (a double click, a held key). Presses by a real pointer wait too, as in Chrome: a double click
 * on the page must not land its second click on "Allow".
 */
export function useActivationGuard(key: string, approving: (target: EventTarget | null) => boolean): ActivationGuard {
  const since = useRef(performance.now());
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [armed, setArmed] = useState(false);

  const wait = useCallback(() => {
    since.current = performance.now();
    setArmed(false);
    clearTimeout(timer.current);
    const arm = () => {
      const left = ACTIVATION_DELAY_MS - (performance.now() - since.current);
      if (left > 0) timer.current = setTimeout(arm, left);
      else setArmed(true);
    };
    timer.current = setTimeout(arm, ACTIVATION_DELAY_MS);
  }, []);

  useEffect(() => {
    wait();
    return () => clearTimeout(timer.current);
  }, [key, wait]);

  return {
    armed,
    allow: (event) => {
      const ok = performance.now() - since.current >= ACTIVATION_DELAY_MS;
      if (!ok) {
        event.preventDefault();
        wait();
      }
      return ok;
    },
    onKeyDown: (event) => {
      // Moving between buttons is not typing; a press of an approving button is judged by `allow`, except a held key's repeats.
      if (['Tab', 'Shift', 'Control', 'Alt', 'Meta'].includes(event.key)) return;
      const press = (event.key === 'Enter' || event.key === ' ') && approving(event.target);
      if (press && !event.repeat) return;
      if (press) event.preventDefault();
      wait();
    },
  };
}

/**
 * The height the page can use: on a phone, the screen less the on-screen keyboard, so the
 * message box stays above it (styles.css reads --app-height). A pinch zoom leaves it alone.
 */
export function followVisibleHeight(): void {
  const visible = window.visualViewport;
  if (visible === null || visible === undefined) return;
  const set = () => document.documentElement.style.setProperty('--app-height', `${Math.round(visible.height * visible.scale)}px`);
  visible.addEventListener('resize', set);
  set();
}

/**
 * The page's colour theme: light, dark, or the system's (`prefers-color-scheme`), kept in
 * localStorage. styles.css gives each colour as a light-dark() pair and sets `color-scheme` from
 * `data-theme` ("light" or "dark"); "system" sets no attribute, and the system's scheme decides.
 */
export type ThemeChoice = 'light' | 'dark' | 'system';

const KEY = 'golem.theme';

export function readTheme(): ThemeChoice {
  try {
    const stored = localStorage.getItem(KEY);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    return 'system'; // storage refused (a locked-down browser): the system's
  }
}

export function applyTheme(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}

export function chooseTheme(choice: ThemeChoice): void {
  try {
    if (choice === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // Not kept: it still applies to this page.
  }
  applyTheme(choice);
}

import { useState } from 'preact/hooks';
import { chooseTheme, readTheme, type ThemeChoice } from '../theme.js';

const CHOICES: { value: ThemeChoice; label: string }[] = [
  { value: 'system', label: '◐ System' },
  { value: 'light', label: '☀ Light' },
  { value: 'dark', label: '☾ Dark' },
];

/** Light, dark or the system's; kept across visits. */
export function ThemeToggle() {
  const [choice, setChoice] = useState<ThemeChoice>(readTheme);
  return (
    <select
      class="theme-toggle"
      data-testid="theme-toggle"
      aria-label="Colour theme"
      title="Colour theme"
      value={choice}
      onChange={(e) => {
        const value = e.currentTarget.value;
        const next = CHOICES.find((c) => c.value === value)?.value ?? 'system';
        chooseTheme(next);
        setChoice(next);
      }}
    >
      {CHOICES.map((c) => (
        <option key={c.value} value={c.value}>
          {c.label}
        </option>
      ))}
    </select>
  );
}

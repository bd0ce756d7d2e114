/**
 * Text for the terminal: the styles it is painted in (ANSI SGR codes), and no control
 * characters from model or tool text.
 */

/** A style the terminal adapter paints text in. */
export type Style = 'bold' | 'dim' | 'italic' | 'underline' | 'strike' | 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan';

const SGR: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  italic: [3, 23],
  underline: [4, 24],
  strike: [9, 29],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
};

/** The text between the ANSI codes that set and reset `style`. */
export function sgr(style: Style, text: string): string {
  const [open, close] = SGR[style];
  return `\x1b[${open}m${text}\x1b[${close}m`;
}

/** The text in all of `styles` at once, every attribute reset after it. */
export function sgrAll(styles: readonly Style[], text: string): string {
  if (styles.length === 0 || text === '') return text;
  return `\x1b[${styles.map((s) => SGR[s][0]).join(';')}m${text}\x1b[0m`;
}

/**
 * Whether to paint in colors: FORCE_COLOR (other than `0` or `false`) turns them on, and
 * takes precedence over NO_COLOR, as in Node; NO_COLOR (not empty) turns them off; else a
 * terminal gets them and other outputs do not.
 */
export function colorsWanted(env: NodeJS.ProcessEnv, terminal: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '0' && force.toLowerCase() !== 'false') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return terminal;
}

/** Drops control characters (escape sequences among them) except newlines and tabs. */
export function sanitize(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
}

/** The text without the ANSI style codes `sgr` adds. */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

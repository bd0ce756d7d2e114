/**
 * Text for the terminal: the styles it is painted in (ANSI SGR codes), and no control
 * characters from model or tool text.
 */

/** A style the terminal adapter paints text in. */
export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan';

const SGR: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};

/** The text between the ANSI codes that set and reset `style`. */
export function sgr(style: Style, text: string): string {
  const [open, close] = SGR[style];
  return `\x1b[${open}m${text}\x1b[${close}m`;
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

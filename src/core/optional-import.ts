/**
 * Loads a package that only one part of Golem needs (pg, playwright-core, hono, ws, unpdf):
 * they are optional peer dependencies, so a missing one fails with a typed error that says
 * what to install, when that part is first used, never when `golem` is imported.
 */
import { GolemError, type ErrorCode } from './errors.js';

/**
 * Runs `load` (a literal `import('…')`, so bundlers still see it) and turns "that package is
 * not installed" into a GolemError with `code` naming the packages to install.
 *
 * @example
 * const { Hono } = await importOptional(() => import('hono'), { packages: ['hono'], purpose: 'golem serve' })
 */
export async function importOptional<T>(load: () => Promise<T>, need: { packages: readonly string[]; purpose: string; code?: ErrorCode }): Promise<T> {
  try {
    return await load();
  } catch (cause) {
    const missing = need.packages.find((name) => isMissing(cause, name));
    if (missing === undefined) throw cause;
    throw new GolemError(
      need.code ?? 'DEPENDENCY_MISSING',
      `${need.purpose} needs the package${need.packages.length > 1 ? 's' : ''} ${need.packages.join(', ')} (npm install ${need.packages.join(' ')})`,
      {
        cause,
        details: { packages: [...need.packages], missing },
      },
    );
  }
}

function isMissing(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && (message.includes(`'${name}'`) || message.includes(`"${name}"`) || message.includes(`/node_modules/${name}/`));
}

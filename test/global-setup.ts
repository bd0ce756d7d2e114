import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';

const LOCK = 'dist/.build-lock';

/**
 * Builds dist/ and the page (dist/web) once, so the tests can run the real `golem` binary and
 * `golem serve`'s page. Runs started side by side in one tree take turns (a lock directory), and
 * the page is built aside and swapped in, so a run in progress is never served a half-built page.
 */
export default async function setup(): Promise<void> {
  mkdirSync('dist', { recursive: true });
  for (let waited = 0; ; waited += 200) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (waited > 300_000) rmSync(LOCK, { recursive: true, force: true }); // left by a killed run
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
    const aside = resolve(`dist/web.${process.pid}`);
    execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn', '--outDir', aside], {
      stdio: 'inherit',
    });
    rmSync('dist/web', { recursive: true, force: true });
    renameSync(aside, 'dist/web');
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

import { execFileSync } from 'node:child_process';

/** Builds dist/ and the page (dist/web) once, so the tests can run the real `golem` binary and `golem serve`'s page. */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], { stdio: 'inherit' });
}

import { execFileSync } from 'node:child_process';

/** Builds dist/ once, so the tests can run the real `golem` binary. */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}

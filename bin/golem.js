#!/usr/bin/env node
// The `golem` command. The TypeScript sources are compiled to dist/ by `npm install` (the prepare script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('golem: dist/ is missing; run `npm install` (or `npm run build`) in the Golem folder first\n');
  process.exit(1);
}
const { run } = await import(entry.href);
const code = await run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
});
process.exitCode = code;

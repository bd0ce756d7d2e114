/**
 * The guards that keep Golem's shape (issue 17), run with every `npm test` and so in CI:
 * the parts' layering, no import cycle, no long file, lint clean, and the package as users
 * install it (`npm pack`): the root and every subpath import, and the root loads no heavy package.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importGraph, problemsOf } from '../scripts/import-graph.js';

const ROOT = resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
/** The optional peers of the parts (vitest is the conformance suites' peer, not a part's). */
const PEERS = Object.keys(pkg.peerDependencies).filter((name) => name !== 'vitest');
/** What `golem` must not load: the parts' peers, the model providers and the tokenizer (each loaded by the part that uses it, when used), and MCP. */
const HEAVY = [
  ...PEERS,
  ...Object.keys(pkg.dependencies).filter((name) => name.startsWith('@ai-sdk/') && name !== '@ai-sdk/provider'),
  'gpt-tokenizer',
  '@modelcontextprotocol/sdk',
];

describe('the layering', () => {
  it('has no part importing one above it, no cycle, no file over 500 lines, no file outside a part', () => {
    const report = importGraph(join(ROOT, 'src'), { extraDirs: [join(ROOT, 'web', 'src')] });
    expect(problemsOf(report)).toEqual([]);
    // The core is the bottom: it imports no other part.
    expect(report.parts.core ?? {}).toEqual({});
  });

  it('lints clean, the part-boundary, cycle and max-lines rules included', { timeout: 300_000 }, async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const results = await eslint.lintFiles(['.']);
    const problems = results.flatMap((r) =>
      r.messages.filter((m) => m.severity === 2).map((m) => `${r.filePath.slice(ROOT.length + 1)}:${m.line} ${m.ruleId ?? ''} ${m.message}`),
    );
    expect(problems).toEqual([]);
  });
});

describe('the layout', () => {
  it('is what Prettier makes of it (npm run format)', { timeout: 120_000 }, () => {
    const check = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '--list-different', '.'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(check.stdout.split('\n').filter((line) => line !== '')).toEqual([]);
    expect(check.status).toBe(0);
  });
});

describe('the package as users install it', () => {
  let project: string;
  const scratch: string[] = [];
  afterAll(() => {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });
  const node = (file: string) => execFileSync(process.execPath, [file], { cwd: project, encoding: 'utf8' });
  const loaded = (file: string): string[] =>
    JSON.parse(
      execFileSync(process.execPath, [join(ROOT, 'test', 'fixtures', 'loaded-packages.mjs'), join(project, file)], { cwd: project, encoding: 'utf8' }),
    ) as string[];
  /** Installs a package of this tree into the scratch project (a link: it resolves its own dependencies from this tree, as npm would have installed them). */
  const link = (name: string) => {
    const target = join(project, 'node_modules', name);
    if (existsSync(target)) return;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), target);
  };

  beforeAll(() => {
    // npm pack, then install the tarball into a scratch project with Golem's production dependencies only (the ones
    // npm would install for a user; no network): none of the optional peers, none of the dev dependencies.
    const packed = mkdtempSync(join(tmpdir(), 'golem-pack-'));
    const [{ filename }] = JSON.parse(
      execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packed], { cwd: ROOT, encoding: 'utf8' }),
    ) as [{ filename: string }];
    project = mkdtempSync(join(tmpdir(), 'golem-installed-'));
    scratch.push(packed, project);
    mkdirSync(join(project, 'node_modules'));
    execFileSync('tar', ['-xzf', join(packed, filename), '-C', project]);
    execFileSync('mv', [join(project, 'package'), join(project, 'node_modules', 'golem')]);
    const listed = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' }).stdout;
    for (const path of listed.split('\n')) {
      const match = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(relative(ROOT, path));
      if (match?.[1] !== undefined) link(match[1]);
    }
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', type: 'module', private: true }));
  }, 120_000);

  it('installs none of the optional peers or dev dependencies', () => {
    const installed = readdirSync(join(project, 'node_modules'));
    expect(installed).toContain('zod');
    expect(PEERS).toEqual(expect.arrayContaining(['pg', 'playwright-core', 'hono', '@hono/node-server', 'ws', 'unpdf', '@modelcontextprotocol/sdk']));
    expect(installed.filter((name) => [...PEERS, 'vitest', 'typescript'].includes(name) || name === '@hono')).toEqual([]);
  });

  it('exports the root and each subpath, and each one works', () => {
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', './browser', './mcp', './package.json', './postgres', './serve', './test', './test/conformance']);
    link('@modelcontextprotocol/sdk'); // golem/mcp's optional peer: a user of it has it
    link('vitest'); // the conformance suites' optional peer: a user running them has it
    writeFileSync(
      join(project, 'use.mjs'),
      `import { createWorkspace, GolemError } from 'golem';
import { postgresStore, PostgresBlobStorage } from 'golem/postgres';
import { BrowserExecutor, compactSnapshot } from 'golem/browser';
import { serve, UIStream } from 'golem/serve';
import { readMcpConfig } from 'golem/mcp';
import { scriptedModel } from 'golem/test';
import { describeStoreConformance } from 'golem/test/conformance';
const ws = await createWorkspace();
const s = await ws.sessions.create();
await s.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'hi' }] });
await ws.close();
console.log(JSON.stringify({ turns: (await s.transcript()).length, kinds: [typeof GolemError, typeof postgresStore, typeof PostgresBlobStorage, typeof BrowserExecutor, typeof compactSnapshot, typeof serve, typeof UIStream, typeof scriptedModel, typeof describeStoreConformance, typeof readMcpConfig] }));
`,
    );
    expect(JSON.parse(node('use.mjs'))).toEqual({ turns: 1, kinds: Array(10).fill('function') });
    // Taken away again: the next test uses the parts without their peers.
    rmSync(join(project, 'node_modules', '@modelcontextprotocol', 'sdk'));
  });

  it('says what to install when a part is used without its optional peer', { timeout: 60_000 }, () => {
    writeFileSync(
      join(project, 'missing.mjs'),
      `import { createWorkspace } from 'golem';
import { serve } from 'golem/serve';
import { BrowserExecutor } from 'golem/browser';
const failure = async (run) => run().then(() => 'worked', (e) => ({ code: e.code, message: e.message }));
const ws = await createWorkspace();
const results = {
  serve: await failure(() => serve(ws)),
  mcp: await failure(() => ws.mcp.connect('x', { command: 'x' })),
  postgres: await failure(() => createWorkspace({ env: { GOLEM_DATABASE_URL: 'postgres://127.0.0.1:1/none' } })),
  browser: await failure(() => BrowserExecutor.launch({ executablePath: process.execPath })),
};
await ws.close();
console.log(JSON.stringify(results));
`,
    );
    expect(JSON.parse(node('missing.mjs'))).toEqual({
      serve: { code: 'DEPENDENCY_MISSING', message: 'golem serve needs the packages hono, @hono/node-server, ws (npm install hono @hono/node-server ws)' },
      postgres: { code: 'DEPENDENCY_MISSING', message: 'the PostgreSQL store needs the package pg (npm install pg)' },
      browser: { code: 'BROWSER_UNAVAILABLE', message: 'the browser executor needs the package playwright-core (npm install playwright-core)' },
      mcp: { code: 'DEPENDENCY_MISSING', message: 'MCP needs the package @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk)' },
    });
    // The same through the command a user runs.
    const cli = spawnSync(process.execPath, [join(project, 'node_modules', 'golem', 'bin', 'golem.js'), 'serve', '--port', '0'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toContain('npm install hono @hono/node-server ws');
  });

  it('types every entry for a TypeScript user, with and without the optional peers', { timeout: 120_000 }, () => {
    writeFileSync(
      join(project, 'use.ts'),
      `import { createWorkspace, type Workspace, type Session } from 'golem';
import { postgresStore, type PostgresStoreOptions } from 'golem/postgres';
import { BrowserExecutor, type ExecutionResult } from 'golem/browser';
import { serve, type GolemServer } from 'golem/serve';
import { scriptedModel } from 'golem/test';
import { describeStoreConformance } from 'golem/test/conformance';
export const use: [typeof createWorkspace, Workspace | Session, typeof postgresStore, PostgresStoreOptions, typeof BrowserExecutor, ExecutionResult, typeof serve, GolemServer, typeof scriptedModel, typeof describeStoreConformance] | undefined = undefined;
`,
    );
    const tsc = (skipLibCheck: boolean) => {
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', strict: true, noEmit: true, types: ['node'], skipLibCheck },
          files: ['use.ts'],
        }),
      );
      return spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { cwd: project, encoding: 'utf8' });
    };
    link('@types/node');
    // Without the peers, with the common skipLibCheck (tsc --init's default): the declarations Golem ships are sound.
    expect(tsc(true).stdout).toBe('');
    // With the peers and their types, checked to the last declaration file.
    for (const name of [...PEERS, '@types/pg', '@types/ws']) link(name);
    expect(tsc(false).stdout).toBe('');
  });

  it('loads none of the heavy packages when golem is imported', () => {
    writeFileSync(join(project, 'root.mjs'), "import 'golem';\n");
    const packages = loaded('root.mjs');
    expect(packages).toContain('zod'); // it does see what the root loads
    expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
    // The recorder sees a package loaded later, by a dynamic import, as the parts load theirs.
    writeFileSync(join(project, 'late.mjs'), "import 'golem';\nawait import('ws');\n");
    expect(loaded('late.mjs')).toContain('ws');
  });

  it('loads no vitest with golem/test (the conformance suites, which need it, are golem/test/conformance)', () => {
    writeFileSync(join(project, 'doubles.mjs'), "import 'golem/test';\n");
    expect(loaded('doubles.mjs').filter((p) => p === 'vitest' || p.startsWith('@vitest/'))).toEqual([]);
    writeFileSync(join(project, 'suites.mjs'), "import 'golem/test/conformance';\n");
    expect(loaded('suites.mjs')).toContain('vitest');
  });
});

/**
 * Prints Golem's import graph by part and checks the layering: a part imports only
 * parts below it (the order of PARTS), and no file imports itself back through others.
 *
 *   npm run graph            the part graph, then any violation; exits 1 on one
 *   npm run graph -- --json  the same as JSON (what test/guards.test.ts reads)
 *
 * Every import counts, `import type` and `export … from` included: a type is a coupling too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts, from the bottom up. A file in src/<part>/ may import src/<part below>/; src/<name>.ts files are parts of their own. */
export const PARTS = [
  'core',
  'store',
  'models',
  'prompt',
  'action',
  'protocol',
  'environment',
  'project',
  'agent',
  'browser',
  'ui',
  'mcp',
  'create-workspace',
  'test',
  'serve',
  'terminal',
  'cli',
  'index',
] as const;

export interface ImportEdge {
  from: string;
  to: string;
  /** The part of each end. */
  fromPart: string;
  toPart: string;
}

export interface GraphReport {
  /** part -> part -> number of imports */
  parts: Record<string, Record<string, number>>;
  /** Imports of a part above the importer's. */
  upward: ImportEdge[];
  /** Files in no known part. */
  unknown: string[];
  /** Each cycle of files (a strongly connected component of more than one file, or a file importing itself). */
  fileCycles: string[][];
  /** Files of over `maxLines` lines. */
  longFiles: { file: string; lines: number }[];
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.\.?\/[^'"]+)['"]|import\(\s*['"](\.\.?\/[^'"]+)['"]\s*\)/gm;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

export function partOf(srcDir: string, file: string): string {
  const rel = relative(srcDir, file).split('/');
  return rel.length === 1 ? rel[0]!.replace(/\.tsx?$/, '') : rel[0]!;
}

/** Reads every source file under `srcDir` (tests beside the code, `*.test.ts`, are left out: they may reach across parts). */
export function importGraph(srcDir: string, options: { maxLines?: number; extraDirs?: string[] } = {}): GraphReport {
  const maxLines = options.maxLines ?? 500;
  const files = walk(srcDir).filter((f) => !/\.test\.tsx?$/.test(f));
  const known = new Set(files);
  const rank = new Map<string, number>(PARTS.map((p, i) => [p, i]));
  const report: GraphReport = { parts: {}, upward: [], unknown: [], fileCycles: [], longFiles: [] };
  const edges = new Map<string, Set<string>>();
  for (const file of [...files, ...(options.extraDirs ?? []).flatMap(walk)]) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > maxLines) report.longFiles.push({ file: relative(process.cwd(), file), lines });
  }
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const fromPart = partOf(srcDir, file);
    if (!rank.has(fromPart)) report.unknown.push(relative(srcDir, file));
    const targets = new Set<string>();
    for (const match of text.matchAll(SPECIFIER)) {
      const spec = (match[1] ?? match[2])!;
      const base = resolve(dirname(file), spec);
      const target = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, join(base, 'index.ts')].find((c) => known.has(c));
      if (target === undefined) continue;
      targets.add(target);
      const toPart = partOf(srcDir, target);
      if (toPart === fromPart) continue;
      const row = (report.parts[fromPart] ??= {});
      row[toPart] = (row[toPart] ?? 0) + 1;
      if ((rank.get(toPart) ?? Infinity) > (rank.get(fromPart) ?? -1)) {
        report.upward.push({ from: relative(srcDir, file), to: relative(srcDir, target), fromPart, toPart });
      }
    }
    edges.set(file, targets);
  }
  report.fileCycles = cycles(edges).map((c) => c.map((f) => relative(srcDir, f)));
  return report;
}

/** Tarjan's strongly connected components; those of two or more files (or a self-import) are cycles. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges.get(v)?.has(v)) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

function main(): number {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const report = importGraph(join(root, 'src'), { extraDirs: [join(root, 'web', 'src')] });
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log('Parts, bottom up, and what each imports:');
    for (const part of PARTS) {
      const row = report.parts[part];
      const uses = row === undefined ? '(nothing)' : Object.entries(row).map(([p, n]) => `${p} ${n}`).join(', ');
      console.log(`  ${part.padEnd(17)} -> ${uses}`);
    }
    for (const e of report.upward) console.log(`UPWARD  ${e.from} (${e.fromPart}) imports ${e.to} (${e.toPart})`);
    for (const f of report.unknown) console.log(`UNKNOWN ${f} is in no part of PARTS`);
    for (const c of report.fileCycles) console.log(`CYCLE   ${c.join(' -> ')}`);
    for (const f of report.longFiles) console.log(`LONG    ${f.file}: ${f.lines} lines (over 500)`);
    const problems = report.upward.length + report.unknown.length + report.fileCycles.length + report.longFiles.length;
    console.log(problems === 0 ? 'No part imports one above it, no cycle, no file over 500 lines.' : `${problems} problem(s).`);
  }
  return report.upward.length + report.unknown.length + report.fileCycles.length + report.longFiles.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();

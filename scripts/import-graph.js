// @ts-check
/**
 * Golem's import graph by part, and the layering it must keep: a part imports only parts
 * below it (the order of PARTS), no file imports itself back through others, and no source
 * file is over 500 lines. ESLint's part-boundary and cycle rules (scripts/eslint-plugin-golem.js)
 * and test/guards.test.ts read the same graph.
 *
 *   npm run graph            the part graph, then any problem; exits 1 on one
 *   npm run graph -- --json  the same as JSON
 *
 * Every import counts, `import type` and `export … from` included: a type is a coupling too.
 * Tests beside the code (`*.test.ts`) are left out: they may reach across parts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts, from the bottom up. `src/<part>/…` belongs to `<part>`; a file `src/<name>.ts` is a part of its own. */
export const PARTS = /** @type {const} */ ([
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
]);

/** The longest a file in `src/` or `web/src/` may be. */
export const MAX_LINES = 500;

const RANK = new Map(PARTS.map((part, i) => [/** @type {string} */ (part), i]));
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.\.?\/[^'"]+)['"]|import\(\s*['"](\.\.?\/[^'"]+)['"]\s*\)/gm;

/** @param {string} dir @returns {string[]} */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The part a file of `srcDir` belongs to. @param {string} srcDir @param {string} file */
export function partOf(srcDir, file) {
  const rel = relative(srcDir, file).split(/[\\/]/);
  return rel.length === 1 ? /** @type {string} */ (rel[0]).replace(/\.tsx?$/, '') : /** @type {string} */ (rel[0]);
}

/** Whether `from` may import `to`: its own part, or one below it. @param {string} from @param {string} to */
export function mayImport(from, to) {
  const a = RANK.get(from);
  const b = RANK.get(to);
  return from === to || (a !== undefined && b !== undefined && b < a);
}

/**
 * The source file a relative specifier names, or undefined (a package, or no such file).
 * @param {string} file @param {string} specifier @param {(path: string) => boolean} exists
 */
export function resolveSpecifier(file, specifier, exists) {
  const base = resolve(dirname(file), specifier);
  return [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, join(base, 'index.ts')].find(exists);
}

/** The relative specifiers a file's text imports or re-exports. @param {string} text */
export function specifiersOf(text) {
  return [...text.matchAll(SPECIFIER)].map((m) => /** @type {string} */ (m[1] ?? m[2]));
}

/**
 * @typedef {{ from: string, to: string, fromPart: string, toPart: string }} ImportEdge
 * @typedef {{
 *   parts: Record<string, Record<string, number>>,
 *   upward: ImportEdge[],
 *   unknown: string[],
 *   fileCycles: string[][],
 *   longFiles: { file: string, lines: number }[],
 * }} GraphReport
 */

/**
 * Reads every source file under `srcDir` (and counts the lines of `extraDirs`' files too).
 * @param {string} srcDir @param {{ extraDirs?: string[] }} [options]
 * @returns {GraphReport & { edges: Map<string, Set<string>> }}
 */
export function importGraph(srcDir, options = {}) {
  const files = walk(srcDir).filter((f) => !/\.test\.tsx?$/.test(f));
  const known = new Set(files);
  /** @type {GraphReport & { edges: Map<string, Set<string>> }} */
  const report = { parts: {}, upward: [], unknown: [], fileCycles: [], longFiles: [], edges: new Map() };
  for (const file of [...files, ...(options.extraDirs ?? []).flatMap(walk)]) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) report.longFiles.push({ file: relative(process.cwd(), file), lines });
  }
  for (const file of files) {
    const fromPart = partOf(srcDir, file);
    if (!RANK.has(fromPart)) report.unknown.push(relative(srcDir, file));
    /** @type {Set<string>} */
    const targets = new Set();
    for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
      const target = resolveSpecifier(file, specifier, (p) => known.has(p));
      if (target === undefined) continue;
      targets.add(target);
      const toPart = partOf(srcDir, target);
      if (toPart === fromPart) continue;
      const row = (report.parts[fromPart] ??= {});
      row[toPart] = (row[toPart] ?? 0) + 1;
      if (!mayImport(fromPart, toPart) && RANK.has(fromPart))
        report.upward.push({ from: relative(srcDir, file), to: relative(srcDir, target), fromPart, toPart });
    }
    report.edges.set(file, targets);
  }
  report.fileCycles = cycles(report.edges).map((c) => c.map((f) => relative(srcDir, f)));
  return report;
}

/**
 * Tarjan's strongly connected components; those of two or more files, or a file importing itself, are cycles.
 * @param {Map<string, Set<string>>} edges @returns {string[][]}
 */
export function cycles(edges) {
  let next = 0;
  /** @type {Map<string, number>} */ const index = new Map();
  /** @type {Map<string, number>} */ const low = new Map();
  /** @type {string[]} */ const stack = [];
  const onStack = new Set();
  /** @type {string[][]} */ const found = [];
  /** @param {string} v */
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(/** @type {number} */ (low.get(v)), /** @type {number} */ (low.get(w))));
      } else if (onStack.has(w)) low.set(v, Math.min(/** @type {number} */ (low.get(v)), /** @type {number} */ (index.get(w))));
    }
    if (low.get(v) === index.get(v)) {
      /** @type {string[]} */ const component = [];
      let w;
      do {
        w = /** @type {string} */ (stack.pop());
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges.get(v)?.has(v)) found.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The problems of a report, one line each (empty: the layering holds). @param {GraphReport} report */
export function problemsOf(report) {
  return [
    ...report.upward.map((e) => `UPWARD  ${e.from} (${e.fromPart}) imports ${e.to} (${e.toPart})`),
    ...report.unknown.map((f) => `UNKNOWN ${f} is in no part of PARTS (scripts/import-graph.js)`),
    ...report.fileCycles.map((c) => `CYCLE   ${c.join(' -> ')}`),
    ...report.longFiles.map((f) => `LONG    ${f.file}: ${f.lines} lines (over ${MAX_LINES})`),
  ];
}

function main() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const { edges: _edges, ...report } = importGraph(join(root, 'src'), { extraDirs: [join(root, 'web', 'src')] });
  const problems = problemsOf(report);
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ ...report, problems }, null, 2));
  } else {
    console.log('Parts, bottom up, and what each imports:');
    for (const part of PARTS) {
      const row = report.parts[part];
      const uses =
        row === undefined
          ? '(nothing)'
          : Object.entries(row)
              .map(([p, n]) => `${p} ${n}`)
              .join(', ');
      console.log(`  ${part.padEnd(17)} -> ${uses}`);
    }
    for (const line of problems) console.log(line);
    console.log(problems.length === 0 ? `No part imports one above it, no cycle, no file over ${MAX_LINES} lines.` : `${problems.length} problem(s).`);
  }
  return problems.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();

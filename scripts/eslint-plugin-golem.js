// @ts-check
/**
 * Golem's own ESLint rules, which keep the parts' layering (scripts/import-graph.js holds the order):
 * - `golem/part-boundaries`: a file in src/<part>/ imports only its own part and the parts below it.
 * - `golem/no-import-cycle`: no import closes a cycle of files.
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { cycles, importGraph, mayImport, PARTS, partOf, resolveSpecifier } from './import-graph.js';

const SRC = resolve(import.meta.dirname, '..', 'src');
const ORDER = PARTS.join(' < ');

/** @param {string} file */
const inSrc = (file) => !relative(SRC, file).startsWith('..') && !/\.test\.tsx?$/.test(file);

/**
 * The import-like nodes of a file, each with its literal source.
 * @param {(node: import('estree').Node, source: string) => void} check
 */
function visitors(check) {
  /** @param {any} node */
  const withSource = (node) => {
    const source = node.source;
    if (source?.type === 'Literal' && typeof source.value === 'string' && source.value.startsWith('.')) check(node, source.value);
  };
  return { ImportDeclaration: withSource, ExportNamedDeclaration: withSource, ExportAllDeclaration: withSource, ImportExpression: withSource };
}

/** @type {{ at: number, inCycle: Map<string, Set<string>> } | undefined} */
let cached;
/** Each file in a cycle, with the other files of its cycle; read again after a second, so an editor's long session sees changes. */
function cycleMembers() {
  if (cached === undefined || Date.now() - cached.at > 1000) {
    const { edges } = importGraph(SRC);
    const inCycle = new Map();
    for (const component of cycles(edges)) {
      const members = new Set(component);
      for (const file of component) inCycle.set(file, members);
    }
    cached = { at: Date.now(), inCycle };
  }
  return cached.inCycle;
}

/** @type {import('eslint').ESLint.Plugin} */
const plugin = {
  meta: { name: 'golem' },
  rules: {
    'part-boundaries': {
      meta: {
        type: 'problem',
        docs: { description: 'A part of src/ imports only its own part and the parts below it.' },
        messages: { upward: 'src/{{from}} may not import src/{{to}}: a part imports only the parts below it ({{order}}).' },
        schema: [],
      },
      create(context) {
        const file = context.filename;
        if (!inSrc(file)) return {};
        const from = partOf(SRC, file);
        return visitors((node, specifier) => {
          const target = resolveSpecifier(file, specifier, existsSync);
          if (target === undefined || !inSrc(target)) return;
          const to = partOf(SRC, target);
          if (!mayImport(from, to)) context.report({ node, messageId: 'upward', data: { from, to, order: ORDER } });
        });
      },
    },
    'no-import-cycle': {
      meta: {
        type: 'problem',
        docs: { description: 'No import closes a cycle of files in src/.' },
        messages: { cycle: 'This import closes a cycle: {{files}}.' },
        schema: [],
      },
      create(context) {
        const file = context.filename;
        if (!inSrc(file)) return {};
        const members = cycleMembers().get(file);
        if (members === undefined) return {};
        return visitors((node, specifier) => {
          const target = resolveSpecifier(file, specifier, existsSync);
          if (target !== undefined && members.has(target)) {
            context.report({ node, messageId: 'cycle', data: { files: [...members].map((f) => relative(join(SRC, '..'), f)).join(' -> ') } });
          }
        });
      },
    },
  },
};

export default plugin;

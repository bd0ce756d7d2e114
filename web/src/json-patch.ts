/**
 * RFC 6902 (add, remove, replace, test) over JSON Pointers (RFC 6901), applied to a copy:
 * the document given is never changed, so a failing operation leaves the page's state as it was.
 */
import type { Json, PatchOp } from './types.js';

export class PatchError extends Error {}

type Container = Json[] | { [key: string]: Json };

export function applyPatch<T>(doc: T, ops: readonly PatchOp[]): T {
  let root = structuredClone(doc) as unknown as Json;
  for (const op of ops) root = applyOne(root, op);
  return root as unknown as T;
}

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`"${pointer}" is not a JSON Pointer`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function applyOne(root: Json, op: PatchOp): Json {
  const tokens = parsePointer(op.path);
  const last = tokens.at(-1);
  if (op.op === 'test') {
    if (!deepEqual(resolve(root, tokens), op.value ?? null)) throw new PatchError(`test failed at "${op.path}"`);
    return root;
  }
  if (last === undefined) {
    // The whole document.
    if (op.op === 'remove') throw new PatchError('cannot remove the root');
    if (op.op === 'add' || op.op === 'replace') return structuredClone(op.value ?? null);
    throw new PatchError(`unsupported operation "${op.op}"`);
  }
  const parent = resolve(root, tokens.slice(0, -1));
  if (parent === null || typeof parent !== 'object') throw new PatchError(`no container at "${op.path}"`);
  const container = parent as Container;
  switch (op.op) {
    case 'add':
      if (Array.isArray(container)) {
        const index = last === '-' ? container.length : arrayIndex(last, container.length + 1);
        container.splice(index, 0, structuredClone(op.value ?? null));
      } else container[last] = structuredClone(op.value ?? null);
      return root;
    case 'remove':
    case 'replace':
      if (Array.isArray(container)) {
        const index = arrayIndex(last, container.length);
        if (op.op === 'remove') container.splice(index, 1);
        else container[index] = structuredClone(op.value ?? null);
      } else {
        if (!Object.hasOwn(container, last)) throw new PatchError(`nothing at "${op.path}"`);
        if (op.op === 'remove') delete container[last];
        else container[last] = structuredClone(op.value ?? null);
      }
      return root;
    default:
      throw new PatchError(`unsupported operation "${op.op}"`);
  }
}

function resolve(root: Json, tokens: readonly string[]): Json {
  let node: Json = root;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[arrayIndex(token, node.length)] as Json;
    else if (node !== null && typeof node === 'object' && Object.hasOwn(node, token)) node = node[token] as Json;
    else throw new PatchError(`no "${token}" in the document`);
  }
  return node;
}

function arrayIndex(token: string, bound: number): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`"${token}" is not an array index`);
  const index = Number(token);
  if (index >= bound) throw new PatchError(`index ${index} is out of range`);
  return index;
}

export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const bo = b as Record<string, Json>;
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(bo, k) && deepEqual((a as Record<string, Json>)[k], bo[k]));
}

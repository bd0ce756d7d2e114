/**
 * RFC 6902 on the page, by a well-kept library (fast-json-patch: add, remove, replace, move,
 * copy, test; each operation checked first, a missing `value` refused rather than read as null),
 * applied to a copy: the document given is never changed, so a failing patch leaves the page's
 * state as it was (the store then asks for a snapshot).
 */
import { applyPatch as apply, type Operation } from 'fast-json-patch';
import type { PatchOp } from './types.js';

export class PatchError extends Error {}

export function applyPatch<T>(doc: T, ops: readonly PatchOp[]): T {
  try {
    // Validated, applied to a copy, and no "__proto__" or "constructor" path may reach a prototype.
    return apply(structuredClone(doc), ops as Operation[], true, true, true).newDocument;
  } catch (error) {
    throw new PatchError(error instanceof Error ? error.message : String(error));
  }
}

/** A JSON Pointer's tokens (RFC 6901); PatchError for what is not one. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchError(`"${pointer}" is not a JSON Pointer`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * A registered component's renderer, as the catalog keeps it: the module's code read once, at
 * `register`, with its sha256 (what the page is served, whatever the file becomes after), and
 * the real path it came from, which must not lie inside an agent's project: an agent allowed
 * to write files there could otherwise put its own code in front of the user.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fail, GolemError } from '../core/errors.js';

/** A renderer module as registered: its code, the code's sha256 (hex), and the file's real path. */
export interface RendererSnapshot {
  code: string;
  sha256: string;
  path: string;
}

/** The largest renderer module taken, in bytes. */
export const RENDERER_MAX_BYTES = 1024 * 1024;

/** The real path of a file or folder given as a path or a file: URL (symlinks resolved); FILE_NOT_FOUND when there is none. */
export function realPathOf(given: string | URL, what: string): string {
  let path: string;
  try {
    path = given instanceof URL || given.startsWith('file:') ? fileURLToPath(given) : resolve(given);
  } catch (cause) {
    throw new GolemError('INVALID_ARGUMENT', `${what} "${String(given)}" is not a path or a file: URL`, { cause });
  }
  try {
    return realpathSync(path);
  } catch (cause) {
    throw new GolemError('FILE_NOT_FOUND', `${what} "${path}" does not exist`, { cause, details: { path } });
  }
}

/** Whether `path` is `folder` or inside it (both real paths). */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The project of `projects` that holds `path`, if any. */
export function projectHolding(path: string, projects: Iterable<string>): string | undefined {
  for (const project of projects) if (isInside(path, project)) return project;
  return undefined;
}

/** RENDERER_IN_PROJECT, for the renderer of `type` at `path` inside `project`. */
export function rendererInProject(type: string, path: string, project: string): GolemError {
  return fail(
    'RENDERER_IN_PROJECT',
    `the renderer of "${type}" (${path}) is inside the agent's project ${project}, where the agent could rewrite it; keep renderers outside the project`,
    { type, path, project },
  );
}

/** Reads the renderer of `type` once: refused inside any of `projects`, missing, or too large. */
export function snapshotRenderer(type: string, given: string | URL, projects: Iterable<string>): RendererSnapshot {
  const path = realPathOf(given, `the renderer of "${type}"`);
  const project = projectHolding(path, projects);
  if (project !== undefined) throw rendererInProject(type, path, project);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (cause) {
    throw new GolemError('FILE_NOT_FOUND', `the renderer of "${type}" (${path}) cannot be read: ${(cause as Error).message}`, { cause, details: { path } });
  }
  if (bytes.byteLength > RENDERER_MAX_BYTES)
    throw fail('INVALID_ARGUMENT', `the renderer of "${type}" is ${bytes.byteLength} bytes; a renderer is at most ${RENDERER_MAX_BYTES}`, { path });
  let code: string;
  try {
    code = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new GolemError('INVALID_ARGUMENT', `the renderer of "${type}" (${path}) is not UTF-8 text`, { cause, details: { path } });
  }
  return { code, sha256: createHash('sha256').update(bytes).digest('hex'), path };
}

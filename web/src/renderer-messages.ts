/**
 * What a registered component's frame (src/serve/renderer-frame.ts) may tell the page, read
 * safely: the frame runs code the page does not trust, so every message is checked for its
 * shape, and a value for the field it belongs to and for being plain JSON, before anything is
 * done with it. Anything else is no message at all.
 */
import type { Json } from './types.js';

export type RendererMessage =
  { type: 'ready' } | { type: 'set'; value: Json } | { type: 'size'; height: number } | { type: 'failed'; stage: 'load' | 'render'; message: string };

/** The tallest a frame is drawn, in CSS pixels (past it, it scrolls inside). */
export const FRAME_MAX_HEIGHT = 2000;
/** How much a value a renderer sets may hold (nodes of the JSON tree) and how deep. */
const MAX_NODES = 10_000;
const MAX_DEPTH = 32;

/** The message `data` is, for the frame of the field `key`; null when it is not one. */
export function rendererMessage(data: unknown, key: string): RendererMessage | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const m = data as Record<string, unknown>;
  if (m.golem !== 'renderer') return null;
  if (m.type === 'ready') return { type: 'ready' };
  if (m.type === 'size')
    return typeof m.height === 'number' && Number.isFinite(m.height) && m.height >= 0
      ? { type: 'size', height: Math.min(Math.ceil(m.height), FRAME_MAX_HEIGHT) }
      : null;
  if (m.type === 'failed')
    return (m.stage === 'load' || m.stage === 'render') && typeof m.message === 'string'
      ? { type: 'failed', stage: m.stage, message: m.message.slice(0, 300) }
      : null;
  if (m.type === 'set') return m.key === key && isJson(m.value) ? { type: 'set', value: m.value } : null;
  return null;
}

/** Whether a value is plain JSON (no Date, Map, typed array or cycle), of a bounded size. */
function isJson(value: unknown): value is Json {
  let nodes = 0;
  const walk = (v: unknown, depth: number): boolean => {
    if (++nodes > MAX_NODES || depth > MAX_DEPTH) return false;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
    if (typeof v === 'number') return Number.isFinite(v);
    if (Array.isArray(v)) return v.every((item) => walk(item, depth + 1));
    if (typeof v !== 'object') return false;
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(v).every((item) => walk(item, depth + 1));
  };
  return walk(value, 0);
}

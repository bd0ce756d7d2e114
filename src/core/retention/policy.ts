/**
 * A retention policy: what a sweep (`ws.retention.apply`, `golem gc`) may remove. Every part
 * is optional, and a sweep never removes what something kept still needs (see `holds.ts`).
 */
import { z } from 'zod';
import { fail } from '../errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** An age: milliseconds, or a number with a unit ('90d', '12h', '30m', '45s', '2w', '500ms'). */
export const RetentionAge = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .regex(/^\d+(ms|s|m|h|d|w)$/, "an age is milliseconds or a number with a unit: '90d', '12h', '30m', '45s', '2w', '500ms'")
    .transform((text) => {
      const [, amount, unit] = /^(\d+)(ms|s|m|h|d|w)$/.exec(text) as RegExpExecArray;
      return Number(amount) * (UNITS[unit as string] as number);
    }),
]);

/** Which turns of a kept session stay: its active path only, or the path plus every version of its last `count` turns. */
export const TurnRetention = z.discriminatedUnion('keep', [
  z.strictObject({ keep: z.literal('path') }),
  z.strictObject({ keep: z.literal('last'), count: z.number().int().positive() }),
]);
export type TurnRetention = z.infer<typeof TurnRetention>;

/** What a sweep may remove: sessions idle too long, turns off the path, log entries too old. */
export const RetentionPolicy = z
  .strictObject({
    /** Delete sessions whose last change (`updatedAt`) is older than `idleFor`. */
    sessions: z.strictObject({ idleFor: RetentionAge }).optional(),
    /** In every session kept, remove the turn versions the policy does not keep and no one else sees. */
    turns: TurnRetention.optional(),
    /** Replace log entries older than `keepFor` by a checkpoint (stores that can compact their log). */
    log: z.strictObject({ keepFor: RetentionAge }).optional(),
    /** The most turns one command removes (default 500): a sweep is many small commands. */
    batch: z.number().int().positive().max(100_000).optional(),
  })
  .refine((p) => p.sessions !== undefined || p.turns !== undefined || p.log !== undefined, 'give at least one of sessions, turns or log');
/** A policy as a caller writes it (ages may be strings such as '90d'). */
export type RetentionPolicyInput = z.input<typeof RetentionPolicy>;
/** A policy parsed: every age in milliseconds. */
export type RetentionPolicy = z.output<typeof RetentionPolicy>;

/** The policy parsed, or INVALID_ARGUMENT saying what is wrong with it. */
export function parseRetentionPolicy(input: unknown): RetentionPolicy {
  const parsed = RetentionPolicy.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  const summary = issues.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`)).join('; ');
  throw fail('INVALID_ARGUMENT', `invalid retention policy: ${summary}`, { issues });
}

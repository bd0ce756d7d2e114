/**
 * Whether a bearer token given by its user (GOLEM_TOKEN, `serve({ token })`,
 * `createGolemHandler({ token })`) is hard enough to guess: the token lets its holder approve
 * the agent's commands, so one a guesser could find is refused, not warned about (a warning
 * scrolls by; a server that does not start gets its token fixed).
 *
 * The estimate: length × log2 of the smallest usual alphabet that holds every character
 * (digits 10, hex 16, lowercase and digits 36, letters and digits 62, base64url 64, printable
 * ASCII 95, else 95) must reach 128 bits, so 32 random hex characters or 22 base64url pass.
 * That counts a repeated letter as random, so two checks catch what it misses: a token that
 * is a shorter text repeated (`abab…`, `passwordpassword…`), and one whose characters are
 * mostly the same (under 2.5 bits of Shannon entropy a character, where a random 32-hex
 * token has about 3.6 and in a million draws never fell under 2.7).
 */
import { GolemError } from '../core/errors.js';

/** The fewest bits of guessing a token must take. */
export const MIN_TOKEN_BITS = 128;

/** What a user is told to run for a good token. */
const HOW = 'make one with `openssl rand -hex 32` (or `node -e "console.log(crypto.randomBytes(32).toString(\'hex\'))"`)';

const ALPHABETS: readonly [RegExp, number][] = [
  [/^[0-9]+$/, 10],
  [/^[0-9a-f]+$/, 16],
  [/^[0-9A-F]+$/, 16],
  [/^[0-9a-z]+$/, 36],
  [/^[0-9A-Z]+$/, 36],
  [/^[0-9A-Za-z]+$/, 62],
  [/^[0-9A-Za-z_-]+$/, 64],
];

/** The token's estimated strength in bits (length × log2 of the smallest usual alphabet holding it). */
export function tokenBits(token: string): number {
  const size = ALPHABETS.find(([pattern]) => pattern.test(token))?.[1] ?? 95;
  return [...token].length * Math.log2(size);
}

/** Why `token` is too easy to guess, or undefined when it is not. */
export function tokenWeakness(token: string): string | undefined {
  const bits = Math.floor(tokenBits(token));
  if (bits < MIN_TOKEN_BITS) return `it has about ${bits} bits of randomness; at least ${MIN_TOKEN_BITS} bits are needed`;
  if (isRepeated(token)) return 'it is a shorter text repeated';
  if (shannonBitsPerCharacter(token) < 2.5) return 'it is mostly the same few characters';
  return undefined;
}

/** What a user is told of a token too easy to guess (`name` says which: `GOLEM_TOKEN`), or undefined for a good one. The token itself is never echoed. */
export function weakTokenMessage(token: string, name = 'the token'): string | undefined {
  const weakness = tokenWeakness(token);
  return weakness === undefined ? undefined : `${name} is too easy to guess: ${weakness} (${MIN_TOKEN_BITS} bits of randomness); ${HOW}`;
}

/** Throws INVALID_ARGUMENT (see `weakTokenMessage`) when the token is too easy to guess. */
export function checkTokenStrength(token: string, name = 'the token'): void {
  const message = weakTokenMessage(token, name);
  if (message !== undefined) throw new GolemError('INVALID_ARGUMENT', message, { details: { minBits: MIN_TOKEN_BITS } });
}

function isRepeated(token: string): boolean {
  for (let period = 1; period <= token.length / 2; period++) {
    if (token.length % period === 0 && token.slice(0, period).repeat(token.length / period) === token) return true;
  }
  return false;
}

function shannonBitsPerCharacter(token: string): number {
  const characters = [...token];
  const counts = new Map<string, number>();
  for (const c of characters) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / characters.length) * Math.log2(n / characters.length);
  return bits;
}

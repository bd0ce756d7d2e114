/**
 * Whether a bearer token given by its user (GOLEM_TOKEN, `serve({ token })`,
 * `createGolemHandler({ token })`) is hard enough to guess: the token lets its holder approve
 * the agent's commands, so one a guesser could find is refused, not warned about (a warning
 * scrolls by; a server that does not start gets its token fixed).
 *
 * An estimate, not a measure (no one can tell a random token from a chosen one by looking):
 * length × log2 of the smallest usual alphabet that holds every character (digits 10, hex 16,
 * lowercase and digits 36, letters and digits 62, base64url 64, printable ASCII 95, else 95)
 * must reach 128 bits, so 32 random hex characters or 22 base64url pass. That counts a
 * patterned token as random, so three checks catch what it misses, each set far from where
 * random tokens fall:
 * - it compresses: deflate (fixed codes, so a small alphabet alone gains nothing) takes it
 *   under three quarters of its size, as it does a text repeated whole or in part (`abab…`,
 *   `passwordpasswordpass`); 32 random hex characters never went under 29 of 32 in 200,000 draws;
 * - it runs in sequence for a third of its characters or more (`abcd…`, `9876…`, rows of the
 *   keyboard such as `qwerty…` and `asdf…`), counting runs of 4 or more; random 32-hex tokens
 *   reached 7 of 32 at worst in 500,000 draws;
 * - its characters are mostly the same (under 2.5 bits of Shannon entropy a character, where
 *   a random 32-hex token has about 3.6 and in a million draws never fell under 2.7);
 * - it holds a placeholder's word (`replace-with-a-long-random-token`, `changeme…`), or is a
 *   phrase of words (`correct horse battery staple`, `my-golem-token-for-local-dev`).
 * A token derived from a guessable one (the hex of a hash of "password") still passes: no
 * look at a token can tell.
 */
import { deflateRawSync, constants } from 'node:zlib';
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

/** Why `token` is too easy to guess by the estimate (see above), or undefined when it is not. */
export function tokenWeakness(token: string): string | undefined {
  const bits = Math.floor(tokenBits(token));
  if (bits < MIN_TOKEN_BITS) return `its length and characters give an estimated ${bits} bits`;
  const characters = [...token];
  const size = Buffer.byteLength(token);
  const compressed = deflateRawSync(token, { level: 9, strategy: constants.Z_FIXED }).length;
  if (compressed < size * 0.75) return `it compresses to ${compressed} of its ${size} bytes, so much of it repeats`;
  if (sequentialCharacters(characters) * 3 >= characters.length) return 'much of it runs in sequence (like abcd, 4321 or qwerty)';
  if (shannonBitsPerCharacter(characters) < 2.5) return 'it is mostly the same few characters';
  if (PLACEHOLDER.test(token)) return 'it reads like a placeholder (change, replace, example, secret, password…), not a random token';
  if (
    token
      .split(/[\s_-]+/)
      .filter((part) => part !== '')
      .every((part) => /^[a-z]{2,}$/.test(part)) &&
    /[\s_-].*[\s_-]/.test(token)
  )
    return 'it is a phrase of words, which are guessed far faster than random characters';
  return undefined;
}

/**
 * Words of a placeholder left in a config ("replace-with-a-long-random-token") or a password:
 * six letters or more, so a random token holds one about once in a billion draws.
 */
const PLACEHOLDER = /change|replace|example|secret|password|please|insert|random/i;

/** What a user is told of a token too easy to guess (`name` says which: `GOLEM_TOKEN`), or undefined for a good one. The token itself is never echoed. */
export function weakTokenMessage(token: string, name = 'the token'): string | undefined {
  const weakness = tokenWeakness(token);
  return weakness === undefined
    ? undefined
    : `${name} looks too easy to guess: ${weakness}, and Golem wants an estimated ${MIN_TOKEN_BITS} bits of randomness or more; ${HOW}`;
}

/** Throws INVALID_ARGUMENT (see `weakTokenMessage`) when the token is too easy to guess. */
export function checkTokenStrength(token: string, name = 'the token'): void {
  const message = weakTokenMessage(token, name);
  if (message !== undefined) throw new GolemError('INVALID_ARGUMENT', message, { details: { minBits: MIN_TOKEN_BITS } });
}

/** Keyboard rows (US layout, lowercase), each key followed by its neighbour to the right. */
const KEYBOARD_ROWS = ['`1234567890-=', 'qwertyuiop[]\\', "asdfghjkl;'", 'zxcvbnm,./'];
const RIGHT_OF = new Map(KEYBOARD_ROWS.flatMap((row) => [...row].slice(1).map((key, i) => [row[i] as string, key] as const)));

/** The ways one character follows another in a sequence: the next or previous code point, the key to the right or left. */
const STEPS: readonly ((a: string, b: string) => boolean)[] = [
  (a, b) => b.codePointAt(0) === (a.codePointAt(0) ?? 0) + 1,
  (a, b) => b.codePointAt(0) === (a.codePointAt(0) ?? 0) - 1,
  (a, b) => RIGHT_OF.get(a.toLowerCase()) === b.toLowerCase(),
  (a, b) => RIGHT_OF.get(b.toLowerCase()) === a.toLowerCase(),
];

/** How many characters follow from the one before in a run of 4 or more taking the same step (a run's first is not counted). */
function sequentialCharacters(characters: readonly string[]): number {
  const following = new Set<number>();
  for (const step of STEPS) {
    let start = 0;
    for (let i = 1; i <= characters.length; i++) {
      if (i < characters.length && step(characters[i - 1] as string, characters[i] as string)) continue;
      if (i - start >= 4) for (let j = start + 1; j < i; j++) following.add(j);
      start = i;
    }
  }
  return following.size;
}

function shannonBitsPerCharacter(characters: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const c of characters) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / characters.length) * Math.log2(n / characters.length);
  return bits;
}

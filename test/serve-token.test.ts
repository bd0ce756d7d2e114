/**
 * The token of a real `golem serve` process, and what answers without it (issue 35, finding
 * 14): a GOLEM_TOKEN a guesser could find (short, one letter repeated, a word repeated whole
 * or in part, a run such as abcd… or qwerty…, mostly one character) is refused before anything
 * listens, with how to make a good one; a random one of 128 bits or more is taken. /health answers without the token, for load balancers,
 * and says only that the server is up: no version, path, count or name.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenWeakness } from '../src/serve/token-strength.js';
import { tempDir } from './helpers.js';
import { golemServe, killServe, until, type ServeProcess } from './helpers-serve-process.js';

const servers: ServeProcess[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await killServe(server);
});

function project(): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'script.json'), JSON.stringify([{ text: 'Hello.' }]));
  return dir;
}

async function started(env: Record<string, string> = {}): Promise<ServeProcess> {
  const server = await golemServe(project(), env);
  servers.push(server);
  return server;
}

/** What a `golem serve` that refused to start wrote, and that it did not print an address. */
async function refusedStart(token: string): Promise<string> {
  const failure = await golemServe(project(), { GOLEM_TOKEN: token }).then(
    (server) => {
      servers.push(server);
      return new Error('golem serve started');
    },
    (error: unknown) => error as Error,
  );
  return failure.message;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';
/** Weak by length and alphabet alone, or a text repeated whole. */
const WEAK = ['a'.repeat(16), 'a'.repeat(64), 'ab'.repeat(32), 'password'.repeat(6), `${'a'.repeat(63)}b`, randomBytes(8).toString('hex')];
/** Long enough by length and alphabet, but patterned: repeated in part, in sequence, a keyboard's rows. */
const PATTERNED = [
  ALPHABET.repeat(3).slice(0, 64),
  '0123456789'.repeat(7).slice(0, 64),
  `${'password'.repeat(5)}pass`,
  ((part) => `${part}${part}${randomBytes(4).toString('hex')}`)(randomBytes(8).toString('hex')), // 96 random bits, 40 hex characters
  `${ALPHABET}0123456789${ALPHABET.toUpperCase()}`,
  'zyxwvutsrqponmlkjihgfedcba9876543210',
  'qwertyuiopasdfghjklzxcvbnm1234567890',
  // A placeholder left in a config, or a phrase (found by a reviewer: they passed the estimate).
  'replace-with-a-long-random-token',
  'your_secret_token_here_please_change',
  'changeme-changeme-please-now-ok',
  'correct horse battery staple',
  'my-golem-token-for-local-dev-sessions',
];

describe('the token estimate', () => {
  it('finds every patterned token weak, and no random one of 128 bits or more (hex, base64url, printable)', () => {
    for (const token of [...WEAK, ...PATTERNED]) expect(tokenWeakness(token), token).toBeDefined();
    const printable = (n: number) => [...randomBytes(n)].map((b) => String.fromCharCode(33 + (b % 94))).join('');
    for (let i = 0; i < 2000; i++) {
      for (const token of [randomBytes(16).toString('hex'), randomBytes(32).toString('hex'), randomBytes(32).toString('base64url'), printable(24)])
        expect(tokenWeakness(token), token).toBeUndefined();
    }
  });
});

describe('GOLEM_TOKEN', () => {
  it('refuses a token a guesser could find, saying why and how to make one, before anything listens', async () => {
    for (const weak of [...WEAK, ...PATTERNED]) {
      const message = await refusedStart(weak);
      expect(message).toMatch(/^golem serve exited with 2: /);
      expect(message).toContain('GOLEM_TOKEN');
      expect(message).toContain('128 bits');
      expect(message).toContain('openssl rand -hex 32');
      // Nothing was served, and the token is not echoed back.
      expect(message).not.toContain('Open http');
      expect(message).not.toContain(weak);
    }
  });

  it('takes a random token of 128 bits (32 hex characters) or more, and the API wants exactly it', async () => {
    for (const token of [randomBytes(16).toString('hex'), randomBytes(32).toString('hex'), randomBytes(32).toString('base64url')]) {
      // GOLEM_TOKEN given here wins over the helper's own random one.
      const server = await started({ GOLEM_TOKEN: token });
      expect(server.output()).toContain(`#token=${token}`);
      const state = (headers: Record<string, string>) => fetch(`http://127.0.0.1:${server.port}/api/state`, { headers }).then((r) => r.status);
      expect(await state({ authorization: `Bearer ${token}` })).toBe(200);
      expect(await state({ authorization: `Bearer ${server.token}` })).toBe(401);
      expect(await state({})).toBe(401);
      await killServe(server);
    }
  });
});

describe('/health without the token', () => {
  it('answers 200 with { ok: true } and nothing else, before and after the workspace changes', async () => {
    const server = await started();
    const health = async () => {
      const response = await fetch(`http://127.0.0.1:${server.port}/health`);
      return { status: response.status, body: await response.text(), cache: response.headers.get('cache-control') };
    };
    expect(await health()).toEqual({ status: 200, body: '{"ok":true}', cache: 'no-store' });
    const created = await server.call('POST', '/api/sessions', { label: 'secret plans' });
    const sessionId = (created.json as { id: string }).id;
    expect(await server.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'Hi' })).toMatchObject({ status: 202 });
    await until('the answer', async () => {
      const detail = (await server.call('GET', `/api/sessions/${sessionId}`)).json as { running: boolean; turns: { text: string }[] };
      return !detail.running && detail.turns.at(-1)?.text === 'Hello.' ? true : undefined;
    });
    // Work done in between shows nowhere: no version, no count, no path, no label.
    expect(await health()).toEqual({ status: 200, body: '{"ok":true}', cache: 'no-store' });
  });
});

import { randomFillSync } from 'node:crypto';

const pool = new Uint8Array(16 * 256);
let offset = pool.length;
let lastMs = -1;
let counter = 0;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, with a
 * counter so ids made in the same millisecond still sort in creation order. Ids that
 * sort by time keep the store's key indexes appending at their right edge, so inserts
 * touch the same few pages however large the workspace grows.
 */
export function uuidv7(now: number = Date.now()): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + 16);
  offset += 16;
  if (now <= lastMs) {
    now = lastMs;
    counter = (counter + 1) & 0xfff;
    if (counter === 0) now = ++lastMs; // 4096 ids in one millisecond: borrow the next one
  } else {
    lastMs = now;
    counter = (bytes[6] as number) & 0x07; // start low, leaving room to count up
  }
  const ms = BigInt(now);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

import { randomFillSync } from 'node:crypto';

const pool = new Uint8Array(16 * 256);
let offset = pool.length;
let lastMs = -1;
let counter = 0;
/** Each byte's two hex digits. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

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
  // 48 bits of milliseconds: exact in a double, taken apart without BigInt.
  const high = Math.floor(now / 2 ** 24);
  const low = now % 2 ** 24;
  bytes[0] = (high >>> 16) & 0xff;
  bytes[1] = (high >>> 8) & 0xff;
  bytes[2] = high & 0xff;
  bytes[3] = (low >>> 16) & 0xff;
  bytes[4] = (low >>> 8) & 0xff;
  bytes[5] = low & 0xff;
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  let id = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) id += '-';
    id += HEX[bytes[i] as number] as string;
  }
  return id;
}

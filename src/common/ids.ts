import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID: 48-bit millisecond time then 80 random bits, Crockford base32, so ids sort by creation time. */
export function ulid(now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[bytes[i] % 32];
  return time + random;
}

export type IdPrefix = 'ws' | 'key' | 'otp' | 'render' | 'task' | 'proj' | 'bk' | 'wh' | 'asset' | 'evt' | 'dlv';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `count` random base62 characters without modulo bias. */
export function randomBase62(count: number): string {
  let out = '';
  while (out.length < count) {
    for (const byte of randomBytes(count * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === count) break;
    }
  }
  return out;
}

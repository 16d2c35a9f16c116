import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastTime = -1;
let lastRandom: number[] = [];

/**
 * A ULID: 48-bit millisecond time then 80 random bits, Crockford base32, so ids sort by creation
 * time. Monotonic within the process: a second id in the same millisecond (or after the clock
 * stepped back) takes the previous random part plus one, so it still sorts after the first.
 */
export function ulid(now = Date.now()): string {
  if (now <= lastTime) {
    now = lastTime;
    for (let i = lastRandom.length - 1; i >= 0; i--) {
      lastRandom[i] = (lastRandom[i] + 1) % 32;
      if (lastRandom[i] !== 0) break;
    }
  } else {
    lastTime = now;
    lastRandom = [...randomBytes(16)].map((byte) => byte % 32);
  }
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + lastRandom.map((digit) => CROCKFORD[digit]).join('');
}

export type IdPrefix = 'ws' | 'key' | 'otp' | 'render' | 'task' | 'proj' | 'bk' | 'wh' | 'asset' | 'evt' | 'dlv' | 'aud' | 'batch';

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

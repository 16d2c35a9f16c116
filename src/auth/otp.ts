import { randomBytes, randomInt, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export const OTP_TTL_MS = 15 * 60_000;
export const OTP_MAX_FAILED_ATTEMPTS = 5;

export function generateOtp(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/** `scrypt$<salt>$<hash>`: a salted, deliberately slow hash so a leaked table does not give codes away. */
export async function hashOtp(code: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(code, salt, 32);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyOtp(code: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(code, Buffer.from(salt, 'base64url'), expected.length);
  return timingSafeEqual(actual, expected);
}

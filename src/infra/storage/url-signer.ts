import { createHmac, createSecretKey, KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

/** What a signed `/v1/files/` URL permits. Every field is covered by the signature. */
export interface FileGrant {
  method: 'GET' | 'PUT';
  key: string;
  /** Unix seconds; the grant holds up to and including this second. */
  expires: number;
  /** PUT only: the one Content-Type the upload may carry. */
  contentType?: string;
  /** GET only: serve as an attachment under this name. */
  downloadFilename?: string;
}

/** HMAC-SHA256 signatures of file grants (the local storage driver's signed URLs). */
export class UrlSigner {
  // A KeyObject made once: createHmac with a raw Buffer re-imports the key on every call, several
  // times the HMAC's own cost, and a completed render's GET signs its output URL each time.
  private readonly key: KeyObject;

  constructor(secret: Buffer) {
    this.key = createSecretKey(secret);
  }

  sign(grant: FileGrant): string {
    // JSON keeps the fields apart unambiguously, whatever characters a file name holds.
    const canonical = JSON.stringify([grant.method, grant.key, grant.expires, grant.contentType ?? null, grant.downloadFilename ?? null]);
    return createHmac('sha256', this.key).update(canonical).digest('base64url');
  }

  /** Constant-time comparison of the exact signature text (base64url decoding would forgive stray characters). */
  verify(grant: FileGrant, signature: string): boolean {
    const expected = Buffer.from(this.sign(grant));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

export const SIGNING_SECRET_FILE = '.storage-signing-secret';

/**
 * STORAGE_SIGNING_SECRET when set; otherwise a random secret kept in DATA_DIR, created once. The
 * api and worker processes of one machine must share it (either may sign, the api verifies), so
 * the file is created atomically: written complete under a temporary name, then hard-linked into
 * place, which fails if another process got there first; everyone then reads the winner's secret.
 */
export async function loadSigningSecret(dataDir: string, configured: string | null): Promise<Buffer> {
  if (configured) return Buffer.from(configured, 'utf8');
  const file = path.join(dataDir, SIGNING_SECRET_FILE);
  const existing = await readSecret(file);
  if (existing) return existing;
  await mkdir(dataDir, { recursive: true });
  const temp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  await writeFile(temp, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, file);
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  } finally {
    await rm(temp, { force: true });
  }
  const secret = await readSecret(file);
  if (!secret) throw new Error(`${file} is empty; delete it or set STORAGE_SIGNING_SECRET`);
  return secret;
}

async function readSecret(file: string): Promise<Buffer | null> {
  try {
    const text = (await readFile(file, 'utf8')).trim();
    return text ? Buffer.from(text, 'utf8') : null;
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw error;
  }
}

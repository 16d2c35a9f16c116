import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileGrant, loadSigningSecret, SIGNING_SECRET_FILE, UrlSigner } from './url-signer';

describe('UrlSigner', () => {
  const signer = new UrlSigner(Buffer.from('a'.repeat(32)));
  const read: FileGrant = { method: 'GET', key: 'ws_1/renders/r.mp4', expires: 1_900_000_000, downloadFilename: 'r.mp4' };
  const upload: FileGrant = { method: 'PUT', key: 'ws_1/uploads/a.mp4', expires: 1_900_000_000, contentType: 'video/mp4' };

  it('verifies its own signatures (base64url HMAC-SHA256)', () => {
    const signature = signer.sign(read);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.verify(read, signature)).toBe(true);
    expect(signer.verify(upload, signer.sign(upload))).toBe(true);
  });

  it('signs exactly as an HMAC keyed with the secret bytes, so URLs signed by other processes and versions still verify', () => {
    const canonical = JSON.stringify(['GET', read.key, read.expires, null, read.downloadFilename]);
    expect(signer.sign(read)).toBe(createHmac('sha256', Buffer.from('a'.repeat(32))).update(canonical).digest('base64url'));
  });

  it.each<[string, Partial<FileGrant>]>([
    ['method', { method: 'PUT' }],
    ['key', { key: 'ws_2/renders/r.mp4' }],
    ['expiry', { expires: 1_900_000_001 }],
    ['download name', { downloadFilename: 'other.mp4' }],
    ['download name removed', { downloadFilename: undefined }],
    ['content type', { contentType: 'text/html' }],
  ])('rejects a grant with another %s', (_, change) => {
    expect(signer.verify({ ...read, ...change }, signer.sign(read))).toBe(false);
  });

  it('rejects altered, padded, truncated and foreign signatures', () => {
    const signature = signer.sign(read);
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    const foreign = new UrlSigner(Buffer.from('b'.repeat(32))).sign(read);
    for (const bad of [flipped, `${signature}=`, `${signature}.`, signature.slice(0, -1), '', foreign]) {
      expect(signer.verify(read, bad)).toBe(false);
    }
  });
});

describe('loadSigningSecret', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-secret-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('uses STORAGE_SIGNING_SECRET when configured, writing nothing', async () => {
    const secret = await loadSigningSecret(dataDir, 'x'.repeat(40));
    expect(secret.toString()).toBe('x'.repeat(40));
    expect(() => statSync(path.join(dataDir, SIGNING_SECRET_FILE))).toThrow();
  });

  it('creates one secret file (mode 0600) that concurrent callers share', async () => {
    const secrets = await Promise.all(Array.from({ length: 8 }, () => loadSigningSecret(dataDir, null)));
    const file = path.join(dataDir, SIGNING_SECRET_FILE);
    expect(new Set(secrets.map((s) => s.toString())).size).toBe(1);
    expect(secrets[0].toString()).toBe(readFileSync(file, 'utf8'));
    expect(secrets[0].length).toBeGreaterThanOrEqual(43);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await loadSigningSecret(dataDir, null)).equals(secrets[0])).toBe(true);
  });

  it('refuses an empty secret file', async () => {
    writeFileSync(path.join(dataDir, SIGNING_SECRET_FILE), '');
    await expect(loadSigningSecret(dataDir, null)).rejects.toThrow(/is empty/);
  });
});

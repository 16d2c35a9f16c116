import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { outageOf } from '../../common/errors/outage';
import { StorageUnavailableError } from '../../common/errors/storage-unavailable';
import { LocalStorage, localFailureOf } from './local-storage';
import { ObjectNotFoundError, ObjectTooLargeError } from './storage';
import { UrlSigner } from './url-signer';

describe('LocalStorage', () => {
  let dir: string;
  let storage: LocalStorage;
  const signer = new UrlSigner(Buffer.from('s'.repeat(32)));

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vrs-local-storage-'));
    storage = new LocalStorage(path.join(dir, 'storage'), signer, 'https://api.example.com');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Every file under the storage root, bookkeeping folders included. */
  function filesUnder(root: string): string[] {
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
      .sort();
  }

  it('stores a file and a stream, with size and content type, and reads them back', async () => {
    const source = path.join(dir, 'in.txt');
    writeFileSync(source, 'hello file');
    expect(await storage.putFile('ws_1/a/in.txt', source, 'text/plain')).toEqual({ size: 10 });
    expect(await storage.putStream('ws_1/b.json', Readable.from([Buffer.from('{"a":'), Buffer.from('1}')]), 'application/json')).toEqual({ size: 7 });

    expect(await storage.stat('ws_1/a/in.txt')).toEqual({ size: 10, contentType: 'text/plain' });
    expect(await storage.stat('ws_1/b.json')).toEqual({ size: 7, contentType: 'application/json' });
    expect(await storage.stat('ws_1/missing')).toBeNull();
    expect(await storage.stat('ws_1')).toBeNull(); // a folder is not an object

    const out = path.join(dir, 'out', 'copy.json');
    await storage.downloadTo('ws_1/b.json', out);
    expect(readFileSync(out, 'utf8')).toBe('{"a":1}');
    await expect(storage.downloadTo('ws_1/missing', out)).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(filesUnder(path.join(dir, 'storage'))).toEqual(['.meta/ws_1/a/in.txt.json', '.meta/ws_1/b.json.json', 'ws_1/a/in.txt', 'ws_1/b.json']);
  });

  it('overwrites atomically and deletes idempotently', async () => {
    await storage.putStream('k/v.bin', Readable.from([Buffer.from('first')]), 'application/octet-stream');
    await storage.putStream('k/v.bin', Readable.from([Buffer.from('second!')]), 'image/png');
    expect(await storage.stat('k/v.bin')).toEqual({ size: 7, contentType: 'image/png' });
    await storage.delete('k/v.bin');
    await storage.delete('k/v.bin');
    expect(await storage.stat('k/v.bin')).toBeNull();
    expect(filesUnder(path.join(dir, 'storage'))).toEqual([]);
  });

  it('rejects a stream over maxBytes and leaves nothing behind, keeping an older version', async () => {
    await storage.putStream('k/big.bin', Readable.from([Buffer.from('old')]), 'application/octet-stream');
    const chunks = Array.from({ length: 20 }, () => Buffer.alloc(1000, 1));
    for (const key of ['k/big.bin', 'k/new.bin']) {
      const put = storage.putStream(key, Readable.from(chunks), 'application/octet-stream', { maxBytes: 5000 });
      await expect(put).rejects.toBeInstanceOf(ObjectTooLargeError);
    }
    expect(await storage.stat('k/big.bin')).toEqual({ size: 3, contentType: 'application/octet-stream' });
    expect(await storage.stat('k/new.bin')).toBeNull();
    expect(filesUnder(path.join(dir, 'storage'))).toEqual(['.meta/k/big.bin.json', 'k/big.bin']);
  });

  it('refuses invalid keys before touching the disk', async () => {
    await expect(storage.putStream('../escape', Readable.from([]), 'text/plain')).rejects.toThrow(/Invalid storage key/);
    await expect(storage.stat('/abs')).rejects.toThrow(/Invalid storage key/);
  });

  it('signs read and upload URLs for its own /v1/files/ route', async () => {
    const before = Math.floor(Date.now() / 1000);
    const read = await storage.signedReadUrl('ws_1/r.mp4', 600, { downloadFilename: 'my video.mp4' });
    const url = new URL(read.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://api.example.com/v1/files/ws_1/r.mp4');
    const expires = Number(url.searchParams.get('expires'));
    expect(expires - before).toBeGreaterThanOrEqual(600);
    expect(expires - before).toBeLessThanOrEqual(601);
    expect(read.expires_at).toBe(new Date(expires * 1000).toISOString());
    expect(url.searchParams.get('filename')).toBe('my video.mp4');
    const grant = { method: 'GET' as const, key: 'ws_1/r.mp4', expires, downloadFilename: 'my video.mp4' };
    expect(storage.verifyGrant(grant, url.searchParams.get('signature')!)).toBe(true);

    const upload = new URL((await storage.signedUploadUrl('ws_1/u.mp4', 'video/mp4', 3600)).url);
    expect(upload.searchParams.get('content_type')).toBe('video/mp4');
    const uploadGrant = { method: 'PUT' as const, key: 'ws_1/u.mp4', expires: Number(upload.searchParams.get('expires')), contentType: 'video/mp4' };
    expect(storage.verifyGrant(uploadGrant, upload.searchParams.get('signature')!)).toBe(true);
    expect(storage.verifyGrant({ ...uploadGrant, contentType: 'text/html' }, upload.searchParams.get('signature')!)).toBe(false);
  });

  it('is ready when its folder is writable', async () => {
    expect(await storage.check()).toBe(true);
  });

  it('names a read-only storage folder as a permanent storage failure, and leaves a missing source file alone', async () => {
    // A real read-only mount: the tests run as root, whom file modes do not stop.
    const readOnly = path.join(dir, 'ro');
    mkdirSync(readOnly);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', readOnly]);
    try {
      const locked = new LocalStorage(readOnly, signer, 'https://api.example.com');
      const source = path.join(dir, 'in.txt');
      writeFileSync(source, 'hello');
      const failure = await locked.putFile('ws_1/a.txt', source, 'text/plain').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StorageUnavailableError);
      expect(failure).toMatchObject({
        permanent: true,
        message: `The storage folder ${readOnly} cannot be written (EROFS): give the service's user write access to DATA_DIR, or mount it read-write`,
      });
      expect(outageOf(failure)).toMatchObject({ code: 'storage_unavailable', retryAfterSeconds: 60 });
      await expect(storage.putFile('ws_1/a.txt', path.join(dir, 'missing.txt'), 'text/plain')).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      execFileSync('umount', [readOnly]);
    }
  });

  it('classifies a failing disk as transient and other errors not at all', () => {
    expect(localFailureOf(Object.assign(new Error('i/o error'), { code: 'EIO' }), '/data/storage')).toMatchObject({ permanent: false });
    expect(localFailureOf(Object.assign(new Error('no space'), { code: 'ENOSPC' }), '/data/storage')).toBeNull();
    expect(localFailureOf(new Error('bug'), '/data/storage')).toBeNull();
  });
});

import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, constants, copyFile, link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertStorageKey,
  downloadIntoPlace,
  ByteLimit,
  expiryFromNow,
  ReadUrlOptions,
  SignedUrl,
  Storage,
  StoredObject,
} from './storage';
import { FileGrant, UrlSigner } from './url-signer';
import { StorageUnavailableError } from '../../common/errors/storage-unavailable';

/** Where the service serves local files; signed URLs point here (files.controller.ts). */
export const FILES_ROUTE_PREFIX = '/v1/files/';

interface ObjectMeta {
  contentType: string;
}

/**
 * The default driver: objects are files under `root` (DATA_DIR/storage), keyed by their relative
 * path. Writes go to a temporary file in `root/.tmp` (same file system) and are renamed into place,
 * so a reader never sees half a file and a failed write leaves nothing. The content type lives
 * beside each object in `root/.meta/<key>.json`; storage keys cannot start a segment with a dot, so
 * neither folder can be addressed as an object.
 */
export class LocalStorage extends Storage {
  readonly driver = 'local' as const;
  private readonly tempDir: string;
  private readonly metaDir: string;

  constructor(
    readonly root: string,
    private readonly signer: UrlSigner,
    private readonly publicBaseUrl: string,
  ) {
    super();
    this.tempDir = path.join(root, '.tmp');
    this.metaDir = path.join(root, '.meta');
  }

  override async putFile(key: string, localPath: string, contentType: string): Promise<{ size: number }> {
    assertStorageKey(key);
    return this.guard(() => this.commit(key, contentType, (temp) => copyFile(localPath, temp)));
  }

  async putStream(key: string, body: Readable, contentType: string, options: { maxBytes?: number } = {}): Promise<{ size: number }> {
    assertStorageKey(key);
    const limit = new ByteLimit(options.maxBytes ?? Number.POSITIVE_INFINITY);
    let bodyFailed = false;
    body.once('error', () => (bodyFailed = true));
    return this.guard(() => this.commit(key, contentType, (temp) => pipeline(body, limit, createWriteStream(temp, { flags: 'wx' }))), () => bodyFailed);
  }

  async downloadTo(key: string, localPath: string): Promise<void> {
    // A hard link costs nothing whatever the size (work folders share the disk with storage);
    // stored objects are replaced by rename, never rewritten, so the link cannot see a change.
    // Readers must not write to the file. Another filesystem gets a copy.
    const fill = (temp: string) =>
      this.guard(() =>
        link(this.pathOf(key), temp).catch(async (error) => {
          if (error.code !== 'EXDEV' && error.code !== 'EPERM') throw error;
          await copyFile(this.pathOf(key), temp);
        }),
      );
    await downloadIntoPlace(key, localPath, fill, (error) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? ''));
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertStorageKey(key);
    return this.guard(async () => {
      let size: number;
      try {
        const info = await stat(this.pathOf(key));
        if (!info.isFile()) return null;
        size = info.size;
      } catch (error) {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
        throw error;
      }
      return { size, contentType: (await this.readMeta(key))?.contentType ?? null };
    });
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.guard(async () => {
      await rm(this.pathOf(key), { force: true });
      await rm(this.metaPathOf(key), { force: true });
    });
  }

  async deleteFolder(prefix: string): Promise<void> {
    assertStorageKey(prefix);
    await this.guard(async () => {
      await rm(this.pathOf(prefix), { recursive: true, force: true });
      await rm(path.join(this.metaDir, ...prefix.split('/')), { recursive: true, force: true });
    });
  }

  /** The files route reads the stored type itself, so `contentType` is not needed here. */
  async signedReadUrl(key: string, ttlSeconds: number, options: ReadUrlOptions = {}): Promise<SignedUrl> {
    assertStorageKey(key);
    const { expires, expiresAt } = expiryFromNow(ttlSeconds);
    const grant: FileGrant = { method: 'GET', key, expires, downloadFilename: options.downloadFilename };
    const query = new URLSearchParams({ expires: String(expires) });
    if (options.downloadFilename !== undefined) query.set('filename', options.downloadFilename);
    query.set('signature', this.signer.sign(grant));
    return { url: `${this.publicBaseUrl}${FILES_ROUTE_PREFIX}${key}?${query}`, expires_at: expiresAt };
  }

  async signedUploadUrl(key: string, contentType: string, ttlSeconds: number): Promise<SignedUrl> {
    assertStorageKey(key);
    const { expires, expiresAt } = expiryFromNow(ttlSeconds);
    const grant: FileGrant = { method: 'PUT', key, expires, contentType };
    const query = new URLSearchParams({ expires: String(expires), content_type: contentType, signature: this.signer.sign(grant) });
    return { url: `${this.publicBaseUrl}${FILES_ROUTE_PREFIX}${key}?${query}`, expires_at: expiresAt };
  }

  async check(): Promise<boolean> {
    try {
      await mkdir(this.root, { recursive: true });
      await access(this.root, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }

  override async problem(): Promise<string | null> {
    return (await this.check()) ? null : `Cannot create or write to the storage folder ${this.root}: check DATA_DIR and its permissions`;
  }

  protected override failureOf(error: unknown): StorageUnavailableError | null {
    return localFailureOf(error, this.root);
  }

  /** Whether `signature` was made by this service for exactly this grant (expiry is the caller's check). */
  verifyGrant(grant: FileGrant, signature: string): boolean {
    return this.signer.verify(grant, signature);
  }

  private pathOf(key: string): string {
    return path.join(this.root, ...key.split('/'));
  }

  private metaPathOf(key: string): string {
    return `${path.join(this.metaDir, ...key.split('/'))}.json`;
  }

  private async commit(key: string, contentType: string, write: (temp: string) => Promise<unknown>): Promise<{ size: number }> {
    await makeFolder(this.tempDir);
    const temp = path.join(this.tempDir, randomBytes(12).toString('hex'));
    try {
      await write(temp);
      const { size } = await stat(temp);
      const target = this.pathOf(key);
      await makeFolder(path.dirname(target));
      // The type first: whoever sees the new bytes also sees their type.
      await this.writeMeta(key, { contentType });
      await rename(temp, target);
      return { size };
    } finally {
      await rm(temp, { force: true });
    }
  }

  private async writeMeta(key: string, meta: ObjectMeta): Promise<void> {
    const file = this.metaPathOf(key);
    await makeFolder(path.dirname(file));
    const temp = path.join(this.tempDir, `${randomBytes(12).toString('hex')}.json`);
    try {
      await writeFile(temp, JSON.stringify(meta));
      await rename(temp, file);
    } finally {
      await rm(temp, { force: true });
    }
  }

  private async readMeta(key: string): Promise<ObjectMeta | null> {
    try {
      return JSON.parse(await readFile(this.metaPathOf(key), 'utf8')) as ObjectMeta;
    } catch (error) {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
      throw error;
    }
  }
}

/**
 * `mkdir -p`, except that a parent that cannot be made (a read-only mount, no permission) is
 * reported as such: Node's recursive mkdir says ENOENT then, which reads as a missing object.
 */
async function makeFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    if (error.code === 'EEXIST') return;
    if (error.code !== 'ENOENT') throw error;
    await makeFolder(path.dirname(dir));
    await mkdir(dir).catch((again: NodeJS.ErrnoException) => {
      if (again.code !== 'EEXIST') throw again;
    });
  }
}

/** Node's codes for a folder the service may not write, or a read-only mount: an operator must act. */
const REFUSED = new Set(['EACCES', 'EPERM', 'EROFS']);
/** A failing disk or a network mount that went away: it may come back. */
const FAILING = new Set(['EIO', 'ESTALE', 'ENOTCONN', 'ETIMEDOUT', 'EHOSTDOWN']);

/** A file-system error under the storage folder as a storage failure; null for anything else. */
export function localFailureOf(error: unknown, root: string): StorageUnavailableError | null {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string') return null;
  if (REFUSED.has(code)) {
    return new StorageUnavailableError(true, `The storage folder ${root} cannot be written (${code}): give the service's user write access to DATA_DIR, or mount it read-write`, { cause: error });
  }
  if (FAILING.has(code)) {
    return new StorageUnavailableError(false, `The storage folder ${root} failed to read or write (${code}): check the disk or the network mount under DATA_DIR`, { cause: error });
  }
  return null;
}

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

  async putFile(key: string, localPath: string, contentType: string): Promise<{ size: number }> {
    assertStorageKey(key);
    return this.commit(key, contentType, (temp) => copyFile(localPath, temp));
  }

  async putStream(key: string, body: Readable, contentType: string, options: { maxBytes?: number } = {}): Promise<{ size: number }> {
    assertStorageKey(key);
    const limit = new ByteLimit(options.maxBytes ?? Number.POSITIVE_INFINITY);
    return this.commit(key, contentType, (temp) => pipeline(body, limit, createWriteStream(temp, { flags: 'wx' })));
  }

  async downloadTo(key: string, localPath: string): Promise<void> {
    // A hard link costs nothing whatever the size (work folders share the disk with storage);
    // stored objects are replaced by rename, never rewritten, so the link cannot see a change.
    // Readers must not write to the file. Another filesystem gets a copy.
    const fill = (temp: string) =>
      link(this.pathOf(key), temp).catch(async (error) => {
        if (error.code !== 'EXDEV' && error.code !== 'EPERM') throw error;
        await copyFile(this.pathOf(key), temp);
      });
    await downloadIntoPlace(key, localPath, fill, (error) => ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? ''));
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertStorageKey(key);
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
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await rm(this.pathOf(key), { force: true });
    await rm(this.metaPathOf(key), { force: true });
  }

  async deleteFolder(prefix: string): Promise<void> {
    assertStorageKey(prefix);
    await rm(this.pathOf(prefix), { recursive: true, force: true });
    await rm(path.join(this.metaDir, ...prefix.split('/')), { recursive: true, force: true });
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
    await mkdir(this.tempDir, { recursive: true });
    const temp = path.join(this.tempDir, randomBytes(12).toString('hex'));
    try {
      await write(temp);
      const { size } = await stat(temp);
      const target = this.pathOf(key);
      await mkdir(path.dirname(target), { recursive: true });
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
    await mkdir(path.dirname(file), { recursive: true });
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

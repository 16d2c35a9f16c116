import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import { StorageUnavailableError } from '../../common/errors/storage-unavailable';

export interface SignedUrl {
  url: string;
  /** ISO 8601; the URL is refused after this instant. */
  expires_at: string;
}

export interface ReadUrlOptions {
  /** Served as an attachment under this name. */
  downloadFilename?: string;
  /** The object's Content-Type, when the caller knows it. */
  contentType?: string | null;
}

export interface UploadUrlOptions {
  /** The upload's exact size, when the client declared it: drivers that can sign it refuse any other. */
  contentLength?: number;
}

export interface StoredObject {
  size: number;
  contentType: string | null;
}

/**
 * Where the service keeps files (uploads, ingested sources, render outputs), addressed by keys such
 * as `ws_123/renders/render_abc.mp4`. `LocalStorage` (disk under DATA_DIR, served by the service's
 * own signed `/v1/files/` route) by default; `GcsStorage` when GCS_BUCKET is set, `S3Storage`
 * when S3_BUCKET is. Also the Nest injection token.
 */
export abstract class Storage {
  abstract readonly driver: 'local' | 'gcs' | 's3';
  /** Stores a local file: streamed in by default; a driver that can copy it another way overrides this. */
  async putFile(key: string, localPath: string, contentType: string): Promise<{ size: number }> {
    return this.putStream(key, createReadStream(localPath), contentType);
  }
  /** Streams `body` in, never buffering it whole. Past `maxBytes` it rejects with ObjectTooLargeError and stores nothing. */
  abstract putStream(key: string, body: Readable, contentType: string, options?: { maxBytes?: number }): Promise<{ size: number }>;
  /** Rejects with ObjectNotFoundError when the key names nothing. */
  abstract downloadTo(key: string, localPath: string): Promise<void>;
  abstract stat(key: string): Promise<StoredObject | null>;
  /** Deleting a missing key succeeds. */
  abstract delete(key: string): Promise<void>;
  /** Deletes every object under `prefix/` (a workspace's files when it is deleted). */
  abstract deleteFolder(prefix: string): Promise<void>;
  /**
   * A URL that reads the object. It is served inline only when it is media the service renders
   * (servedInline); anything else, or any read with `downloadFilename`, as an attachment. Callers
   * that know the object's type pass `contentType`, which spares GCS a metadata lookup.
   */
  abstract signedReadUrl(key: string, ttlSeconds: number, options?: ReadUrlOptions): Promise<SignedUrl>;
  /** A URL that accepts one `PUT` of the bytes with exactly this `Content-Type`. */
  abstract signedUploadUrl(key: string, contentType: string, ttlSeconds: number, options?: UploadUrlOptions): Promise<SignedUrl>;
  /** Readiness: the store answers and can be written to. */
  abstract check(): Promise<boolean>;

  /** Readiness in words: null when ready, else what is wrong and what to change. */
  async problem(): Promise<string | null> {
    return (await this.check()) ? null : `The ${this.driver} storage does not answer or cannot be written to`;
  }

  /**
   * The driver's error as a StorageUnavailableError when it says the store is misconfigured
   * (permanent) or down (transient); null for anything else (a missing object, a bug).
   */
  protected abstract failureOf(error: unknown): StorageUnavailableError | null;

  /** A probe of the store for signing uploads: null when usable. Drivers that sign offline override it. */
  protected async probeFailure(): Promise<StorageUnavailableError | null> {
    return null;
  }

  private usable: { until: number; failure: Promise<StorageUnavailableError | null> } | null = null;

  /**
   * Runs one driver call; a storage failure comes out as StorageUnavailableError (the driver's own
   * error as its cause). `ownFault` says when the error is the caller's stream's, not the store's.
   */
  protected async guard<T>(run: () => Promise<T>, ownFault: () => boolean = () => false): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ObjectNotFoundError || error instanceof ObjectTooLargeError || ownFault()) throw error;
      const failure = this.failureOf(error);
      if (!failure) throw error;
      if (failure.permanent) this.usable = { until: Date.now() + USABLE_FAILURE_MS, failure: Promise.resolve(failure) };
      throw failure;
    }
  }

  /**
   * Signing an upload URL is offline for S3 and GCS: without this a missing bucket or refused key
   * would only show when the client's PUT fails at the store. The probe's answer is kept a while,
   * so uploads cost a round trip to the store at most once per USABLE_OK_MS.
   */
  protected async assertUsable(): Promise<void> {
    const now = Date.now();
    if (!this.usable || now > this.usable.until) {
      const failure = this.probeFailure().catch(() => null);
      this.usable = { until: now + USABLE_OK_MS, failure };
      void failure.then((found) => {
        if (found && this.usable?.failure === failure) this.usable.until = Date.now() + USABLE_FAILURE_MS;
      });
    }
    const failure = await this.usable.failure;
    if (failure) throw failure;
  }
}

/** How long a usable store is trusted for signing uploads, and how long a failing one is believed. */
const USABLE_OK_MS = 30_000;
const USABLE_FAILURE_MS = 5_000;

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No stored object with key "${key}"`);
  }
}

export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The object exceeds the limit of ${maxBytes} bytes`);
  }
}

const MAX_KEY_LENGTH = 1024;
/**
 * One path segment: letters, digits, `_`, `-`, `.`, not starting with a dot. That excludes `.`,
 * `..` and hidden names (the local driver keeps its own bookkeeping in dot folders), and every
 * character that would need escaping in a URL, a file name or a GCS object name.
 */
const KEY_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Why `key` is not a valid storage key, or null when it is. */
export function storageKeyProblem(key: string): string | null {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return `must be 1 to ${MAX_KEY_LENGTH} characters`;
  if (key.startsWith('/')) return 'must be relative (no leading "/")';
  for (const segment of key.split('/')) {
    if (segment === '') return 'must not contain empty path segments';
    if (!KEY_SEGMENT.test(segment)) {
      return `segment "${segment}" must be letters, digits, "_", "-" or "." and must not start with "."`;
    }
  }
  return null;
}

/** Keys are built by the service, never taken from a client as is: a bad one is a bug. */
export function assertStorageKey(key: string): void {
  const problem = storageKeyProblem(key);
  if (problem) throw new Error(`Invalid storage key "${key}": ${problem}`);
}

/**
 * Every driver's downloadTo: `fill` writes the object into a temporary file that is renamed into
 * place when complete, so a reader never sees half a file; `isMissing` says which of its errors
 * mean there is no such object.
 */
export async function downloadIntoPlace(key: string, localPath: string, fill: (temp: string) => Promise<void>, isMissing: (error: unknown) => boolean): Promise<void> {
  assertStorageKey(key);
  await mkdir(path.dirname(localPath), { recursive: true });
  const temp = `${localPath}.${randomBytes(6).toString('hex')}.part`;
  try {
    await fill(temp);
    await rename(temp, localPath);
  } catch (error) {
    if (isMissing(error)) throw new ObjectNotFoundError(key);
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

/** Counts bytes passing through and fails with ObjectTooLargeError once they exceed `maxBytes`. */
export class ByteLimit extends Transform {
  bytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null, data?: Buffer) => void): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) callback(new ObjectTooLargeError(this.maxBytes));
    else callback(null, chunk);
  }
}

/**
 * `attachment` with the file name: a quoted ASCII fallback, plus RFC 5987 `filename*` when the
 * name has other characters, so every browser saves it under a sensible name.
 */
export function attachmentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (fallback === filename) return `attachment; filename="${filename}"`;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** Raster formats browsers display and never run: the images the service renders or reads. */
const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'image/apng']);

/**
 * Whether a stored file of this type may be shown by the browser on its own (video, audio, raster
 * images). Everything else (SVG, HTML, XML, PDF, JSON, unknown) is served as an attachment in a
 * sandbox, so a file uploaded as or posing as a document never runs script on the service's origin.
 */
export function servedInline(contentType: string | null | undefined): boolean {
  const essence = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const [top, sub] = essence.split('/');
  if (!sub) return false;
  return top === 'video' || top === 'audio' || INLINE_IMAGE_TYPES.has(essence);
}

/** `inline`, or `attachment` with the object's own name, for a read without a download name. */
export function servedDisposition(key: string, contentType: string | null | undefined): string {
  return servedInline(contentType) ? 'inline' : attachmentDisposition(key.split('/').pop()!);
}

export function expiryFromNow(ttlSeconds: number): { expires: number; expiresAt: string } {
  const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
  return { expires, expiresAt: new Date(expires * 1000).toISOString() };
}

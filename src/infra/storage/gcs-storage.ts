import { createReadStream, createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Bucket, Storage as GcsClient } from '@google-cloud/storage';
import {
  assertStorageKey,
  downloadIntoPlace,
  attachmentDisposition,
  ByteLimit,
  expiryFromNow,
  ReadUrlOptions,
  servedDisposition,
  SignedUrl,
  Storage,
  StoredObject,
} from './storage';

export interface GcsStorageOptions {
  bucket: string;
  /** Another endpoint (an emulator, the tests' fake). Requests to it carry no credentials. */
  apiEndpoint?: string;
}

/**
 * Google Cloud Storage, with Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS (a
 * service-account key file), or on Cloud Run the service's own identity, which then signs URLs
 * through the IAM Credentials API (it needs Service Account Token Creator on itself).
 * Objects are uploaded in one request each (no resumable session): a stream cannot be rewound to
 * resume anyway, and a failed upload is retried by its job. Signed URLs are V4, so clients read and
 * upload directly, bypassing the service.
 */
export class GcsStorage extends Storage {
  readonly driver = 'gcs' as const;
  private readonly bucket: Bucket;
  /** For readiness, which must answer now: no retries with backoff (they hold a dead endpoint's answer for many seconds). */
  private readonly probeBucket: Bucket;

  constructor(options: GcsStorageOptions) {
    super();
    this.bucket = new GcsClient({ apiEndpoint: options.apiEndpoint }).bucket(options.bucket);
    this.probeBucket = new GcsClient({ apiEndpoint: options.apiEndpoint, retryOptions: { autoRetry: false } }).bucket(options.bucket);
  }

  /** The object's `gs://` URI, for Google services that read from the bucket themselves (Speech-to-Text). */
  uriOf(key: string): string {
    assertStorageKey(key);
    return `gs://${this.bucket.name}/${key}`;
  }

  async putFile(key: string, localPath: string, contentType: string): Promise<{ size: number }> {
    return this.putStream(key, createReadStream(localPath), contentType);
  }

  async putStream(key: string, body: Readable, contentType: string, options: { maxBytes?: number } = {}): Promise<{ size: number }> {
    assertStorageKey(key);
    const limit = new ByteLimit(options.maxBytes ?? Number.POSITIVE_INFINITY);
    // Destroying the write stream aborts the request, and GCS creates an object only from a complete one.
    await pipeline(body, limit, this.bucket.file(key).createWriteStream({ resumable: false, contentType }));
    return { size: limit.bytes };
  }

  async downloadTo(key: string, localPath: string): Promise<void> {
    await downloadIntoPlace(key, localPath, (temp) => pipeline(this.bucket.file(key).createReadStream(), createWriteStream(temp)), isNotFound);
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertStorageKey(key);
    try {
      const [metadata] = await this.bucket.file(key).getMetadata();
      return { size: Number(metadata.size), contentType: metadata.contentType ?? null };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.bucket.file(key).delete({ ignoreNotFound: true });
  }

  async deleteFolder(prefix: string): Promise<void> {
    assertStorageKey(prefix);
    await this.bucket.deleteFiles({ prefix: `${prefix}/`, force: true });
  }

  /**
   * Google serves the object itself, so the disposition the local files route sets travels in the
   * signed URL (`response-content-disposition`). Google sends no CSP; its origin is not ours.
   */
  async signedReadUrl(key: string, ttlSeconds: number, options: ReadUrlOptions = {}): Promise<SignedUrl> {
    assertStorageKey(key);
    const { expires, expiresAt } = expiryFromNow(ttlSeconds);
    let disposition: string;
    if (options.downloadFilename !== undefined) disposition = attachmentDisposition(options.downloadFilename);
    else {
      const contentType = options.contentType !== undefined ? options.contentType : (await this.stat(key))?.contentType;
      disposition = servedDisposition(key, contentType);
    }
    const [url] = await this.bucket.file(key).getSignedUrl({ version: 'v4', action: 'read', expires: expires * 1000, responseDisposition: disposition });
    return { url, expires_at: expiresAt };
  }

  async signedUploadUrl(key: string, contentType: string, ttlSeconds: number): Promise<SignedUrl> {
    assertStorageKey(key);
    const { expires, expiresAt } = expiryFromNow(ttlSeconds);
    const [url] = await this.bucket.file(key).getSignedUrl({ version: 'v4', action: 'write', expires: expires * 1000, contentType });
    return { url, expires_at: expiresAt };
  }

  /** Lists at most one object: needs only object permissions, which the service account has. */
  async check(): Promise<boolean> {
    try {
      await this.probeBucket.getFiles({ maxResults: 1, autoPaginate: false });
      return true;
    } catch {
      return false;
    }
  }
}

function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 404;
}

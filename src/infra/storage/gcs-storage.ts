import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Bucket, Storage as GcsClient } from '@google-cloud/storage';
import { StorageUnavailableError } from '../../common/errors/storage-unavailable';
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
  /** The store as operators name it in messages. */
  private readonly where: string;

  constructor(options: GcsStorageOptions) {
    super();
    this.where = options.apiEndpoint ?? 'Google Cloud Storage';
    this.bucket = new GcsClient({ apiEndpoint: options.apiEndpoint }).bucket(options.bucket);
    this.probeBucket = new GcsClient({ apiEndpoint: options.apiEndpoint, retryOptions: { autoRetry: false } }).bucket(options.bucket);
  }

  /** The object's `gs://` URI, for Google services that read from the bucket themselves (Speech-to-Text). */
  uriOf(key: string): string {
    assertStorageKey(key);
    return `gs://${this.bucket.name}/${key}`;
  }

  async putStream(key: string, body: Readable, contentType: string, options: { maxBytes?: number } = {}): Promise<{ size: number }> {
    assertStorageKey(key);
    const limit = new ByteLimit(options.maxBytes ?? Number.POSITIVE_INFINITY);
    // The first stream to fail is the culprit: pipeline then destroys the others with its error.
    let first: 'body' | 'store' | null = null;
    body.once('error', () => (first ??= 'body'));
    const upload = this.bucket.file(key).createWriteStream({ resumable: false, contentType });
    upload.once('error', () => (first ??= 'store'));
    // Destroying the write stream aborts the request, and GCS creates an object only from a complete one.
    await this.guard(() => pipeline(body, limit, upload), () => first === 'body');
    return { size: limit.bytes };
  }

  async downloadTo(key: string, localPath: string): Promise<void> {
    await downloadIntoPlace(key, localPath, (temp) => this.guard(() => pipeline(this.bucket.file(key).createReadStream(), createWriteStream(temp))), isNotFound);
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertStorageKey(key);
    return this.guard(async () => {
      try {
        const [metadata] = await this.bucket.file(key).getMetadata();
        return { size: Number(metadata.size), contentType: metadata.contentType ?? null };
      } catch (error) {
        if (isNotFound(error) && !gcsFailureOf(error, this.bucket.name, this.where)) return null;
        throw error;
      }
    });
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.guard(() => this.bucket.file(key).delete({ ignoreNotFound: true }));
  }

  async deleteFolder(prefix: string): Promise<void> {
    assertStorageKey(prefix);
    await this.guard(() => this.bucket.deleteFiles({ prefix: `${prefix}/`, force: true }));
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
    const [url] = await this.guard(() => this.bucket.file(key).getSignedUrl({ version: 'v4', action: 'read', expires: expires * 1000, responseDisposition: disposition }));
    return { url, expires_at: expiresAt };
  }

  async signedUploadUrl(key: string, contentType: string, ttlSeconds: number): Promise<SignedUrl> {
    assertStorageKey(key);
    await this.assertUsable();
    const { expires, expiresAt } = expiryFromNow(ttlSeconds);
    const [url] = await this.guard(() => this.bucket.file(key).getSignedUrl({ version: 'v4', action: 'write', expires: expires * 1000, contentType }));
    return { url, expires_at: expiresAt };
  }

  /** Lists at most one object: needs only object permissions, which the service account has. */
  async check(): Promise<boolean> {
    return (await this.problem()) === null;
  }

  override async problem(): Promise<string | null> {
    const failure = await this.probeFailure();
    return failure ? failure.message : null;
  }

  protected override failureOf(error: unknown): StorageUnavailableError | null {
    return gcsFailureOf(error, this.bucket.name, this.where);
  }

  /** Any failure of the probe counts here (readiness must not pass a store it cannot read). */
  protected override async probeFailure(): Promise<StorageUnavailableError | null> {
    try {
      await this.probeBucket.getFiles({ maxResults: 1, autoPaginate: false });
      return null;
    } catch (error) {
      return this.failureOf(error) ?? new StorageUnavailableError(false, `Google Cloud Storage bucket "${this.bucket.name}" at ${this.where} is not usable: ${(error as Error).message}`, { cause: error });
    }
  }
}

function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 404;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE']);
const CREDENTIAL_WORDS = /Could not load the default credentials|invalid_grant|Could not refresh access token|Unable to detect a Project Id|Permission 'iam\.serviceAccounts\.signBlob' denied/i;

/**
 * A GCS client error as a storage failure: permanent for a missing bucket or a refused identity,
 * transient for an unreachable or failing API (5xx, 429). Null for anything else (a missing object,
 * a bug). Messages name the setting to change, never the API's own words.
 */
export function gcsFailureOf(error: unknown, bucket: string, where: string): StorageUnavailableError | null {
  if (error instanceof StorageUnavailableError) return error;
  const err = error as { code?: unknown; message?: string; cause?: { code?: unknown }; response?: { status?: number } } | null;
  if (!err || typeof err !== 'object') return null;
  const status = typeof err.code === 'number' ? err.code : err.response?.status;
  const message = err.message ?? '';
  const permanent = (text: string) => new StorageUnavailableError(true, text, { cause: error });
  if (status === 404 && /specified bucket does not exist/i.test(message)) {
    return permanent(`GCS bucket "${bucket}" does not exist at ${where}: create it, or correct GCS_BUCKET`);
  }
  if (status === 401 || status === 403 || CREDENTIAL_WORDS.test(message)) {
    return permanent(
      `${where} refused the service's identity for bucket "${bucket}"${status ? ` (HTTP ${status})` : ''}: give its service account Storage Object Admin on the bucket (and Token Creator on itself to sign URLs), or correct GOOGLE_APPLICATION_CREDENTIALS`,
    );
  }
  const network = [err.code, err.cause?.code, /\b(E[A-Z]+)\b/.exec(message)?.[1]].find((candidate) => typeof candidate === 'string' && UNREACHABLE.has(candidate));
  if (network) {
    return new StorageUnavailableError(false, `${where} cannot be reached (${network}): check GCS_API_ENDPOINT (if set) and the network`, { cause: error });
  }
  if (status !== undefined && (status >= 500 || status === 429)) {
    return new StorageUnavailableError(false, `${where} is failing (HTTP ${status}) for bucket "${bucket}": check Google Cloud's status`, { cause: error });
  }
  return null;
}

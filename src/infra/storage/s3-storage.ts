import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ClientConfig,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { StorageUnavailableError } from '../../common/errors/storage-unavailable';
import {
  assertStorageKey,
  downloadIntoPlace,
  attachmentDisposition,
  ByteLimit,
  expiryFromNow,
  ObjectTooLargeError,
  ReadUrlOptions,
  servedDisposition,
  SignedUrl,
  Storage,
  StoredObject,
  UploadUrlOptions,
} from './storage';

export interface S3StorageOptions {
  bucket: string;
  /** Another S3-compatible service (R2, MinIO, Ceph RGW, …); null: AWS's own endpoint for the region. */
  endpoint: string | null;
  region: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` (most self-hosted stores need it). */
  forcePathStyle: boolean;
  /** Null: the AWS SDK's default chain (environment, shared files, web identity, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
}

/** Parts of multipart uploads: S3's minimum is 5 MiB; two in flight bound the memory one upload takes. */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** DeleteObjects takes at most this many keys a request. */
const DELETE_BATCH = 1000;
/** Readiness answers within 3 s (system.service.ts): the probe gives up before that. */
const PROBE_TIMEOUT_MS = 2500;

/**
 * Any S3-compatible store (AWS S3, Cloudflare R2, MinIO, Ceph RGW, …) through the AWS SDK v3.
 * Clients read and upload directly with presigned SigV4 URLs. Checksums are computed only where
 * an operation requires one: the SDK's default would sign the CRC32 of the (empty) body it sees
 * when presigning a PUT, which real stores then refuse for the actual bytes. Files go up through
 * lib-storage's Upload: one PUT when small, a multipart upload (aborted on failure) when large, so
 * no object is ever visible half-written.
 */
export class S3Storage extends Storage {
  readonly driver = 's3' as const;
  private readonly client: S3Client;
  /** For readiness, which must answer now: one attempt, short timeouts. */
  private readonly probeClient: S3Client;
  private readonly bucket: string;
  /** The store as operators name it in messages. */
  private readonly where: string;

  constructor(private readonly options: S3StorageOptions) {
    super();
    this.bucket = options.bucket;
    this.where = options.endpoint ?? `AWS S3 (${options.region})`;
    const common: S3ClientConfig = {
      region: options.region,
      endpoint: options.endpoint ?? undefined,
      forcePathStyle: options.forcePathStyle,
      credentials: options.credentials ?? undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    this.client = new S3Client(common);
    this.probeClient = new S3Client({
      ...common,
      maxAttempts: 1,
      requestHandler: { connectionTimeout: PROBE_TIMEOUT_MS, requestTimeout: PROBE_TIMEOUT_MS },
    });
  }

  async putStream(key: string, body: Readable, contentType: string, options: { maxBytes?: number } = {}): Promise<{ size: number }> {
    assertStorageKey(key);
    const limit = new ByteLimit(options.maxBytes ?? Number.POSITIVE_INFINITY);
    let bodyFailed = false;
    body.on('error', (error) => {
      bodyFailed = true;
      limit.destroy(error);
    });
    body.pipe(limit);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: limit, ContentType: contentType },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
    });
    try {
      await this.guard(() => upload.done(), () => bodyFailed);
    } catch (error) {
      body.unpipe(limit);
      body.destroy();
      // The store's error may wrap the stream's; the limit says what really happened.
      if (limit.bytes > (options.maxBytes ?? Number.POSITIVE_INFINITY)) throw new ObjectTooLargeError(options.maxBytes!);
      throw error;
    }
    return { size: limit.bytes };
  }

  async downloadTo(key: string, localPath: string): Promise<void> {
    await downloadIntoPlace(
      key,
      localPath,
      (temp) =>
        this.guard(async () => {
          const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
          await pipeline(object.Body as Readable, createWriteStream(temp));
        }),
      isNotFound,
    );
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertStorageKey(key);
    return this.guard(async () => {
      try {
        const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
        return { size: Number(head.ContentLength ?? 0), contentType: head.ContentType ?? null };
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    });
  }

  /** S3 answers success for a missing key too. */
  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.guard(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  /** Lists the prefix a page at a time and deletes each page in one request. */
  async deleteFolder(prefix: string): Promise<void> {
    assertStorageKey(prefix);
    let token: string | undefined;
    do {
      const page = await this.guard(() =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${prefix}/`, ContinuationToken: token, MaxKeys: DELETE_BATCH })),
      );
      const keys = (page.Contents ?? []).map((object) => ({ Key: object.Key! }));
      if (keys.length > 0) {
        const result = await this.guard(() => this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } })));
        const failed = result.Errors ?? [];
        if (failed.length > 0) {
          throw new Error(`Deleting ${failed.length} objects under ${prefix}/ failed, first ${failed[0].Key}: ${failed[0].Code} ${failed[0].Message ?? ''}`);
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** The store serves the object itself: the disposition the local files route sets travels in the URL. */
  async signedReadUrl(key: string, ttlSeconds: number, options: ReadUrlOptions = {}): Promise<SignedUrl> {
    assertStorageKey(key);
    const { expiresAt } = expiryFromNow(ttlSeconds);
    let disposition: string;
    if (options.downloadFilename !== undefined) disposition = attachmentDisposition(options.downloadFilename);
    else {
      const contentType = options.contentType !== undefined ? options.contentType : (await this.stat(key))?.contentType;
      disposition = servedDisposition(key, contentType);
    }
    const command = new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentDisposition: disposition });
    return { url: await this.guard(() => getSignedUrl(this.client, command, { expiresIn: ttlSeconds })), expires_at: expiresAt };
  }

  /**
   * Content-Type, and Content-Length when the caller knows the size, are signed headers: the store
   * refuses a PUT that sends another type or another number of bytes.
   */
  async signedUploadUrl(key: string, contentType: string, ttlSeconds: number, options: UploadUrlOptions = {}): Promise<SignedUrl> {
    assertStorageKey(key);
    await this.assertUsable();
    const { expiresAt } = expiryFromNow(ttlSeconds);
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType, ContentLength: options.contentLength });
    const signableHeaders = new Set(['content-type', ...(options.contentLength !== undefined ? ['content-length'] : [])]);
    return { url: await this.guard(() => getSignedUrl(this.client, command, { expiresIn: ttlSeconds, signableHeaders })), expires_at: expiresAt };
  }

  async check(): Promise<boolean> {
    return (await this.problem()) === null;
  }

  /** Lists at most one object: it needs only read access to the bucket, and its errors name the cause. */
  override async problem(): Promise<string | null> {
    try {
      await this.probe();
      return null;
    } catch (error) {
      return describeS3Failure(error, this.bucket, this.where);
    }
  }

  protected override failureOf(error: unknown): StorageUnavailableError | null {
    return s3FailureOf(error, this.bucket, this.where);
  }

  protected override async probeFailure(): Promise<StorageUnavailableError | null> {
    try {
      await this.probe();
      return null;
    } catch (error) {
      return this.failureOf(error);
    }
  }

  private async probe(): Promise<void> {
    await this.probeClient.send(new ListObjectsV2Command({ Bucket: this.bucket, MaxKeys: 1 }));
  }
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string })?.name;
  return name === 'NoSuchKey' || name === 'NotFound' || (error as S3ServiceException)?.$metadata?.httpStatusCode === 404;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE']);
const CREDENTIAL_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'TokenRefreshRequired']);
/** Codes S3 and its clones answer while overloaded or failing inside: worth another attempt. */
const BUSY_CODES = new Set(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout', 'TimeoutError']);

/**
 * An S3 SDK error as a storage failure: permanent when the operator must change a setting (bucket,
 * credentials, permissions, region, clock), transient when the store is unreachable, slow or failing
 * (5xx). Null for anything else (a missing key, a bug). Messages name the setting, never a secret,
 * and never repeat the store's own words (an AWS AccessDenied names the account and the principal).
 */
export function s3FailureOf(error: unknown, bucket: string, where: string): StorageUnavailableError | null {
  if (error instanceof StorageUnavailableError) return error;
  const err = error as Error & { code?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  if (!err || typeof err !== 'object') return null;
  // The SDK wraps errors from another realm (a test sandbox) into a plain Error whose message names them.
  const wrapped = /^AWS SDK error wrapper for (\w+)/.exec(err.message ?? '')?.[1];
  const code = err.Code ?? wrapped ?? err.name ?? '';
  const status = err.$metadata?.httpStatusCode;
  const permanent = (message: string) => new StorageUnavailableError(true, message, { cause: error });
  const transient = (message: string) => new StorageUnavailableError(false, message, { cause: error });
  if (code === 'NoSuchBucket' || (status === 404 && code !== 'NoSuchKey' && code !== 'NotFound')) {
    return permanent(`S3 bucket "${bucket}" does not exist at ${where}: create it, or correct S3_BUCKET`);
  }
  if (CREDENTIAL_CODES.has(code)) {
    return permanent(`S3 at ${where} refused the credentials (${code}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`);
  }
  if (code === 'RequestTimeTooSkewed') {
    return permanent(`S3 at ${where} refused the request time (RequestTimeTooSkewed): synchronise the clock of the service's machine`);
  }
  if (code === 'AccessDenied' || code === 'AllAccessDisabled' || code === 'Forbidden' || status === 403) {
    return permanent(`S3 at ${where} denied access to bucket "${bucket}" (${code || 403}): check the credentials and that they may list, read, write and delete objects in the bucket`);
  }
  if (code === 'CredentialsProviderError' || (/credentials/i.test(err.message ?? '') && status === undefined)) {
    return permanent(`No S3 credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or another source of the AWS SDK's default chain)`);
  }
  if (code === 'PermanentRedirect' || code === 'AuthorizationHeaderMalformed' || code === 'IllegalLocationConstraintException' || status === 301) {
    return permanent(`S3 bucket "${bucket}" is in another region than S3_REGION or behind another endpoint (${code || status}): correct S3_REGION or S3_ENDPOINT`);
  }
  const network = [err.code, (err as { cause?: { code?: string } }).cause?.code, /\b(E[A-Z]+)\b/.exec(err.message ?? '')?.[1]].find(
    (candidate) => candidate !== undefined && UNREACHABLE.has(candidate),
  );
  if (network || code === 'TimeoutError' || code === 'RequestTimeout') {
    return transient(`S3 endpoint ${where} cannot be reached (${network ?? code}): check S3_ENDPOINT and the network`);
  }
  if ((status !== undefined && (status >= 500 || status === 429)) || BUSY_CODES.has(code)) {
    return transient(`S3 at ${where} is failing (${code || 'error'}, HTTP ${status ?? '?'}): check the store's health`);
  }
  return null;
}

/** What an operator must change, in words, for a failed bucket probe. */
export function describeS3Failure(error: unknown, bucket: string, where: string): string {
  const failure = s3FailureOf(error, bucket, where);
  if (failure) return failure.message;
  const err = error as Error & { Code?: string };
  return `S3 bucket "${bucket}" at ${where} is not usable: ${err?.Code ?? err?.name ?? 'error'}${err?.message ? ` (${err.message})` : ''}`;
}

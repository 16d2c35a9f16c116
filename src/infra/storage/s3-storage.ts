import { createReadStream, createWriteStream } from 'node:fs';
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

  constructor(private readonly options: S3StorageOptions) {
    super();
    this.bucket = options.bucket;
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

  async putFile(key: string, localPath: string, contentType: string): Promise<{ size: number }> {
    return this.putStream(key, createReadStream(localPath), contentType);
  }

  async putStream(key: string, body: Readable, contentType: string, options: { maxBytes?: number } = {}): Promise<{ size: number }> {
    assertStorageKey(key);
    const limit = new ByteLimit(options.maxBytes ?? Number.POSITIVE_INFINITY);
    body.on('error', (error) => limit.destroy(error));
    body.pipe(limit);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: limit, ContentType: contentType },
      partSize: PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
    });
    try {
      await upload.done();
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
      async (temp) => {
        const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
        await pipeline(object.Body as Readable, createWriteStream(temp));
      },
      isNotFound,
    );
  }

  async stat(key: string): Promise<StoredObject | null> {
    assertStorageKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: Number(head.ContentLength ?? 0), contentType: head.ContentType ?? null };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** S3 answers success for a missing key too. */
  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** Lists the prefix a page at a time and deletes each page in one request. */
  async deleteFolder(prefix: string): Promise<void> {
    assertStorageKey(prefix);
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${prefix}/`, ContinuationToken: token, MaxKeys: DELETE_BATCH }),
      );
      const keys = (page.Contents ?? []).map((object) => ({ Key: object.Key! }));
      if (keys.length > 0) {
        const result = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }));
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
    return { url: await getSignedUrl(this.client, command, { expiresIn: ttlSeconds }), expires_at: expiresAt };
  }

  /**
   * Content-Type, and Content-Length when the caller knows the size, are signed headers: the store
   * refuses a PUT that sends another type or another number of bytes.
   */
  async signedUploadUrl(key: string, contentType: string, ttlSeconds: number, options: UploadUrlOptions = {}): Promise<SignedUrl> {
    assertStorageKey(key);
    const { expiresAt } = expiryFromNow(ttlSeconds);
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType, ContentLength: options.contentLength });
    const signableHeaders = new Set(['content-type', ...(options.contentLength !== undefined ? ['content-length'] : [])]);
    return { url: await getSignedUrl(this.client, command, { expiresIn: ttlSeconds, signableHeaders }), expires_at: expiresAt };
  }

  async check(): Promise<boolean> {
    return (await this.problem()) === null;
  }

  /** Lists at most one object: it needs only read access to the bucket, and its errors name the cause. */
  override async problem(): Promise<string | null> {
    try {
      await this.probeClient.send(new ListObjectsV2Command({ Bucket: this.bucket, MaxKeys: 1 }));
      return null;
    } catch (error) {
      return describeS3Failure(error, this.bucket, this.options.endpoint ?? `AWS S3 (${this.options.region})`);
    }
  }
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string })?.name;
  return name === 'NoSuchKey' || name === 'NotFound' || (error as S3ServiceException)?.$metadata?.httpStatusCode === 404;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT']);

/** What an operator must change, in words, for a failed bucket probe. */
export function describeS3Failure(error: unknown, bucket: string, where: string): string {
  const err = error as Error & { code?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  const code = err?.Code ?? err?.name ?? '';
  const status = err?.$metadata?.httpStatusCode;
  const detail = err?.message ? ` (${err.message})` : '';
  if (code === 'NoSuchBucket' || (status === 404 && code !== 'NoSuchKey')) {
    return `S3 bucket "${bucket}" does not exist at ${where}: create it, or correct S3_BUCKET`;
  }
  if (code === 'InvalidAccessKeyId' || code === 'SignatureDoesNotMatch' || code === 'InvalidToken' || code === 'ExpiredToken') {
    return `S3 at ${where} refused the credentials (${code}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`;
  }
  if (code === 'AccessDenied' || status === 403) {
    return `S3 at ${where} denied access to bucket "${bucket}"${detail}: check the credentials and that they may list and write the bucket`;
  }
  if (code === 'CredentialsProviderError' || /credentials/i.test(err?.message ?? '') && status === undefined) {
    return `No S3 credentials were found${detail}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or another source of the AWS SDK's default chain)`;
  }
  if (code === 'PermanentRedirect' || code === 'AuthorizationHeaderMalformed' || status === 301) {
    return `S3 bucket "${bucket}" is in another region than S3_REGION or behind another endpoint${detail}: correct S3_REGION or S3_ENDPOINT`;
  }
  // The SDK wraps errors from another realm (a test sandbox) into one whose message names the code.
  const network = [err?.code, (err as { cause?: { code?: string } })?.cause?.code, /\b(E[A-Z]+)\b/.exec(err?.message ?? '')?.[1]].find(
    (candidate) => candidate !== undefined && UNREACHABLE.has(candidate),
  );
  if (network || code === 'TimeoutError' || code === 'RequestTimeout') {
    return `S3 endpoint ${where} cannot be reached (${network ?? code}): check S3_ENDPOINT and the network`;
  }
  return `S3 bucket "${bucket}" at ${where} is not usable: ${code || 'error'}${detail}`;
}

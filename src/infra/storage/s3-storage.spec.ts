import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { AccessDenied, NoSuchBucket, NoSuchKey } from '@aws-sdk/client-s3';
import { StorageUnavailableError } from '../../common/errors/storage-unavailable';
import { S3Storage, s3FailureOf } from './s3-storage';
import { ObjectNotFoundError } from './storage';
import { withFakeStore } from '../../../test/helpers/fake-store';

const WHERE = 'http://s3.test';
const secret = 'a-secret-that-must-not-leak';

/**
 * The S3 driver's failures, against an S3-shaped HTTP server on loopback that answers with S3's
 * XML errors, so the real SDK parses them (the RGW e2e covers a real store's refusals).
 */
describe('S3 storage failures', () => {
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  const store = withFakeStore('s3-failures', (req, res) => answer(req, res));
  const storageAt = (url: string) =>
    new S3Storage({ bucket: 'renders', endpoint: url, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: secret } });

  const xmlError = (status: number, code: string, message: string) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message><RequestId>r1</RequestId></Error>`);
  };

  it('names a missing bucket, refused credentials and denied access as permanent, in words that leak neither secret nor the store\'s text', async () => {
    const storage = storageAt(store.endpoint);
    const cases: [number, string, string, RegExp][] = [
      [404, 'NoSuchBucket', 'The specified bucket does not exist', /^S3 bucket "renders" does not exist at http:\/\/127\.0\.0\.1:\d+: create it, or correct S3_BUCKET$/],
      [403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match', /refused the credentials \(SignatureDoesNotMatch\): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY$/],
      [403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist', /refused the credentials \(InvalidAccessKeyId\)/],
      [403, 'AccessDenied', 'User: arn:aws:iam::123456789012:user/renderer is not authorized', /denied access to bucket "renders" \(AccessDenied\): check the credentials and that they may list, read, write and delete/],
    ];
    for (const [status, code, words, message] of cases) {
      answer = xmlError(status, code, words);
      store.requests = 0;
      const failure = await storage.putFile('ws_1/renders/render_a.mp4', store.file, 'video/mp4').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StorageUnavailableError);
      expect(failure).toMatchObject({ permanent: true, message: expect.stringMatching(message) });
      expect((failure as Error).message).not.toContain(secret);
      expect((failure as Error).message).not.toContain('arn:aws');
      expect((failure as Error).cause).toMatchObject({ name: code });
      expect(store.requests).toBe(1); // the SDK does not retry a refusal either
    }
  });

  it('refuses to sign an upload for a bucket its probe finds missing, and signs again once it is back', async () => {
    const storage = storageAt(store.endpoint);
    answer = xmlError(404, 'NoSuchBucket', 'The specified bucket does not exist');
    await expect(storage.signedUploadUrl('ws_1/assets/a.mp4', 'video/mp4', 600)).rejects.toMatchObject({ permanent: true, message: expect.stringContaining('correct S3_BUCKET') });
    // A found failure is believed for a few seconds only; a fresh driver probes again.
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/xml' }).end('<ListBucketResult><Name>renders</Name><KeyCount>0</KeyCount></ListBucketResult>');
    const fresh = storageAt(store.endpoint);
    store.requests = 0;
    const signed = await fresh.signedUploadUrl('ws_1/assets/a.mp4', 'video/mp4', 600);
    expect(new URL(signed.url).pathname).toBe('/renders/ws_1/assets/a.mp4');
    await fresh.signedUploadUrl('ws_1/assets/b.mp4', 'video/mp4', 600);
    expect(store.requests).toBe(1); // one probe for both
  });

  it('names a store that fails (5xx) or cannot be reached as transient, and leaves a missing key alone', async () => {
    const storage = storageAt(store.endpoint);
    answer = xmlError(503, 'SlowDown', 'Please reduce your request rate.');
    await expect(storage.putFile('ws_1/renders/render_a.mp4', store.file, 'video/mp4')).rejects.toMatchObject({
      permanent: false,
      message: expect.stringMatching(/^S3 at http:\/\/127\.0\.0\.1:\d+ is failing \(SlowDown, HTTP 503\): check the store's health$/),
    });
    answer = xmlError(404, 'NoSuchKey', 'The specified key does not exist.');
    await expect(storage.downloadTo('ws_1/renders/missing.mp4', path.join(store.dir, 'missing.mp4'))).rejects.toBeInstanceOf(ObjectNotFoundError);

    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const down = storageAt(`http://127.0.0.1:${closed}`);
    await expect(down.putFile('ws_1/renders/render_a.mp4', store.file, 'video/mp4')).rejects.toMatchObject({
      permanent: false,
      message: `S3 endpoint http://127.0.0.1:${closed} cannot be reached (ECONNREFUSED): check S3_ENDPOINT and the network`,
    });
    await expect(down.signedUploadUrl('ws_1/assets/a.mp4', 'video/mp4', 600)).rejects.toMatchObject({ permanent: false });
  });

  it('classifies the SDK\'s own exception classes, and nothing else', () => {
    const meta = (status: number) => ({ $metadata: { httpStatusCode: status }, message: 'x' });
    expect(s3FailureOf(new NoSuchBucket(meta(404)), 'b', WHERE)).toMatchObject({ permanent: true });
    expect(s3FailureOf(new AccessDenied(meta(403)), 'b', WHERE)).toMatchObject({ permanent: true });
    expect(s3FailureOf(new NoSuchKey(meta(404)), 'b', WHERE)).toBeNull();
    expect(s3FailureOf(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }), 'b', WHERE)).toMatchObject({ permanent: false });
    expect(s3FailureOf(new Error('Cannot read properties of undefined'), 'b', WHERE)).toBeNull();
    expect(s3FailureOf(Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' }), 'b', WHERE)).toBeNull();
  });
});

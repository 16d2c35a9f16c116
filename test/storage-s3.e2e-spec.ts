import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { AddressInfo, connect, createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { DataSource } from 'typeorm';
import { S3Storage } from '../src/infra/storage/s3-storage';
import { ObjectTooLargeError, Storage } from '../src/infra/storage/storage';
import { makeVideo, probe, waitFor } from './helpers/media';
import { bearer, freePort, signupVerified, startTestApp, TestApp } from './helpers/test-app';

const run = promisify(execFile);
const SERVER_SCRIPT = path.join(__dirname, '..', 'scripts', 'ceph-rgw-test-server.sh');
const BUCKET = 'renders';
const ACCESS_KEY = 'TESTACCESSKEY0000001';
const SECRET_KEY = 'test-secret-key-that-rgw-checks-0000001';
const UPLOAD_LIMIT = 1_000_000;

/**
 * S3 storage end to end against Ceph's RADOS Gateway (Debian's `radosgw`, started on loopback by
 * scripts/ceph-rgw-test-server.sh with a one-OSD in-memory cluster). RGW is a production S3 server:
 * it checks every SigV4 signature with the user's secret, signed headers included, as AWS S3, R2
 * and MinIO do; fakes such as s3rver can be told to accept mismatched signatures, and Scality's
 * cloudserver on npm no longer installs. Debian's RGW (Ceph 16) does not check `x-amz-checksum-*`,
 * so the absence of the SDK's empty-body checksum from presigned URLs is asserted on the URL.
 * Presigned URLs are exercised with curl and fetch, never through the SDK.
 */
describe('S3 storage against Ceph RGW', () => {
  let app: TestApp;
  let key: string;
  let workspaceId: string;
  let endpoint: string;
  let s3: S3Client;
  const serverDir = mkdtempSync(path.join(tmpdir(), 'vrs-rgw-'));
  const fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-s3-fixtures-'));
  const clip = path.join(fixtures, 'clip.mp4');
  const env = (overrides: Record<string, string> = {}) => ({
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: ACCESS_KEY,
    AWS_SECRET_ACCESS_KEY: SECRET_KEY,
    ...overrides,
  });

  beforeAll(async () => {
    const [monPort, rgwPort] = [await freePort(), await freePort()];
    endpoint = `http://127.0.0.1:${rgwPort}`;
    // The app touches the bucket only when asked, so it starts while the gateway does.
    // A low upload limit, so that bytes above it can land without moving gigabytes.
    const starting = startTestApp({ role: 'all', env: env({ UPLOAD_MAX_BYTES: String(UPLOAD_LIMIT) }) });
    await Promise.all([
      run('bash', [SERVER_SCRIPT, 'start', serverDir, String(monPort), String(rgwPort), ACCESS_KEY, SECRET_KEY]),
      makeVideo(clip, { width: 320, height: 180, seconds: 1, fps: 25 }),
    ]).catch(async (error) => {
      await (await starting).close();
      throw error;
    });
    app = await starting;
    s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY } });
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    ({ key, workspaceId } = await signupVerified(app));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    s3?.destroy();
    await run('bash', [SERVER_SCRIPT, 'stop', serverDir]);
    rmSync(fixtures, { recursive: true, force: true });
  });

  const keysUnder = async (prefix: string): Promise<string[]> =>
    ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);
  const detail = (id: string) => app.http.get(`/v1/workspace/assets/${id}`).set(bearer(key));
  /** curl's status code and body for a PUT of `file` with these headers. */
  const curlPut = async (url: string, file: string, headers: string[]): Promise<{ status: number; body: string }> => {
    const out = path.join(fixtures, 'curl-body');
    const args = ['-s', '-o', out, '-w', '%{http_code}', '-X', 'PUT', '--data-binary', `@${file}`, ...headers.flatMap((h) => ['-H', h]), url];
    const { stdout } = await run('curl', args);
    return { status: Number(stdout), body: readFileSync(out, 'utf8') };
  };
  /** Uploads the clip through a presigned PUT and waits until it is probed; returns its `source_url`. */
  const uploadClip = async (apiKey = key): Promise<string> => {
    const slot = await app.http.post('/v1/uploads').set(bearer(apiKey)).send({ content_type: 'video/mp4', filename: 'clip.mp4', size_bytes: statSync(clip).size }).expect(201);
    expect((await curlPut(slot.body.upload_url, clip, ['Content-Type: video/mp4'])).status).toBe(200);
    await waitFor(async () => (await app.http.get(`/v1/workspace/assets/${slot.body.asset_id}`).set(bearer(apiKey))).body, (asset) => asset.status === 'present', 30_000, 100);
    return slot.body.source_url;
  };

  it('takes an upload through a presigned PUT whose type and length are signed, and probes it from the bucket', async () => {
    const size = statSync(clip).size;
    const slot = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'video/mp4', filename: 'clip.mp4', size_bytes: size }).expect(201);
    const assetId = slot.body.asset_id;
    const url = new URL(slot.body.upload_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${endpoint}/${BUCKET}/${workspaceId}/assets/${assetId}.mp4`);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    // No checksum of the empty body the SDK saw while presigning: real S3 would refuse the bytes.
    expect([...url.searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);

    const other = path.join(fixtures, 'other.bin');
    writeFileSync(other, Buffer.concat([readFileSync(clip), Buffer.alloc(100)]));
    const wrongType = await curlPut(slot.body.upload_url, clip, ['Content-Type: video/webm']);
    expect(wrongType).toEqual({ status: 403, body: expect.stringContaining('<Code>SignatureDoesNotMatch</Code>') });
    const larger = await curlPut(slot.body.upload_url, other, ['Content-Type: video/mp4']);
    expect(larger).toEqual({ status: 403, body: expect.stringContaining('<Code>SignatureDoesNotMatch</Code>') });
    expect(await keysUnder(`${workspaceId}/assets/`)).toEqual([]);
    expect((await detail(assetId).expect(200)).body.bytes_uploaded).toBe(false);

    const good = await curlPut(slot.body.upload_url, clip, ['Content-Type: video/mp4']);
    expect(good.status).toBe(200);
    expect((await detail(assetId).expect(200)).body.bytes_uploaded).toBe(true);
    const probed = await waitFor(async () => (await detail(assetId)).body, (asset) => asset.status === 'present', 30_000, 100);
    expect(probed).toMatchObject({ width: 320, height: 180, video_codec: 'h264', size_bytes: size, error: null });

    // The declared size must fit the upload limit before anything is signed.
    const tooLarge = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'video/mp4', size_bytes: 6 * 1024 ** 3 }).expect(422);
    expect(tooLarge.body.error).toMatchObject({ code: 'source_too_large' });
  });

  it('is refused by the store when a URL was signed with another secret; the driver will not sign an upload with it', async () => {
    const forgedCredentials = { accessKeyId: ACCESS_KEY, secretAccessKey: 'not-the-secret' };
    const forged = new S3Storage({ bucket: BUCKET, endpoint, region: 'us-east-1', forcePathStyle: true, credentials: forgedCredentials });
    // The driver probes the bucket before signing an upload, and the store refuses its key.
    await expect(forged.signedUploadUrl(`${workspaceId}/assets/forged.mp4`, 'video/mp4', 600)).rejects.toMatchObject({
      name: 'StorageUnavailableError',
      permanent: true,
      message: expect.stringContaining('refused the credentials (SignatureDoesNotMatch)'),
    });
    const forgedClient = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: forgedCredentials });
    const uploadUrl = await getSignedUrl(forgedClient, new PutObjectCommand({ Bucket: BUCKET, Key: `${workspaceId}/assets/forged.mp4`, ContentType: 'video/mp4' }), {
      expiresIn: 600,
      signableHeaders: new Set(['content-type']),
    });
    forgedClient.destroy();
    const put = await fetch(uploadUrl, { method: 'PUT', headers: { 'Content-Type': 'video/mp4' }, body: readFileSync(clip) });
    expect(put.status).toBe(403);
    expect(await put.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const read = await forged.signedReadUrl(`${workspaceId}/assets/forged-read.mp4`, 600, { contentType: 'video/mp4' });
    expect((await fetch(read.url)).status).toBe(403);
    expect(await keysUnder(`${workspaceId}/assets/forged`)).toEqual([]);
  });

  it('renders from the uploaded source into the bucket, downloadable through a presigned GET that decodes', async () => {
    const sourceUrl = await uploadClip();
    const submitted = await app.http
      .post('/v1/renders')
      .set(bearer(key))
      .send({ width: 320, height: 180, duration: 1, frame_rate: 25, elements: [{ type: 'video', source_url: sourceUrl }] })
      .expect(202);
    const job = await waitFor(
      async () => (await app.http.get(`/v1/renders/${submitted.body.id}`).set(bearer(key)).expect(200)).body,
      (current) => ['completed', 'failed', 'cancelled'].includes(current.status),
      90_000,
      200,
    );
    expect({ status: job.status, error: job.error }).toEqual({ status: 'completed', error: null });
    expect(await keysUnder(`${workspaceId}/renders/`)).toEqual([`${workspaceId}/renders/${job.id}.mp4`]);

    const link = await app.http.get(`/v1/renders/${job.id}/download`).set(bearer(key)).expect(200);
    expect(link.body.url.startsWith(`${endpoint}/${BUCKET}/${workspaceId}/renders/`)).toBe(true);
    const response = await fetch(link.body.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.mp4"$/);
    const file = path.join(fixtures, 'render.mp4');
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    const facts = await probe(file);
    const video = facts.streams.find((s) => s.codec_type === 'video')!;
    expect({ width: video.width, height: video.height, codec: video.codec_name }).toEqual({ width: 320, height: 180, codec: 'h264' });
    expect(Number(facts.format.duration)).toBeCloseTo(1, 1);
    expect(Number(facts.format.size)).toBe(job.output.size_bytes);
  });

  it('refuses bytes above the upload limit that landed through a URL signed without a size, and deletes them', async () => {
    const slot = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'video/mp4', filename: 'big.mp4' }).expect(201);
    expect(new URL(slot.body.upload_url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    const big = path.join(fixtures, 'big.mp4');
    writeFileSync(big, Buffer.concat([readFileSync(clip), Buffer.alloc(UPLOAD_LIMIT + 1 - statSync(clip).size, 7)]));
    expect(await curlPut(slot.body.upload_url, big, ['Content-Type: video/mp4'])).toMatchObject({ status: 200 });
    const objectKey = `${workspaceId}/assets/${slot.body.asset_id}.mp4`;
    expect(await keysUnder(objectKey)).toEqual([objectKey]);

    // Reading the asset is where an S3 upload is noticed: it is refused there, not probed.
    const refused = (await detail(slot.body.asset_id).expect(200)).body;
    expect(refused).toMatchObject({ status: 'unreadable', bytes_uploaded: false, size_bytes: UPLOAD_LIMIT + 1, error: { code: 'source_too_large' } });
    expect(refused.error.message).toContain(`limit of ${UPLOAD_LIMIT} bytes`);
    expect(await keysUnder(objectKey)).toEqual([]);
    const render = await app.http
      .post('/v1/renders')
      .set(bearer(key))
      .send({ width: 320, height: 180, duration: 1, elements: [{ type: 'video', source_url: slot.body.source_url }] })
      .expect(422);
    expect(render.body.error).toMatchObject({ code: 'source_too_large', details: { asset_id: slot.body.asset_id } });
  });

  it('stops a stream at its byte limit and stores nothing', async () => {
    const storage = app.running.app.get(Storage);
    expect(storage.driver).toBe('s3');
    const objectKey = `${workspaceId}/uploads/limited.bin`;
    const body = Readable.from((function* () {
      for (let i = 0; i < 8; i += 1) yield Buffer.alloc(1024 * 1024, i);
    })());
    await expect(storage.putStream(objectKey, body, 'application/octet-stream', { maxBytes: 3 * 1024 * 1024 })).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect(await storage.stat(objectKey)).toBeNull();
    const fitting = await storage.putStream(objectKey, Readable.from([Buffer.alloc(1000, 1)]), 'application/octet-stream', { maxBytes: 1000 });
    expect(fitting.size).toBe(1000);
    expect(await storage.stat(objectKey)).toEqual({ size: 1000, contentType: 'application/octet-stream' });
  });

  it('removes every object of a deleted workspace', async () => {
    // A workspace of its own holding an upload and another object, so the others' tests keep theirs.
    const doomed = await signupVerified(app);
    await Promise.all([uploadClip(doomed.key), uploadClip()]);
    await app.running.app.get(Storage).putStream(`${doomed.workspaceId}/uploads/note.bin`, Readable.from([Buffer.alloc(10, 1)]), 'application/octet-stream', { maxBytes: 10 });
    expect((await keysUnder(`${doomed.workspaceId}/`)).length).toBe(2);
    await app.http.delete('/v1/workspace').set(bearer(doomed.key)).expect(204);
    expect(await keysUnder(`${doomed.workspaceId}/`)).toEqual([]);
    expect(await keysUnder(`${workspaceId}/`)).not.toEqual([]);
  });

  it('reports storage ready, and unavailable in words for a wrong bucket, wrong credentials or an unreachable endpoint', async () => {
    const ready = await app.http.get('/v1/ready').expect(200);
    expect(ready.body.checks.storage).toBe('ok');
    expect(ready.body.messages).toBeUndefined();

    const closedPort = await freePort();
    const cases: [Record<string, string>, RegExp][] = [
      [{ S3_BUCKET: 'no-such-bucket' }, /^S3 bucket "no-such-bucket" does not exist at http:\/\/127\.0\.0\.1:\d+: create it, or correct S3_BUCKET$/],
      [{ AWS_SECRET_ACCESS_KEY: 'wrong-secret' }, /refused the credentials \(SignatureDoesNotMatch\): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY$/],
      [{ AWS_ACCESS_KEY_ID: 'UNKNOWNKEY0000000000' }, /refused the credentials \(InvalidAccessKeyId\)/],
      [{ S3_ENDPOINT: `http://127.0.0.1:${closedPort}` }, new RegExp(`^S3 endpoint http://127\\.0\\.0\\.1:${closedPort} cannot be reached \\(ECONNREFUSED\\): check S3_ENDPOINT and the network$`)],
    ];
    // Each wrong setting in its own API process, as an operator would start it.
    await Promise.all(
      cases.map(async ([overrides, message]) => {
        const broken = await startTestApp({ role: 'api', databaseUrl: app.databaseUrl, env: env(overrides) });
        try {
          const res = await broken.http.get('/v1/ready').expect(503);
          expect(res.body).toMatchObject({ status: 'unavailable', checks: { database: 'ok', storage: 'unavailable' } });
          expect(res.body.messages.storage).toMatch(message);
          // Signing is offline, so the upload route asks the store first: a 503 naming the fix, not a URL that fails at the store.
          const { key: brokenKey } = await signupVerified(broken);
          const slot = await broken.http.post('/v1/uploads').set(bearer(brokenKey)).send({ content_type: 'video/mp4', size_bytes: 1000 });
          expect(slot.status).toBe(503);
          expect(slot.headers['retry-after']).toBe(overrides.S3_ENDPOINT ? '10' : '60');
          expect(slot.body.error.code).toBe('storage_unavailable');
          expect(slot.body.error.message).toContain(res.body.messages.storage);
          expect(slot.body.error.message).not.toContain(overrides.AWS_SECRET_ACCESS_KEY ?? SECRET_KEY);
        } finally {
          await broken.close();
        }
      }),
    );
  });

  it('fails a render whose bucket is gone at once with storage_unavailable, and one whose store is down after its attempts, then renders once both are back', async () => {
    // The store behind a proxy this test can take down: connections are cut while `down`.
    let down = false;
    const open = new Set<Socket>();
    const proxy = createServer((client) => {
      if (down) return client.destroy();
      open.add(client);
      client.on('close', () => open.delete(client));
      const upstream = connect(Number(new URL(endpoint).port), '127.0.0.1');
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const worker = await startTestApp({ role: 'all', env: env({ S3_BUCKET: 'gone', S3_ENDPOINT: proxied }) });
    try {
      const { key: workerKey } = await signupVerified(worker);
      const db = worker.running.app.get(DataSource);
      const render = async () => {
        const submitted = await worker.http.post('/v1/renders').set(bearer(workerKey)).send({ width: 32, height: 32, output_format: 'png', background_color: '#336699' }).expect(202);
        const job = await waitFor(
          async () => (await worker.http.get(`/v1/renders/${submitted.body.id}`).set(bearer(workerKey)).expect(200)).body,
          (current) => ['completed', 'failed', 'cancelled'].includes(current.status),
          120_000,
          200,
        );
        const [row] = await db.query('SELECT attempts FROM jobs WHERE id = $1', [job.id]);
        return { job, attempts: row.attempts as number };
      };

      const missing = await render();
      expect(missing.job).toMatchObject({ status: 'failed', error: { code: 'storage_unavailable' } });
      expect(missing.job.error.message).toBe(
        `Render failed: the service's storage is misconfigured (not retried). S3 bucket "gone" does not exist at ${proxied}: create it, or correct S3_BUCKET`,
      );
      expect(missing.attempts).toBe(1);

      down = true;
      for (const socket of open) socket.destroy(); // the SDK's kept-alive connections too
      const unreachable = await render();
      expect(unreachable.job).toMatchObject({ status: 'failed', error: { code: 'storage_unavailable' } });
      expect(unreachable.job.error.message).toMatch(
        new RegExp(`^Render failed: the service's storage did not answer in 3 attempts\\. S3 endpoint ${proxied.replace(/\./g, '\\.')} cannot be reached \\((E[A-Z]+|TimeoutError)\\): check S3_ENDPOINT and the network$`),
      );
      expect(unreachable.attempts).toBe(3);

      down = false;
      await s3.send(new CreateBucketCommand({ Bucket: 'gone' }));
      const back = await render();
      expect(back.job).toMatchObject({ status: 'completed', error: null, output: { width: 32, height: 32 } });
      expect(back.attempts).toBe(1);
    } finally {
      await worker.close();
      proxy.close();
    }
  }, 240_000);
});

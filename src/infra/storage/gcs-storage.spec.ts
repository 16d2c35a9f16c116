import { createHash, generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { CRC32C } from '@google-cloud/storage';
import { withFakeStore } from '../../../test/helpers/fake-store';
import { StorageUnavailableError } from '../../common/errors/storage-unavailable';
import { GcsStorage } from './gcs-storage';
import { ObjectNotFoundError, ObjectTooLargeError } from './storage';

const BUCKET = 'test-bucket';

describe('GcsStorage V4 signed URLs (offline, throwaway service-account key)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const clientEmail = 'renderer@test-project.iam.gserviceaccount.com';
  let storage: GcsStorage;
  let keyDir: string;
  const previousCredentials = process.env.GOOGLE_APPLICATION_CREDENTIALS;

  beforeAll(() => {
    keyDir = mkdtempSync(path.join(tmpdir(), 'vrs-gcs-key-'));
    const keyFile = path.join(keyDir, 'key.json');
    const key = { type: 'service_account', project_id: 'test-project', client_email: clientEmail, private_key: privateKey };
    writeFileSync(keyFile, JSON.stringify(key));
    process.env.GOOGLE_APPLICATION_CREDENTIALS = keyFile;
    storage = new GcsStorage({ bucket: BUCKET });
  });
  afterAll(() => {
    if (previousCredentials === undefined) delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
    else process.env.GOOGLE_APPLICATION_CREDENTIALS = previousCredentials;
    rmSync(keyDir, { recursive: true, force: true });
  });

  /** Rebuilds the V4 string-to-sign from the URL (Google's documented algorithm) and checks the RSA signature. */
  function assertValidV4Signature(signed: URL, method: string, headers: Record<string, string>): void {
    const pairs = signed.search.slice(1).split('&').filter((p) => !p.startsWith('X-Goog-Signature='));
    const canonicalQuery = pairs.sort((a, b) => (a.split('=')[0] < b.split('=')[0] ? -1 : 1)).join('&');
    const signedHeaders = Object.keys(headers).sort();
    const canonicalRequest = [
      method,
      signed.pathname,
      canonicalQuery,
      signedHeaders.map((h) => `${h}:${headers[h]}\n`).join(''),
      signedHeaders.join(';'),
      'UNSIGNED-PAYLOAD',
    ].join('\n');
    const credential = signed.searchParams.get('X-Goog-Credential')!;
    const stringToSign = [
      'GOOG4-RSA-SHA256',
      signed.searchParams.get('X-Goog-Date'),
      credential.slice(credential.indexOf('/') + 1),
      createHash('sha256').update(canonicalRequest).digest('hex'),
    ].join('\n');
    const signature = Buffer.from(signed.searchParams.get('X-Goog-Signature')!, 'hex');
    expect(verify('RSA-SHA256', Buffer.from(stringToSign), publicKey, signature)).toBe(true);
  }

  it('signs a read URL with expiry and download name', async () => {
    const before = Date.now();
    const { url, expires_at } = await storage.signedReadUrl('ws_1/renders/render_a.mp4', 900, { downloadFilename: 'my clip.mp4' });
    const signed = new URL(url);
    expect(`${signed.origin}${signed.pathname}`).toBe(`https://storage.googleapis.com/${BUCKET}/ws_1/renders/render_a.mp4`);
    expect(signed.searchParams.get('X-Goog-Algorithm')).toBe('GOOG4-RSA-SHA256');
    expect(signed.searchParams.get('X-Goog-Credential')).toMatch(new RegExp(`^${clientEmail}/\\d{8}/auto/storage/goog4_request$`));
    expect(signed.searchParams.get('X-Goog-SignedHeaders')).toBe('host');
    expect(signed.searchParams.get('response-content-disposition')).toBe('attachment; filename="my clip.mp4"');
    const lifetime = Number(signed.searchParams.get('X-Goog-Expires'));
    expect(lifetime).toBeGreaterThanOrEqual(898);
    expect(lifetime).toBeLessThanOrEqual(900);
    const expiresAt = Date.parse(expires_at);
    expect(expiresAt - before).toBeGreaterThan(898_000);
    expect(expiresAt - before).toBeLessThanOrEqual(901_000);
    assertValidV4Signature(signed, 'GET', { host: 'storage.googleapis.com' });
  });

  it('serves only media inline: anything else is signed as an attachment, the same rule as the local files route', async () => {
    const disposition = async (key: string, contentType: string | null) =>
      new URL((await storage.signedReadUrl(key, 60, { contentType })).url).searchParams.get('response-content-disposition');
    expect(await disposition('ws_1/renders/render_a.mp4', 'video/mp4')).toBe('inline');
    expect(await disposition('ws_1/assets/asset_a.m4a', 'audio/mp4')).toBe('inline');
    expect(await disposition('ws_1/assets/asset_a.png', 'image/png')).toBe('inline');
    expect(await disposition('ws_1/assets/asset_a.svg', 'image/svg+xml')).toBe('attachment; filename="asset_a.svg"');
    expect(await disposition('ws_1/assets/asset_a.png', 'text/html; charset=utf-8')).toBe('attachment; filename="asset_a.png"');
    expect(await disposition('ws_1/assets/asset_a', null)).toBe('attachment; filename="asset_a"');

    // Without the type, the object's own metadata decides.
    const metadata = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'x', size: '5', contentType: 'image/svg+xml' }));
    });
    await new Promise<void>((resolve) => metadata.listen(0, '127.0.0.1', resolve));
    try {
      const viaApi = new GcsStorage({ bucket: BUCKET, apiEndpoint: `http://127.0.0.1:${(metadata.address() as AddressInfo).port}` });
      const { url } = await viaApi.signedReadUrl('ws_1/assets/asset_b.png', 60);
      expect(new URL(url).searchParams.get('response-content-disposition')).toBe('attachment; filename="asset_b.png"');
    } finally {
      metadata.closeAllConnections();
      await new Promise((resolve) => metadata.close(resolve));
    }
  });

  it('signs an upload URL that binds the content type, once a probe found the bucket', async () => {
    // Signing is offline, so the driver lists the bucket first (at most every 30 s): a missing one
    // must be a 503 from the API, not a failed PUT at Google.
    const lists: string[] = [];
    const api = createServer((req, res) => {
      lists.push(`${req.method} ${new URL(req.url!, 'http://x').pathname}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'storage#objects', items: [] }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    try {
      const viaApi = new GcsStorage({ bucket: BUCKET, apiEndpoint: `http://127.0.0.1:${(api.address() as AddressInfo).port}` });
      const { url } = await viaApi.signedUploadUrl('ws_1/uploads/asset_a.mp4', 'video/mp4', 3600);
      await viaApi.signedUploadUrl('ws_1/uploads/asset_b.mp4', 'video/mp4', 3600);
      expect(lists).toEqual([`GET /storage/v1/b/${BUCKET}/o`]);
      const signed = new URL(url);
      expect(signed.searchParams.get('X-Goog-SignedHeaders')).toBe('content-type;host');
      expect(Number(signed.searchParams.get('X-Goog-Expires'))).toBeGreaterThanOrEqual(3598);
      // The library signs the endpoint's host name without its port.
      assertValidV4Signature(signed, 'PUT', { 'content-type': 'video/mp4', host: signed.hostname });
    } finally {
      api.closeAllConnections();
      await new Promise((resolve) => api.close(resolve));
    }
  });
});

describe('GcsStorage failures', () => {
  let answer: { status: number; message: string };
  const store = withFakeStore('gcs-failures', (_req, res) =>
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: answer.status, message: answer.message } })),
  );

  it('names a missing bucket and a refused identity as permanent, an API failing with 5xx or unreachable as transient', async () => {
    const storage = new GcsStorage({ bucket: BUCKET, apiEndpoint: store.endpoint });
    const put = () => storage.putFile('ws_1/renders/render_a.mp4', store.file, 'video/mp4').catch((error: unknown) => error);
    answer = { status: 404, message: 'The specified bucket does not exist.' };
    expect(await put()).toMatchObject({ permanent: true, message: `GCS bucket "${BUCKET}" does not exist at ${store.endpoint}: create it, or correct GCS_BUCKET` });
    answer = { status: 403, message: 'renderer@p.iam.gserviceaccount.com does not have storage.objects.create access' };
    const denied = await put();
    expect(denied).toBeInstanceOf(StorageUnavailableError);
    expect(denied).toMatchObject({ permanent: true, message: expect.stringContaining('(HTTP 403): give its service account Storage Object Admin') });
    expect((denied as Error).message).not.toContain('gserviceaccount');
    answer = { status: 503, message: 'Backend Error' };
    expect(await put()).toMatchObject({ permanent: false, message: `${store.endpoint} is failing (HTTP 503) for bucket "${BUCKET}": check Google Cloud's status` });
    // A missing object is still a missing object.
    answer = { status: 404, message: 'No such object: test-bucket/ws_1/x' };
    expect(await storage.stat('ws_1/x')).toBeNull();

    const down = new GcsStorage({ bucket: BUCKET, apiEndpoint: 'http://127.0.0.1:9' });
    expect(await down.putFile('ws_1/renders/render_a.mp4', store.file, 'video/mp4').catch((error: unknown) => error)).toMatchObject({
      permanent: false,
      message: 'http://127.0.0.1:9 cannot be reached (ECONNREFUSED): check GCS_API_ENDPOINT (if set) and the network',
    });
    await expect(down.signedUploadUrl('ws_1/assets/a.mp4', 'video/mp4', 600)).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});

interface FakeObject {
  data: Buffer;
  contentType: string;
}

/**
 * The few endpoints of the GCS JSON API the driver uses: multipart upload, metadata, media
 * download, delete, list. Objects exist only once an upload arrived complete, as on GCS.
 */
function startFakeGcs(): Promise<{ server: Server; endpoint: string; objects: Map<string, FakeObject>; calls: string[] }> {
  const objects = new Map<string, FakeObject>();
  const calls: string[] = [];
  const resource = (name: string, o: FakeObject) => {
    const crc = new CRC32C();
    crc.update(o.data);
    return {
      kind: 'storage#object',
      bucket: BUCKET,
      name,
      size: String(o.data.length),
      contentType: o.contentType,
      crc32c: crc.toString(),
      md5Hash: createHash('md5').update(o.data).digest('base64'),
    };
  };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const notFound = (res: ServerResponse) => json(res, 404, { error: { code: 404, message: 'No such object' } });

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const url = new URL(req.url!, 'http://fake');
    const objectPath = new RegExp(`^/storage/v1/b/${BUCKET}/o/(.+)$`).exec(url.pathname);
    const route = url.pathname.startsWith('/upload') ? `/upload?uploadType=${url.searchParams.get('uploadType')}` : objectPath ? '/o/{name}' : url.pathname;
    calls.push(`${req.method} ${route}${url.searchParams.get('alt') === 'media' ? '?alt=media' : ''}`);
    if (req.method === 'POST' && url.pathname === `/upload/storage/v1/b/${BUCKET}/o` && url.searchParams.get('uploadType') === 'multipart') {
      const boundary = /boundary=("?)([^";]+)\1/.exec(req.headers['content-type'] ?? '')?.[2];
      if (!boundary || !body.subarray(-boundary.length - 8).toString().includes(`--${boundary}--`)) {
        return json(res, 400, { error: { code: 400, message: 'Incomplete multipart body' } });
      }
      const parts = splitMultipart(body, boundary);
      const metadata = JSON.parse(parts[0].toString()) as { contentType?: string };
      const name = url.searchParams.get('name')!;
      objects.set(name, { data: parts[1], contentType: metadata.contentType ?? 'application/octet-stream' });
      return json(res, 200, resource(name, objects.get(name)!));
    }
    if (req.method === 'GET' && url.pathname === `/storage/v1/b/${BUCKET}/o`) {
      return json(res, 200, { kind: 'storage#objects', items: [...objects].slice(0, 1).map(([n, o]) => resource(n, o)) });
    }
    if (!objectPath) return notFound(res);
    const name = decodeURIComponent(objectPath[1]);
    const object = objects.get(name);
    if (!object) return notFound(res);
    if (req.method === 'DELETE') {
      objects.delete(name);
      return res.writeHead(204).end();
    }
    if (url.searchParams.get('alt') === 'media') {
      const meta = resource(name, object);
      res.writeHead(200, {
        'content-type': object.contentType,
        'x-goog-hash': `crc32c=${meta.crc32c},md5=${meta.md5Hash}`,
        'x-goog-stored-content-encoding': 'identity',
      });
      return res.end(object.data);
    }
    return json(res, 200, resource(name, object));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
    req.on('error', () => undefined); // an aborted upload simply never completes
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, objects, calls });
    });
  });
}

function splitMultipart(body: Buffer, boundary: string): Buffer[] {
  const parts: Buffer[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const next = body.indexOf(delimiter, start + delimiter.length);
    if (next === -1) break;
    const part = body.subarray(start + delimiter.length, next);
    const headerEnd = part.indexOf('\r\n\r\n');
    parts.push(part.subarray(headerEnd + 4, part.length - 2)); // content ends with CRLF before the delimiter
    start = next;
  }
  return parts;
}

describe('GcsStorage against a fake GCS JSON API on loopback', () => {
  let fake: Awaited<ReturnType<typeof startFakeGcs>>;
  let storage: GcsStorage;
  let dir: string;

  beforeAll(async () => {
    fake = await startFakeGcs();
    storage = new GcsStorage({ bucket: BUCKET, apiEndpoint: fake.endpoint });
    dir = mkdtempSync(path.join(tmpdir(), 'vrs-gcs-'));
  });
  afterAll(async () => {
    fake.server.closeAllConnections();
    await new Promise((resolve) => fake.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('uploads a file, stats, downloads and deletes it', async () => {
    const source = path.join(dir, 'in.bin');
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    writeFileSync(source, bytes);
    expect(await storage.putFile('ws_1/renders/render_a.mp4', source, 'video/mp4')).toEqual({ size: bytes.length });
    expect(fake.objects.get('ws_1/renders/render_a.mp4')?.data.equals(bytes)).toBe(true);

    expect(await storage.stat('ws_1/renders/render_a.mp4')).toEqual({ size: bytes.length, contentType: 'video/mp4' });
    expect(await storage.stat('ws_1/renders/missing.mp4')).toBeNull();

    const out = path.join(dir, 'out', 'copy.mp4');
    await storage.downloadTo('ws_1/renders/render_a.mp4', out);
    expect(readFileSync(out).equals(bytes)).toBe(true);
    await expect(storage.downloadTo('ws_1/renders/missing.mp4', path.join(dir, 'out', 'none'))).rejects.toBeInstanceOf(ObjectNotFoundError);

    expect(await storage.check()).toBe(true);
    await storage.delete('ws_1/renders/render_a.mp4');
    await storage.delete('ws_1/renders/render_a.mp4');
    expect(fake.objects.size).toBe(0);
    expect(new Set(fake.calls)).toEqual(
      new Set([
        'POST /upload?uploadType=multipart',
        'GET /o/{name}',
        'GET /o/{name}?alt=media',
        'GET /storage/v1/b/test-bucket/o',
        'DELETE /o/{name}',
      ]),
    );
  });

  it('streams an upload and stores nothing when it exceeds maxBytes', async () => {
    const small = Readable.from([Buffer.from('{"a":1}')]);
    expect(await storage.putStream('ws_1/small.json', small, 'application/json', { maxBytes: 100 })).toEqual({ size: 7 });
    expect(fake.objects.get('ws_1/small.json')).toEqual({ data: Buffer.from('{"a":1}'), contentType: 'application/json' });

    const chunks = Array.from({ length: 50 }, () => Buffer.alloc(1024, 7));
    const big = storage.putStream('ws_1/big.bin', Readable.from(chunks), 'application/octet-stream', { maxBytes: 10_000 });
    await expect(big).rejects.toBeInstanceOf(ObjectTooLargeError);
    await new Promise((resolve) => setTimeout(resolve, 100)); // let an aborted request reach the fake, if it would
    expect(fake.objects.has('ws_1/big.bin')).toBe(false);
  });

  it('is not ready when the API does not answer', async () => {
    const down = new GcsStorage({ bucket: BUCKET, apiEndpoint: 'http://127.0.0.1:9' });
    expect(await down.check()).toBe(false);
  });
});

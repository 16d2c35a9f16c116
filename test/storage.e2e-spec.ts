import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import * as path from 'node:path';
import { AppModule } from '../src/app.module';
import { loadConfig, Role } from '../src/config/app-config';
import { FetcherModule } from '../src/infra/http/fetcher.module';
import { Storage } from '../src/infra/storage/storage';
import { FilesModule, StorageModule } from '../src/infra/storage/storage.module';
import { waitFor } from './helpers/media';
import { startTestApp, TestApp } from './helpers/test-app';

const UPLOAD_CAP = 4096;

/** Path and query of a signed URL, for the test app's supertest client. */
function local(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

function withParam(url: string, name: string, value: string | null): string {
  const parsed = new URL(url);
  if (value === null) parsed.searchParams.delete(name);
  else parsed.searchParams.set(name, value);
  return local(parsed.toString());
}

describe('local storage: signed /v1/files/ URLs', () => {
  let app: TestApp;
  let storage: Storage;
  const content = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));

  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { UPLOAD_MAX_BYTES: String(UPLOAD_CAP) } });
    storage = app.running.app.get(Storage);
    const source = path.join(app.dataDir, 'source.mp4');
    writeFileSync(source, content);
    await storage.putFile('ws_1/renders/render_a.mp4', source, 'video/mp4');
  });
  afterAll(() => app.close());

  /** Files under DATA_DIR/storage, bookkeeping folders included. */
  function storedFiles(): string[] {
    const root = path.join(app.dataDir, 'storage');
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
      .sort();
  }

  it('serves a stored file through a signed URL, whole, by range, and to HEAD', async () => {
    expect(storage.driver).toBe('local');
    const { url, expires_at } = await storage.signedReadUrl('ws_1/renders/render_a.mp4', 600);
    expect(url).toMatch(/^http:\/\/localhost:\d+\/v1\/files\/ws_1\/renders\/render_a\.mp4\?expires=\d+&signature=[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now() + 590_000);

    const whole = await app.http.get(local(url)).buffer(true).expect(200);
    expect(whole.headers['content-type']).toBe('video/mp4');
    expect(whole.headers['content-length']).toBe('1000');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['cache-control']).toMatch(/^private, max-age=(59\d|600)$/);
    expect(whole.headers['content-disposition']).toBe('inline');
    expect(whole.headers['x-content-type-options']).toBe('nosniff');
    expect(whole.headers['content-security-policy']).toBeUndefined();
    expect(Buffer.compare(whole.body, content)).toBe(0);

    const range = await app.http.get(local(url)).set('Range', 'bytes=100-199').buffer(true).expect(206);
    expect(range.headers['content-range']).toBe('bytes 100-199/1000');
    expect(Buffer.compare(range.body, content.subarray(100, 200))).toBe(0);

    const tail = await app.http.get(local(url)).set('Range', 'bytes=-10').buffer(true).expect(206);
    expect(Buffer.compare(tail.body, content.subarray(990))).toBe(0);

    // Past the end: the whole file rather than a 416 (the error table has none).
    const beyond = await app.http.get(local(url)).set('Range', 'bytes=5000-').buffer(true).expect(200);
    expect(beyond.body.length).toBe(1000);

    const head = await app.http.head(local(url)).expect(200);
    expect(head.headers['content-length']).toBe('1000');
    expect(head.headers['content-type']).toBe('video/mp4');
  });

  it('serves an attachment under the signed download name', async () => {
    const { url } = await storage.signedReadUrl('ws_1/renders/render_a.mp4', 600, { downloadFilename: 'Summer clip.mp4' });
    const res = await app.http.get(local(url)).buffer(true).expect(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="Summer clip.mp4"');
    expect(res.headers['content-type']).toBe('video/mp4');
  });

  it('refuses an expired URL with 403 saying so', async () => {
    const { url } = await storage.signedReadUrl('ws_1/renders/render_a.mp4', -5);
    const res = await app.http.get(local(url)).expect(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toMatch(/expired at \d{4}-\d\d-\d\dT/);
    expect(res.body.error.details.expired_at).toBeDefined();
  });

  it('refuses tampered and unsigned URLs with 403', async () => {
    const { url } = await storage.signedReadUrl('ws_1/renders/render_a.mp4', 600, { downloadFilename: 'a.mp4' });
    const signature = new URL(url).searchParams.get('signature')!;
    const tampered = [
      withParam(url, 'signature', (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)),
      withParam(url, 'expires', String(Number(new URL(url).searchParams.get('expires')) + 3600)),
      withParam(url, 'filename', 'other.mp4'),
      withParam(url, 'filename', null),
      local(url).replace('render_a.mp4', 'render_b.mp4'),
      local(url).replace('/ws_1/', '/ws_2/'),
    ];
    for (const target of tampered) {
      const res = await app.http.get(target).expect(403);
      expect(res.body).toEqual({ error: { code: 'forbidden', message: expect.stringMatching(/signature does not match/) } });
    }
    const unsigned = await app.http.get('/v1/files/ws_1/renders/render_a.mp4').expect(403);
    expect(unsigned.body.error).toEqual({ code: 'forbidden', message: expect.stringMatching(/not signed/) });
    await app.http.get(withParam(url, 'expires', 'soon')).expect(403);
  });

  it('answers 404 in the envelope for a signed URL whose file is gone', async () => {
    const { url } = await storage.signedReadUrl('ws_1/renders/never-written.mp4', 600);
    const res = await app.http.get(local(url)).expect(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'File not found' } });
  });

  it('accepts a signed PUT upload, streamed as is even when it is JSON', async () => {
    const { url, expires_at } = await storage.signedUploadUrl('ws_1/uploads/asset_a.json', 'application/json', 3600);
    expect(new URL(url).searchParams.get('content_type')).toBe('application/json');
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now() + 3590_000);
    const body = Buffer.from('{ "not":   "parsed",\n  "kept": [1, 2, 3] }\n');
    const res = await app.http.put(local(url)).set('Content-Type', 'application/json').send(body.toString()).expect(200);
    expect(res.body).toEqual({ key: 'ws_1/uploads/asset_a.json', size: body.length });
    expect(await storage.stat('ws_1/uploads/asset_a.json')).toEqual({ size: body.length, contentType: 'application/json' });

    const read = await storage.signedReadUrl('ws_1/uploads/asset_a.json', 60);
    const back = await app.http.get(local(read.url)).buffer(true).parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect(back.headers['content-type']).toMatch(/^application\/json/);
    expect(Buffer.compare(back.body, body)).toBe(0);

    // The same URL is no read grant.
    await app.http.get(local(url)).expect(403);
  });

  it('refuses an upload with another Content-Type (422), an expired URL (403) or a tampered type (403)', async () => {
    const { url } = await storage.signedUploadUrl('ws_1/uploads/asset_b.mp4', 'video/mp4', 3600);
    const wrongType = await app.http.put(local(url)).set('Content-Type', 'video/quicktime').send(Buffer.from('x')).expect(422);
    expect(wrongType.body.error.code).toBe('invalid_request');
    expect(wrongType.body.error.details.errors[0]).toMatchObject({ type: 'literal_error', loc: ['header', 'content-type'] });
    expect(wrongType.body.error.details.errors[0].msg).toContain('video/mp4');

    const retyped = await app.http
      .put(withParam(url, 'content_type', 'video/quicktime'))
      .set('Content-Type', 'video/quicktime')
      .send(Buffer.from('x'))
      .expect(403);
    expect(retyped.body.error.code).toBe('forbidden');

    const expired = await storage.signedUploadUrl('ws_1/uploads/asset_b.mp4', 'video/mp4', -1);
    const late = await app.http.put(local(expired.url)).set('Content-Type', 'video/mp4').send(Buffer.from('x')).expect(403);
    expect(late.body.error.message).toMatch(/expired/);

    expect(await storage.stat('ws_1/uploads/asset_b.mp4')).toBeNull();
  });

  it('refuses a body over the cap with 413, declared or streamed, leaving nothing on disk', async () => {
    const before = storedFiles();
    const { url } = await storage.signedUploadUrl('ws_1/uploads/asset_big.bin', 'application/octet-stream', 3600);

    const declared = await app.http.put(local(url)).set('Content-Type', 'application/octet-stream').send(Buffer.alloc(UPLOAD_CAP + 1)).expect(413);
    expect(declared.body).toEqual({
      error: { code: 'payload_too_large', message: `The upload exceeds the limit of ${UPLOAD_CAP} bytes`, details: { limit_bytes: UPLOAD_CAP } },
    });

    // Chunked, no Content-Length: the cap trips while streaming; the client still reads the 413.
    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${app.url}${local(url)}`, { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      for (let i = 0; i < 64; i++) req.write(Buffer.alloc(1024, i));
      req.end();
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error.code).toBe('payload_too_large');

    expect(await storage.stat('ws_1/uploads/asset_big.bin')).toBeNull();
    expect(storedFiles()).toEqual(before);

    // Exactly the cap is fine.
    const full = await app.http.put(local(url)).set('Content-Type', 'application/octet-stream').send(Buffer.alloc(UPLOAD_CAP, 1)).expect(200);
    expect(full.body.size).toBe(UPLOAD_CAP);
  });

  it('keeps nothing of an upload the client abandons midway', async () => {
    const before = storedFiles();
    const { url } = await storage.signedUploadUrl('ws_1/uploads/asset_cut.bin', 'application/octet-stream', 3600);
    await new Promise<void>((resolve) => {
      const headers = { 'Content-Type': 'application/octet-stream', 'Content-Length': '3000' };
      const req = httpRequest(`${app.url}${local(url)}`, { method: 'PUT', headers });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(1000), () => setTimeout(() => req.destroy(), 50));
    });
    // The server notices the closed connection and removes its temporary file.
    const after = await waitFor(async () => storedFiles(), (files) => JSON.stringify(files) === JSON.stringify(before), 10_000, 20);
    expect(after).toEqual(before);
    expect(await storage.stat('ws_1/uploads/asset_cut.bin')).toBeNull();
  });

  it('reports storage in readiness', async () => {
    const ready = await app.http.get('/v1/ready').expect(200);
    expect(ready.body.checks.storage).toBe('ok');
    expect(existsSync(path.join(app.dataDir, '.storage-signing-secret'))).toBe(true);
  });
});

describe('storage drivers and roles without the /v1/files/ route', () => {
  it('answers 404 on /v1/files/ when GCS is the driver, and readiness follows the bucket', async () => {
    // Port 9 on loopback: nothing listens, so the bucket is unreachable.
    const app = await startTestApp({ role: 'api', env: { GCS_BUCKET: 'test-bucket', GCS_API_ENDPOINT: 'http://127.0.0.1:9' } });
    try {
      expect(app.running.app.get(Storage).driver).toBe('gcs');
      const res = await app.http.get('/v1/files/ws_1/a.mp4?expires=1&signature=x').expect(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: 'No route GET /v1/files/ws_1/a.mp4' } });
      await app.http.put('/v1/files/ws_1/a.mp4').set('Content-Type', 'video/mp4').send(Buffer.from('x')).expect(404);
      const ready = await app.http.get('/v1/ready').expect(503);
      expect(ready.body.checks.storage).toBe('unavailable');
    } finally {
      await app.close();
    }
  });

  it('serves /v1/files/ only where the REST API is served, while every role gets Storage', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
    const importsOf = (role: Role) => AppModule.forRoot({ config, role, databaseUrl: 'postgres://unused@127.0.0.1/unused' }).imports ?? [];
    for (const role of ['api', 'all', 'worker'] as Role[]) {
      expect(importsOf(role)).toEqual(expect.arrayContaining([StorageModule, FetcherModule]));
      expect(importsOf(role).includes(FilesModule)).toBe(role !== 'worker');
    }
  });
});

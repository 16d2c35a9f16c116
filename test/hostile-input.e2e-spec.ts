import { connect } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/** The envelope of spec part 7, nothing else at the top level. */
function expectEnvelope(res: { status: number; body: unknown }, status: number): { code: string; message: string; details?: any } {
  expect(res.status).toBe(status);
  const body = res.body as { error: { code: string; message: string; details?: unknown } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(typeof body.error.code).toBe('string');
  expect(typeof body.error.message).toBe('string');
  return body.error;
}

/** Sends raw bytes over TCP and returns the whole answer (the server closes the connection). */
function rawRequest(url: string, bytes: Buffer | string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parseRaw(answer: string): { status: number; headers: string; body: any } {
  const [head, ...rest] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(rest.join('\r\n\r\n')) };
}

describe('hostile input: every refusal is a 4xx in the envelope, never a 500', () => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { TRUST_PROXY: 'true', ALLOW_HTTP_WEBHOOKS: 'true' } });
    ({ key } = await signupVerified(app));
  });
  afterAll(() => app.close());

  /** The bytes exactly as given (supertest would serialise a Buffer as JSON). */
  const json = async (method: 'post' | 'patch', path: string, body: string | Buffer, headers: Record<string, string> = {}) => {
    const res = await fetch(`${app.url}${path}`, {
      method: method.toUpperCase(),
      headers: { ...bearer(key), 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  it('refuses a NUL character in a body string, a field name, a path id and a query value', async () => {
    const inString = expectEnvelope(await json('post', '/v1/api-keys', '{"name":"ci\\u0000key"}'), 422);
    expect(inString.code).toBe('invalid_request');
    expect(inString.details.errors).toEqual([expect.objectContaining({ type: 'string_nul', loc: ['body', 'name'], pointer: '/name' })]);

    const inKey = expectEnvelope(await json('post', '/v1/uploads', '{"content_type":"video/mp4","file\\u0000name":"a"}'), 422);
    expect(inKey.details.errors[0]).toMatchObject({ type: 'string_nul', pointer: '/file\u0000name' });

    for (const path of ['/v1/renders/render_%00', '/v1/workspace/assets/asset_%00x', '/v1/webhooks/wh_%00']) {
      const error = expectEnvelope(await app.http.get(path).set(bearer(key)), 422);
      expect(error.details.errors[0]).toMatchObject({ type: 'string_nul', loc: ['path'] });
    }
    // Refused before any route, yet logged like every request (the log middleware runs first).
    const refused = await app.http.get('/v1/renders/render_%00').set(bearer(key));
    expect(refused.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const malformed = await app.http.post('/v1/api-keys').set(bearer(key)).set('Content-Type', 'application/json').send('{"name":');
    expect(malformed.status).toBe(422);
    expect(malformed.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const inQuery = expectEnvelope(await app.http.get('/v1/renders?cursor=%00').set(bearer(key)), 422);
    expect(inQuery.details.errors[0]).toMatchObject({ type: 'string_nul', loc: ['query', 'cursor'] });
  });

  it('refuses lone UTF-16 surrogates, as JSON escapes and as raw bytes, and any body that is not UTF-8', async () => {
    const escaped = expectEnvelope(await json('patch', '/v1/workspace', '{"name":"a\\ud800b"}'), 422);
    expect(escaped.details.errors).toEqual([expect.objectContaining({ type: 'string_unicode', pointer: '/name' })]);
    const lowAlone = expectEnvelope(await json('post', '/v1/api-keys', '{"name":"\\udc00"}'), 422);
    expect(lowAlone.details.errors[0]).toMatchObject({ type: 'string_unicode', pointer: '/name' });
    // A well-formed pair is a character like any other.
    const pair = await json('post', '/v1/api-keys', '{"name":"key \\ud83c\\udfac"}');
    expect(pair.status).toBe(201);
    expect(pair.body.name).toBe('key 🎬');

    // The surrogate U+D800 encoded as if it were a character (CESU-8), and a stray 0xFF byte.
    for (const bad of [Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xff])]) {
      const body = Buffer.concat([Buffer.from('{"name":"a'), bad, Buffer.from('"}')]);
      const error = expectEnvelope(await json('patch', '/v1/workspace', body), 422);
      expect(error.details.errors[0]).toMatchObject({ type: 'string_unicode', loc: ['body'] });
    }
    const utf16 = expectEnvelope(await json('post', '/v1/api-keys', Buffer.from('{"name":"x"}', 'utf16le'), { 'Content-Type': 'application/json; charset=utf-16' }), 422);
    expect(utf16.message).toMatch(/UTF-8/);
    const path = expectEnvelope(await app.http.get('/v1/renders/%ED%A0%80').set(bearer(key)), 422);
    expect(path.details.errors[0]).toMatchObject({ type: 'string_unicode', loc: ['path'] });
    // The query parser would quietly turn these into U+FFFD.
    const query = expectEnvelope(await app.http.get('/v1/renders?cursor=%ED%A0%80').set(bearer(key)), 422);
    expect(query.details.errors[0]).toMatchObject({ type: 'string_unicode', loc: ['query'] });
  });

  it('refuses JSON nested deeper than 64 levels on every route, public ones and unknown ones included', async () => {
    const nested = (depth: number) => `{"name":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    // 64 levels are parsed; the field is then just of the wrong type.
    const atLimit = expectEnvelope(await json('post', '/v1/api-keys', nested(64)), 422);
    expect(atLimit.details.errors[0]).toMatchObject({ type: 'string_type', pointer: '/name' });
    for (const path of ['/v1/api-keys', '/v1/signup', '/v1/renders', '/v1/no-such-route']) {
      const error = expectEnvelope(await json('post', path, nested(65)), 422);
      expect(error.details).toMatchObject({ max_depth: 64, errors: [{ type: 'json_too_deep', loc: ['body'], pointer: '' }] });
    }
    // Brackets inside strings are text, not nesting.
    const inString = await json('post', '/v1/api-keys', JSON.stringify({ name: '['.repeat(90) }));
    expect(inString.status).toBe(201);
    // Far past any recursion limit: still a clean 422.
    const huge = `${'['.repeat(500_000)}${']'.repeat(500_000)}`;
    expectEnvelope(await json('post', '/v1/renders', huge), 422);
  });

  it('answers corrupt compressed bodies and unknown Content-Encodings with 422; sound ones are read', async () => {
    const corruptGzip = Buffer.concat([gzipSync('{"name":"x"}').subarray(0, 12), Buffer.from('garbage that is not deflate')]);
    const gz = expectEnvelope(await json('post', '/v1/api-keys', corruptGzip, { 'Content-Encoding': 'gzip' }), 422);
    expect(gz.code).toBe('invalid_request');
    const br = expectEnvelope(await json('post', '/v1/api-keys', Buffer.from('not brotli at all, no'), { 'Content-Encoding': 'br' }), 422);
    expect(br.code).toBe('invalid_request');
    const unknown = expectEnvelope(await json('post', '/v1/api-keys', '{"name":"x"}', { 'Content-Encoding': 'compress' }), 422);
    expect(unknown.message).toMatch(/compress/);

    // A compression bomb: 20 KB on the wire, 20 MB inflated; the limit counts inflated bytes.
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"name":"'), Buffer.alloc(20 * 1024 * 1024, 0x61), Buffer.from('"}')]));
    expect(bomb.length).toBeLessThan(100 * 1024);
    expectEnvelope(await json('post', '/v1/api-keys', bomb, { 'Content-Encoding': 'gzip' }), 413);

    const good = await json('post', '/v1/api-keys', gzipSync('{"name":"gzipped"}'), { 'Content-Encoding': 'gzip' });
    expect(good.status).toBe(201);
    expect(good.body.name).toBe('gzipped');
    const goodBr = await json('post', '/v1/api-keys', brotliCompressSync('{"name":"brotli"}'), { 'Content-Encoding': 'br' });
    expect(goodBr.status).toBe(201);
  });

  it('refuses an explicit null where the field does not take null, and keeps null where it does', async () => {
    const name = expectEnvelope(await json('patch', '/v1/workspace', '{"name":null}'), 422);
    expect(name.details.errors).toEqual([expect.objectContaining({ type: 'string_type', loc: ['body', 'name'], pointer: '/name' })]);
    const flag = expectEnvelope(await json('patch', '/v1/workspace', '{"ingest_external":null}'), 422);
    expect(flag.details.errors[0]).toMatchObject({ type: 'bool_type', pointer: '/ingest_external' });
    expect((await app.http.get('/v1/workspace').set(bearer(key))).body.name).toBe('Test workspace');

    const hook = await json('post', '/v1/webhooks', JSON.stringify({ url: 'https://example.com/hook', events: ['render.completed'] }));
    expect(hook.status).toBe(201);
    for (const field of ['url', 'events', 'enabled']) {
      const error = expectEnvelope(await json('patch', `/v1/webhooks/${hook.body.id}`, JSON.stringify({ [field]: null })), 422);
      expect(error.details.errors[0]).toMatchObject({ pointer: `/${field}` });
    }
    const upload = expectEnvelope(await json('post', '/v1/uploads', '{"content_type":"video/mp4","filename":null}'), 422);
    expect(upload.details.errors[0]).toMatchObject({ type: 'string_type', pointer: '/filename' });
    // webhook_url is documented as nullable: null passes the body checks (the source check fails next).
    const task = await json('post', '/v1/tasks/transcribe', JSON.stringify({ source_url: 'http://127.0.0.1:9/a.wav', webhook_url: null }));
    expect(task.status).toBe(422);
    expect(task.body.error.code).toBe('invalid_source');
  });

  it('refuses __proto__, constructor and prototype keys anywhere in a body, and in the query', async () => {
    const top = expectEnvelope(await json('post', '/v1/api-keys', '{"name":"x","__proto__":{"admin":true}}'), 422);
    expect(top.details.errors).toEqual([expect.objectContaining({ type: 'extra_forbidden', loc: ['body', '__proto__'], pointer: '/__proto__' })]);
    const nested = expectEnvelope(
      await json('post', '/v1/tasks/transcribe', '{"source_url":"https://example.com/a.wav","metadata":{"a":{"constructor":{"prototype":1}}}}'),
      422,
    );
    expect(nested.details.errors[0]).toMatchObject({ type: 'extra_forbidden', pointer: '/metadata/a/constructor' });
    const inRender = expectEnvelope(await json('post', '/v1/renders', '{"elements":[{"type":"text","text":"hi","prototype":{}}]}'), 422);
    expect(inRender.details.errors[0]).toMatchObject({ pointer: '/elements/0/prototype' });
    const publicRoute = expectEnvelope(await json('post', '/v1/signup', '{"email":"a@example.com","workspace_name":"x","constructor":1}'), 422);
    expect(publicRoute.details.errors[0]).toMatchObject({ pointer: '/constructor' });
    const query = expectEnvelope(await app.http.get('/v1/renders?__proto__=1').set(bearer(key)), 422);
    expect(query.details.errors[0]).toMatchObject({ type: 'extra_forbidden', loc: ['query', '__proto__'] });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('refuses a body that is not JSON instead of ignoring it', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream']) {
      const error = expectEnvelope(await json('post', '/v1/api-keys', 'name=sneaky', { 'Content-Type': contentType }), 422);
      expect(error.details.errors[0]).toMatchObject({ type: 'content_type', loc: ['header', 'content-type'] });
    }
    const keys = await app.http.get('/v1/api-keys').set(bearer(key)).expect(200);
    expect(keys.body.data.map((k: { name: string }) => k.name)).not.toContain('api key');
    // No body at all is still fine where none is needed.
    const hook = await json('post', '/v1/webhooks', JSON.stringify({ url: 'https://example.com/rotate', events: ['render.failed'] }));
    const rotated = await app.http.post(`/v1/webhooks/${hook.body.id}/rotate-secret`).set(bearer(key));
    expect(rotated.status).toBe(200);
  });

  it('answers a body over the limit with 413, and hundreds of thousands of elements under it with a quick 422, in the envelope', async () => {
    const element = '{"type":"text","text":"hello there","time":0,"duration":1,"x":"50%","y":"50%"},';
    const body = `{"elements":[${element.repeat(200_000).slice(0, -1)}]}`;
    expect(body.length).toBeGreaterThan(10 * 1024 * 1024);
    const error = expectEnvelope(await json('post', '/v1/renders', body), 413);
    expect(error).toMatchObject({ code: 'payload_too_large', details: { limit_bytes: 10 * 1024 * 1024 } });
    // Under the byte limit, 300 000 empty elements are refused by their count alone, before any
    // schema validates them one by one; so is an object with 300 000 fields.
    const many = expectEnvelope(await json('post', '/v1/renders', `{"elements":[${'{},'.repeat(300_000).slice(0, -1)}]}`), 422);
    expect(many.details.errors).toEqual([expect.objectContaining({ type: 'too_long', pointer: '/elements', loc: ['body', 'elements'] })]);
    const fields = Array.from({ length: 300_000 }, (_, i) => `"k${i}":1`).join(',');
    const wide = expectEnvelope(await json('post', '/v1/renders', `{"metadata":{${fields}}}`), 422);
    expect(wide.details.errors[0]).toMatchObject({ type: 'too_long', pointer: '/metadata' });
    // More elements than a request may hold is one problem, found before any element is checked.
    const tooMany = expectEnvelope(await json('post', '/v1/renders', `{"elements":[${'{"type":"text","bogus":1},'.repeat(5000).slice(0, -1)}]}`), 422);
    expect(tooMany.details.errors).toEqual([expect.objectContaining({ type: 'too_long', pointer: '/elements', msg: expect.stringMatching(/at most 1000 items, not 5000/) })]);
    // Within it, a request with a thousand problems answers the first 100 and counts them all.
    const invalid = await json('post', '/v1/renders', `{"elements":[${'{"type":"text","bogus":1},'.repeat(900).slice(0, -1)}]}`);
    const refused = expectEnvelope(invalid, 422);
    expect(refused.details.errors).toHaveLength(100);
    expect(refused.details.errors_total).toBeGreaterThanOrEqual(900);
    expect(JSON.stringify(invalid.body).length).toBeLessThan(64 * 1024);
  });

  it("gives Node's own refusals (oversized headers, malformed requests) the envelope", async () => {
    const big = parseRaw(await rawRequest(app.url, `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(big.status).toBe(431);
    expect(big.headers).toMatch(/content-type: application\/json/i);
    expect(big.body).toEqual({ error: { code: 'invalid_request', message: expect.stringMatching(/headers/) } });

    const garbage = parseRaw(await rawRequest(app.url, 'THIS IS NOT HTTP\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.code).toBe('invalid_request');

    const badHeader = parseRaw(await rawRequest(app.url, 'GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n'));
    expect(badHeader.status).toBe(400);
    expect(badHeader.body.error.code).toBe('invalid_request');
    // The server is still answering.
    expect((await app.http.get('/v1/health')).status).toBe(200);
  });
});

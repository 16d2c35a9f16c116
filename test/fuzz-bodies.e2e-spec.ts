import { brotliCompressSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { TestOidcProvider } from './helpers/oidc-provider';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/** Hostile requests sent in all, spread over the routes; sized to finish well within a minute. */
const TOTAL_RUNS = 4000;

interface Operation {
  method: 'POST' | 'PATCH';
  path: string;
  /** Every property name anywhere in the body's schema (nested objects and element types included). */
  fields: string[];
  headers: string[];
}

type OpenApi = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, unknown> } };

/** Property names of a JSON Schema, through $ref, $defs, unions and items, at any depth. */
function fieldNames(schema: unknown, doc: OpenApi, seen = new Set<unknown>()): string[] {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) visit(doc.components?.schemas?.[ref.split('/').pop()!]);
    const properties = (node as { properties?: Record<string, unknown> }).properties;
    if (properties && typeof properties === 'object') for (const name of Object.keys(properties)) names.add(name);
    for (const child of Object.values(node)) visit(child);
  };
  visit(schema);
  return [...names];
}

function operationsOf(doc: OpenApi): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['post', 'patch'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      operations.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        fields: schema ? fieldNames(schema, doc) : [],
        headers: (operation.parameters ?? []).filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name),
      });
    }
  }
  return operations;
}

// ---- generators -------------------------------------------------------------------------------

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));

const hostileString = fc.oneof(
  { arbitrary: fc.string({ maxLength: 30 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 2 },
  fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })).map(([a, b]) => `${a}\u0000${b}`),
  fc.tuple(fc.string({ maxLength: 10 }), loneSurrogate, fc.string({ maxLength: 10 })).map(([a, s, b]) => a + s + b),
  fc.constantFrom(
    '',
    ' ',
    // Loopback: the guarded fetcher refuses it at once, so no source check waits on the network.
    'http://127.0.0.1:9/media.mp4',
    'https://127.0.0.1/a.wav',
    'javascript:alert(1)',
    'video/mp4',
    'image/svg+xml',
    'render.completed',
    'transcribe',
    'a@example.com',
    '#ff000080',
    'text',
    'video',
    'audio',
    'image',
    'shape',
    '{{name}}',
    '50%',
    '../../etc/passwd',
    '\u202e\ufeff',
    'x'.repeat(5000),
  ),
);

const numberText = fc.oneof(
  fc.integer().map(String),
  fc.integer({ min: -5, max: 300 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom('1e400', '-1e400', '1e-400', '-0', '123456789012345678901234567890', '9007199254740993', '0.1', '8192', '8193', '240'),
);

const scalarText = fc.oneof(
  { arbitrary: hostileString.map((s) => JSON.stringify(s)), weight: 4 },
  { arbitrary: numberText, weight: 3 },
  { arbitrary: fc.constantFrom('true', 'false', 'null'), weight: 2 },
);

function keyOf(fields: string[]): fc.Arbitrary<string> {
  const known = fields.length > 0 ? [{ arbitrary: fc.constantFrom(...fields), weight: 6 }] : [];
  return fc.oneof(...known, { arbitrary: hostileString, weight: 2 }, { arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype'), weight: 1 });
}

const objectText = (key: fc.Arbitrary<string>, value: fc.Arbitrary<string>, maxLength = 6) =>
  fc.array(fc.tuple(key, value), { maxLength }).map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);

/** JSON text whose keys favour the route's own field names, so validation gets past the first key. */
function valueText(fields: string[]): fc.Arbitrary<string> {
  const key = keyOf(fields);
  const { value } = fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth: 4 },
      { arbitrary: scalarText, weight: 5 },
      { arbitrary: fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`), weight: 1 },
      { arbitrary: objectText(key, tie('value')), weight: 2 },
    ),
  }));
  return value;
}

/** Nesting around the limit of 64 (and past it), as arrays or objects, under one of the route's keys. */
function deepText(fields: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(keyOf(fields), fc.integer({ min: 55, max: 200 }), fc.boolean())
    .map(([key, depth, arrays]) =>
      `{${JSON.stringify(key)}:${arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`}}`,
    );
}

/** Raw bytes that are not UTF-8 (stray bytes, encoded surrogates) inside a string of a JSON body. */
function badBytes(fields: string[]): fc.Arbitrary<Buffer> {
  return fc
    .tuple(keyOf(fields), fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 4 }), fc.constant(new Uint8Array([0xed, 0xa0, 0x80]))))
    .map(([key, bytes]) => Buffer.concat([Buffer.from(`{${JSON.stringify(key)}:"a`), Buffer.from(bytes), Buffer.from('"}')]));
}

function bodyOf(operation: Operation): fc.Arbitrary<string | Buffer> {
  const fields = operation.fields;
  return fc.oneof(
    { arbitrary: objectText(keyOf(fields), valueText(fields), 8), weight: 8 },
    { arbitrary: valueText(fields), weight: 2 },
    { arbitrary: deepText(fields), weight: 1 },
    { arbitrary: badBytes(fields), weight: 1 },
    // Truncated JSON.
    { arbitrary: fc.tuple(objectText(keyOf(fields), valueText(fields)), fc.nat()).map(([text, cut]) => text.slice(0, cut % (text.length + 1))), weight: 1 },
  );
}

type Encoding = 'identity' | 'gzip' | 'br' | 'corrupt-gzip' | 'compress';
const encoding = fc.oneof(
  { arbitrary: fc.constant<Encoding>('identity'), weight: 12 },
  { arbitrary: fc.constantFrom<Encoding>('gzip', 'br', 'corrupt-gzip', 'compress'), weight: 1 },
);
const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 12 },
  { arbitrary: fc.constantFrom('application/json; charset=utf-16', 'application/merge-patch+json', 'text/plain', 'application/json; charset=latin1'), weight: 1 },
);
const headerValue = fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 40 }), fc.constant('k'.repeat(300)));

function encode(body: string | Buffer, how: Encoding): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (how === 'gzip') return gzipSync(bytes);
  if (how === 'br') return brotliCompressSync(bytes);
  if (how === 'corrupt-gzip') return Buffer.concat([gzipSync(bytes).subarray(0, 10), Buffer.from('not deflate data')]);
  return bytes;
}

// ---- the test ---------------------------------------------------------------------------------

describe('fuzzing every POST and PATCH route of the OpenAPI document', () => {
  let app: TestApp;
  let idp: TestOidcProvider;
  let key: string;
  /** Ids that exist, so that some requests reach the handlers behind the path checks. */
  const realIds: string[] = [];
  let ipCounter = 0;

  beforeAll(async () => {
    idp = new TestOidcProvider();
    await idp.start();
    // role 'api': no worker runs, so a generated request that happens to be valid queues a job that never renders.
    app = await startTestApp({ role: 'api', env: { TRUST_PROXY: 'true', ...idp.env() } });
    ({ key } = await signupVerified(app));
    const hook = await app.http.post('/v1/webhooks').set(bearer(key)).send({ url: 'https://example.com/hook', events: ['render.completed'] });
    expect(hook.status).toBe(201);
    const delivery = await app.http.post(`/v1/webhooks/${hook.body.id}/test`).set(bearer(key));
    expect(delivery.status).toBe(202);
    realIds.push(hook.body.id, delivery.body.id, 'transcribe', 'remove-background');
  });
  afterAll(async () => {
    await app.close();
    await idp.stop();
  });

  it('answers thousands of hostile bodies with no 5xx, every error in the envelope', async () => {
    const doc = (await app.http.get('/v1/openapi.json').expect(200)).body as OpenApi;
    const operations = operationsOf(doc);
    // The document is the list: a new route is fuzzed without touching this test.
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(['POST /v1/renders', 'PATCH /v1/workspace', 'POST /v1/uploads', 'PATCH /v1/webhooks/{id}', 'POST /v1/signup']),
    );
    const segment = fc.oneof(
      { arbitrary: fc.constantFrom(...realIds), weight: 3 },
      { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent), weight: 1 },
      { arbitrary: fc.constantFrom('%00', '%ED%A0%80', '%FF', '..', '%2e%2e', 'render_%00', 'x'.repeat(3000)), weight: 1 },
    );
    let sent = 0;
    const statuses = new Map<number, number>();

    for (const operation of operations) {
      const request = fc.record({
        segments: fc.array(segment, { minLength: 2, maxLength: 2 }),
        body: bodyOf(operation),
        encoding,
        contentType,
        authenticated: fc.oneof({ arbitrary: fc.constant(true), weight: 9 }, { arbitrary: fc.constant(false), weight: 1 }),
        headerValues: fc.array(fc.option(headerValue), { minLength: operation.headers.length, maxLength: operation.headers.length }),
      });
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          let n = 0;
          const path = operation.path.replace(/\{[^}]+\}/g, () => r.segments[n++ % r.segments.length]);
          const headers: Record<string, string> = { 'Content-Type': r.contentType, 'X-Forwarded-For': `203.0.113.${(ipCounter++ % 250) + 1}` };
          if (r.authenticated) Object.assign(headers, bearer(key));
          if (r.encoding !== 'identity') headers['Content-Encoding'] = r.encoding === 'corrupt-gzip' ? 'gzip' : r.encoding;
          operation.headers.forEach((name, i) => {
            if (r.headerValues[i] !== null) headers[name] = r.headerValues[i]!;
          });
          const res = await fetch(`${app.url}${path}`, { method: operation.method, headers, body: new Uint8Array(encode(r.body, r.encoding)) });
          const text = await res.text();
          sent += 1;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const where = `${operation.method} ${path} → ${res.status} ${text.slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`server error: ${where}`);
          if (res.status >= 400) {
            let parsed: any;
            try {
              parsed = JSON.parse(text);
            } catch {
              throw new Error(`error body is not JSON: ${where}`);
            }
            const error = parsed?.error;
            const ok =
              Object.keys(parsed).length === 1 &&
              typeof error?.code === 'string' &&
              typeof error?.message === 'string' &&
              Object.keys(error).every((k) => ['code', 'message', 'details'].includes(k)) &&
              (error.details === undefined || (typeof error.details === 'object' && error.details !== null && !Array.isArray(error.details)));
            if (!ok) throw new Error(`error not in the envelope: ${where}`);
          } else if (res.status !== 204 && text !== '') {
            JSON.parse(text);
          }
        }),
        { numRuns: Math.ceil(TOTAL_RUNS / operations.length) },
      );
    }
    expect(sent).toBeGreaterThanOrEqual(TOTAL_RUNS);
    expect([...statuses.keys()].every((status) => status < 500)).toBe(true);
    // The generators reach past the first checks: validation refusals, and requests the handlers accept.
    expect(statuses.get(422)).toBeGreaterThan(0);
    expect([...statuses.keys()].some((status) => status >= 200 && status < 300)).toBe(true);
  }, 120_000);
});

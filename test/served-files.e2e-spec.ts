import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/** Path and query of a URL the service signed, for the supertest client. */
function local(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

const SCRIPTED_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("/v1/workspace")</script></svg>';
const HTML_PAGE = '<!doctype html><html><body><script>alert(document.domain)</script></body></html>';

/**
 * Stored files are the uploader's bytes served from the service's own origin (local storage):
 * only media may be shown inline, nothing may be sniffed into another type, and anything else
 * is an attachment in a CSP sandbox.
 */
describe('served files: nosniff, inline only for media, attachment and sandbox otherwise', () => {
  let app: TestApp;
  let key: string;
  let pages: Server;
  let pagesUrl: string;

  beforeAll(async () => {
    // Stands in for a site whose URL is a web page rather than a media file.
    pages = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(HTML_PAGE) });
      res.end(req.method === 'HEAD' ? undefined : HTML_PAGE);
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
    app = await startTestApp({ role: 'api', env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    ({ key } = await signupVerified(app));
  });
  afterAll(async () => {
    await app.close();
    await new Promise((resolve) => pages.close(resolve));
  });

  /** Reserves a slot, PUTs the bytes, and reads them back through the asset's source_url. */
  async function uploadAndRead(contentType: string, bytes: string, filename?: string) {
    const slot = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: contentType, ...(filename ? { filename } : {}) });
    expect(slot.status).toBe(201);
    await app.http.put(local(slot.body.upload_url)).set('Content-Type', contentType).send(Buffer.from(bytes)).expect(200);
    const redirect = await app.http.get(local(slot.body.source_url)).set(bearer(key)).expect(302);
    const served = await app.http.get(local(redirect.headers.location)).buffer(true).parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect(served.status).toBe(200);
    expect((served.body as Buffer).toString()).toBe(bytes);
    return { headers: served.headers, assetId: slot.body.asset_id as string };
  }

  it('serves an uploaded SVG carrying script as an attachment in a sandbox, never as a document', async () => {
    const { headers, assetId } = await uploadAndRead('image/svg+xml', SCRIPTED_SVG, 'logo.svg');
    expect(headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(headers['content-disposition']).toBe(`attachment; filename="${assetId}.svg"`);
    expect(headers['content-security-policy']).toBe('sandbox');
    expect(headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves HTML posing as an image (a name ending .png) under its declared type, attachment and sandboxed', async () => {
    const { headers } = await uploadAndRead('image/x-icon', HTML_PAGE, 'innocent.png');
    expect(headers['content-type']).toMatch(/^image\/x-icon/);
    expect(headers['content-disposition']).toMatch(/^attachment; filename="asset_[0-9A-Z]{26}\.png"$/);
    expect(headers['content-security-policy']).toBe('sandbox');
  });

  it('serves video, audio and raster images inline with nosniff: HTML bytes declared as video stay video', async () => {
    for (const contentType of ['video/mp4', 'audio/mpeg', 'image/png', 'image/jpeg', 'image/webp']) {
      const { headers } = await uploadAndRead(contentType, HTML_PAGE);
      expect(headers['content-type']).toMatch(new RegExp(`^${contentType.replace('/', '\\/')}`));
      expect(headers['content-disposition']).toBe('inline');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['content-security-policy']).toBeUndefined();
    }
  });

  it('refuses an HTML upload at reservation, and a source URL that answers with a web page at submit', async () => {
    for (const contentType of ['text/html', 'application/xhtml+xml']) {
      const refused = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: contentType });
      expect(refused.status).toBe(422);
      expect(refused.body.error.details.errors[0]).toMatchObject({ pointer: '/content_type' });
    }
    const render = await app.http
      .post('/v1/renders')
      .set(bearer(key))
      .send({ width: 64, height: 36, duration: 1, elements: [{ type: 'image', source_url: `${pagesUrl}/photo.png` }] });
    expect(render.status).toBe(422);
    expect(render.body.error).toMatchObject({ code: 'invalid_source', details: { pointer: '/elements/0/source_url' } });
    expect(render.body.error.message).toMatch(/web page \(text\/html/);
  });

  it('sends nosniff on API answers too, errors included', async () => {
    const missing = await app.http.get('/v1/no-such-route');
    expect(missing.status).toBe(404);
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
    expect((await app.http.get('/v1/health')).headers['x-content-type-options']).toBe('nosniff');
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fakeRegistry, renamedFont } from './helpers/font-registry';
import { inkOf, inkOverlap } from './helpers/glyphs';
import { frameAt, waitFor, type Frame } from './helpers/media';
import { renderThroughApi } from './helpers/render-through-api';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/** Path and query of a URL the service signed, for the supertest client. */
function local(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/**
 * Issue 35: font files uploaded as assets, named by `fonts[].source_url` (the upload's
 * `source_url`) and by brand kits' fonts, read as fonts when they land, scoped to their workspace.
 * The uploaded file is DejaVu Serif renamed "Merriweather": a Google Fonts name the stand-in
 * registry does not have, and no font on the machine, so only the upload can draw it.
 */
describe('uploaded font files', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  let registry: Awaited<ReturnType<typeof fakeRegistry>>;
  let site: Server;
  let fontUrl: string;
  let fontId: string;
  let font: Awaited<ReturnType<typeof upload>>;
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-font-uploads-'));
  const fontBytes = renamedFont('/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf', 'DejaVu Serif', 'Merriweather');
  const picture = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(256)]);

  beforeAll(async () => {
    registry = await fakeRegistry(outputs, []);
    // A page to extract a brand kit from (its own fonts are replaced by the upload below).
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body style="font-family: Georgia"><h1>Acme</h1><p>Things.</p></body></html>'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    app = await startTestApp({ env: { ALLOW_PRIVATE_NETWORK: 'true', FONT_REGISTRY_URL: registry.url } });
    ({ key } = await signupVerified(app));
    ({ key: otherKey } = await signupVerified(app));
    // Every test names this upload, so it lands here: each test also runs alone.
    font = await upload(fontBytes, 'font/ttf', 'brand.ttf');
    ({ id: fontId, url: fontUrl } = font);
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await registry?.close();
    await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
    rmSync(outputs, { recursive: true, force: true });
  });

  /** Reserves a slot, PUTs the bytes, and waits until the asset has been read. */
  const upload = async (bytes: Buffer, contentType: string, filename: string, apiKey = key) => {
    const slot = await app.http.post('/v1/uploads').set(bearer(apiKey)).send({ content_type: contentType, filename });
    expect(slot.status).toBe(201);
    await app.http.put(local(slot.body.upload_url)).set('Content-Type', contentType).send(bytes).expect(200);
    const asset = await waitFor(
      async () => (await app.http.get(`/v1/workspace/assets/${slot.body.asset_id}`).set(bearer(apiKey)).expect(200)).body,
      (found) => found.status === 'present' || found.status === 'unreadable',
      30_000,
      100,
    );
    return { id: slot.body.asset_id as string, url: slot.body.source_url as string, asset };
  };
  const line = (text: string, y: number, family: string) => ({ type: 'text', text, x: 10, y, x_anchor: '0%', y_anchor: '0%', font_size: 26, font_family: family, fill_color: '#ffffff' });
  const canvas = { width: 320, height: 90, output_format: 'png', background_color: '#000000' };
  const band = (frame: Frame, top: number) => inkOf(frame, { x: 160, y: top + 20 }, 40).concat(inkOf(frame, { x: 120, y: top + 20 }, 40));
  let drawnByName: Promise<boolean[]> | undefined;
  /** The upload's glyphs drawn by its family's name (rendered once, for the first and last tests). */
  const uploadedLine = () =>
    (drawnByName ??= (async () => {
      const request = { ...canvas, fonts: [{ source_url: fontUrl }], elements: [line('Quartz glyph', 5, 'Merriweather')] };
      return band(await frameAt((await renderThroughApi(app, key, outputs, 'by-name', request)).file), 5);
    })());

  it('takes a font upload, reads its family, and draws text with it by that name (nothing fetched from the registry)', async () => {
    expect(font.asset).toMatchObject({ kind: 'font', status: 'present', font_family: 'Merriweather', content_type: 'font/ttf', size_bytes: fontBytes.length, error: null });
    const listed = (await app.http.get('/v1/workspace/assets?kind=font').set(bearer(key)).expect(200)).body.data.map((asset: { id: string }) => asset.id);
    expect(listed).toEqual([fontId]);

    // No `family`: the name inside the file, known since the upload landed, so the catalogue family
    // of that name is not what the render fetches.
    const request = { ...canvas, fonts: [{ source_url: fontUrl }], elements: [line('Quartz glyph', 5, 'Merriweather'), line('Quartz glyph', 45, 'Inter')] };
    const dry = (await app.http.post('/v1/preview').set(bearer(key)).send({ ...request, preview: { mode: 'dry_run', check_sources: true } }).expect(200)).body;
    expect(dry).toMatchObject({ ok: true, fonts_to_fetch: [], sources: [{ pointer: '/fonts/0/source_url', kind: 'font', status: 'ok', error: null }] });

    const { file } = await renderThroughApi(app, key, outputs, 'uploaded', request);
    const frame = await frameAt(file);
    const drawn = band(frame, 5);
    expect(drawn.filter(Boolean).length).toBeGreaterThan(100);
    expect(inkOverlap(drawn, band(frame, 45))).toBeLessThan(0.6);
    expect(inkOverlap(drawn, await uploadedLine())).toBeGreaterThan(0.9);
    expect(registry.total()).toBe(0);
  }, 240_000);

  it('refuses what is not a font: a renamed picture is unreadable (invalid_source) and a render naming it is 422; media and fonts do not stand in for each other', async () => {
    const fake = await upload(picture, 'font/woff2', 'logo.woff2');
    expect(fake.asset).toMatchObject({ kind: 'font', status: 'unreadable', font_family: null, error: { code: 'invalid_source', message: expect.stringContaining('not a font') } });
    const named = await app.http.post('/v1/renders').set(bearer(key)).send({ ...canvas, fonts: [{ family: 'Fake', source_url: fake.url }], elements: [line('Hi', 5, 'Fake')] });
    expect(named.status).toBe(422);
    expect(named.body.error).toMatchObject({ code: 'invalid_source', details: { pointer: '/fonts/0/source_url', asset_id: fake.id } });

    const image = await upload(picture, 'image/png', 'logo.png');
    const imageAsFont = await app.http.post('/v1/renders').set(bearer(key)).send({ ...canvas, fonts: [{ family: 'Pic', source_url: image.url }], elements: [line('Hi', 5, 'Pic')] });
    expect(imageAsFont.status).toBe(422);
    expect(imageAsFont.body.error).toMatchObject({ code: 'invalid_source', details: { pointer: '/fonts/0/source_url' } });
    const fontAsImage = await app.http.post('/v1/renders').set(bearer(key)).send({ ...canvas, elements: [{ type: 'image', source_url: fontUrl, duration: 1 }] });
    expect(fontAsImage.status).toBe(422);
    expect(fontAsImage.body.error).toMatchObject({ code: 'invalid_source', details: { pointer: '/elements/0/source_url' } });

    const pdf = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'application/pdf', filename: 'brand.pdf' });
    expect(pdf.status).toBe(422);
    expect(pdf.body.error.details.errors[0]).toMatchObject({ pointer: '/content_type' });
    // A generic type is refused even with a font's extension: the document's one pattern says the same.
    const octet = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'application/octet-stream', filename: 'brand.otf' });
    expect(octet.status).toBe(422);
    expect(octet.body.error.details.errors[0]).toMatchObject({ pointer: '/content_type' });
  }, 120_000);

  it("another workspace's font asset reads as missing: 404 on the asset, 422 source_not_found in a render (brand kits: below)", async () => {
    await app.http.get(`/v1/workspace/assets/${fontId}`).set(bearer(otherKey)).expect(404);
    const render = await app.http.post('/v1/renders').set(bearer(otherKey)).send({ ...canvas, fonts: [{ source_url: fontUrl }], elements: [line('Hi', 5, 'Merriweather')] });
    expect(render.status).toBe(422);
    expect(render.body.error).toMatchObject({ code: 'source_not_found', details: { pointer: '/fonts/0/source_url' } });
    expect(registry.total()).toBe(0);
  }, 60_000);

  it("a brand kit's fonts name an uploaded font: {{brand.fonts.heading}} draws with it", async () => {
    const created = await app.http.post('/v1/brand-kits').set(bearer(key)).send({ url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/` }).expect(202);
    const kit = await waitFor(
      async () => (await app.http.get(`/v1/brand-kits/${created.body.id}`).set(bearer(key)).expect(200)).body,
      (found) => found.status !== 'extracting',
      60_000,
      200,
    );
    expect(kit.status).toBe('ready');

    // Another workspace's kit, or another workspace's font, reads as missing.
    await app.http.patch(`/v1/brand-kits/${kit.id}`).set(bearer(otherKey)).send({ fonts: { heading: 'Merriweather' } }).expect(404);
    const otherKit = await app.http.post('/v1/brand-kits').set(bearer(otherKey)).send({ url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/` }).expect(202);
    await waitFor(async () => (await app.http.get(`/v1/brand-kits/${otherKit.body.id}`).set(bearer(otherKey)).expect(200)).body, (found) => found.status !== 'extracting', 60_000, 200);
    const foreign = await app.http.patch(`/v1/brand-kits/${otherKit.body.id}`).set(bearer(otherKey)).send({ fonts: { heading: 'Merriweather', files: [{ source_url: fontUrl }] } });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error).toMatchObject({ code: 'source_not_found', details: { pointer: '/fonts/files/0/source_url' } });

    const patched = await app.http.patch(`/v1/brand-kits/${kit.id}`).set(bearer(key)).send({ fonts: { heading: 'Merriweather', body: 'Inter', files: [{ source_url: fontUrl }] } });
    expect(patched.status).toBe(200);
    expect(patched.body.fonts).toEqual({ heading: 'Merriweather', body: 'Inter', files: [{ family: 'Merriweather', source_url: fontUrl }] });
    expect(patched.body.confidence).toMatchObject({ 'fonts.heading': 1, 'fonts.body': 1 });

    const request = { ...canvas, brand_kit_id: kit.id, elements: [line('Quartz glyph', 5, '{{brand.fonts.heading}}'), line('Quartz glyph', 45, '{{brand.fonts.body}}')] };
    const dry = (await app.http.post('/v1/preview').set(bearer(key)).send({ ...request, preview: { mode: 'dry_run' } }).expect(200)).body;
    expect(dry).toMatchObject({ ok: true, fonts_to_fetch: [] });
    expect(dry.violations.filter((v: { code: string }) => v.code === 'BRAND_FONT_FALLBACK')).toEqual([]);
    const { file } = await renderThroughApi(app, key, outputs, 'brand', request);
    const frame = await frameAt(file);
    // The same glyphs as the upload drew by name in the first test, unlike the body's Inter.
    expect(inkOverlap(band(frame, 5), await uploadedLine())).toBeGreaterThan(0.9);
    expect(inkOverlap(band(frame, 5), band(frame, 45))).toBeLessThan(0.6);
    expect(registry.total()).toBe(0);
  }, 240_000);
});

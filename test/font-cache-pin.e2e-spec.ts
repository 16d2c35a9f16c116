import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fakeRegistry, LOBSTER_AND_PACIFICO } from './helpers/font-registry';
import { inkOf, inkOverlap } from './helpers/glyphs';
import { frameAt, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/**
 * Room for the stand-in's Lobster (about 22 KB) alone; with Pacifico (about 12 KB) or Bangers
 * (about 13 KB) beside it the cache is over its bound.
 */
const FONT_CACHE_BYTES = 30_000;

/**
 * Record 0144's promise, end to end: the font cache evicts least recently used first, but never a
 * catalogue family that a job still to draw names. A render of Lobster waits in the queue (no
 * worker runs yet) while two other families are fetched past the bound; Lobster, the least
 * recently used, stays, and the render draws it without asking the registry again.
 */
describe('font cache: a queued job keeps its family', () => {
  let api: TestApp;
  let worker: TestApp | undefined;
  let key: string;
  let registry: Awaited<ReturnType<typeof fakeRegistry>>;
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-font-pin-'));
  let env: Record<string, string>;

  beforeAll(async () => {
    registry = await fakeRegistry(outputs, [
      ...LOBSTER_AND_PACIFICO,
      { id: 'bangers', family: 'Bangers', file: require.resolve('@fontsource/roboto-mono/files/roboto-mono-latin-400-normal.woff2') },
    ]);
    env = { ALLOW_PRIVATE_NETWORK: 'true', FONT_REGISTRY_URL: registry.url, FONT_CACHE_MAX_BYTES: String(FONT_CACHE_BYTES) };
    // The API alone: nothing takes the render off the queue until the worker starts below.
    api = await startTestApp({ role: 'api', env });
    ({ key } = await signupVerified(api));
  }, 180_000);

  afterAll(async () => {
    await worker?.close();
    await api?.close();
    await registry?.close();
    rmSync(outputs, { recursive: true, force: true });
  });

  it('does not evict the family of a queued render; the render draws it from the cache', async () => {
    const line = (text: string, y: number, family: string) => ({ type: 'text', text, x: 10, y, x_anchor: '0%', y_anchor: '0%', font_size: 26, font_family: family, fill_color: '#ffffff' });
    const toFetch = async (...families: string[]) =>
      (
        await api.http
          .post('/v1/preview')
          .set(bearer(key))
          .send({ width: 160, height: 60, output_format: 'png', elements: families.map((family, index) => line('Cache', index * 10, family)), preview: { mode: 'dry_run' } })
          .expect(200)
      ).body.fonts_to_fetch;

    // Lobster is cached (as a Player's GET /v1/fonts/{family} or an earlier render would leave it).
    await api.http.get('/v1/fonts/Lobster').set(bearer(key)).expect(200);
    expect(registry.hits('lobster')).toEqual({ packument: 1, tarball: 1 });

    // The stand-in's "Lobster" is Playfair Display's file: its line must match that one, and not Inter's.
    const request = {
      width: 320,
      height: 120,
      output_format: 'png',
      background_color: '#000000',
      elements: [line('Quartz glyph', 5, 'Lobster'), line('Quartz glyph', 45, 'Playfair Display'), line('Quartz glyph', 85, 'Inter')],
    };
    const submitted = await api.http.post('/v1/renders').set(bearer(key)).send(request).expect(202);
    expect(submitted.body.status).toBe('queued');

    // Two families fetched past the bound, Lobster the least recently used: Pacifico goes when
    // Bangers arrives (the newest is kept), Lobster stays while its render waits.
    await api.http.get('/v1/fonts/Pacifico').set(bearer(key)).expect(200);
    await api.http.get('/v1/fonts/Bangers').set(bearer(key)).expect(200);
    expect(await toFetch('Lobster', 'Pacifico', 'Bangers')).toEqual(['Pacifico']);
    expect((await api.http.get(`/v1/renders/${submitted.body.id}`).set(bearer(key)).expect(200)).body.status).toBe('queued');

    worker = await startTestApp({ role: 'worker', env, databaseUrl: api.databaseUrl, dataDir: api.dataDir });
    const job = await waitFor(
      async () => (await api.http.get(`/v1/renders/${submitted.body.id}`).set(bearer(key)).expect(200)).body,
      (current) => ['completed', 'failed', 'cancelled'].includes(current.status),
      120_000,
      200,
    );
    expect({ status: job.status, error: job.error }).toEqual({ status: 'completed', error: null });
    const link = await api.http.get(`/v1/renders/${job.id}/download`).set(bearer(key)).expect(200);
    const file = path.join(outputs, 'pinned.png');
    writeFileSync(file, Buffer.from(await (await fetch(link.body.url)).arrayBuffer()));
    const frame = await frameAt(file);
    const band = (top: number) => inkOf(frame, { x: 160, y: top + 20 }, 40).concat(inkOf(frame, { x: 120, y: top + 20 }, 40));
    expect(band(5).filter(Boolean).length).toBeGreaterThan(100);
    expect({ likePlayfair: inkOverlap(band(5), band(45)) > 0.9, unlikeInter: inkOverlap(band(5), band(85)) < 0.6 }).toEqual({ likePlayfair: true, unlikeInter: true });
    // Drawn from storage: the registry was asked for Lobster once, before the render was queued.
    expect(registry.hits('lobster')).toEqual({ packument: 1, tarball: 1 });
  }, 300_000);
});

import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { makeImage, near, pixelAt, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

interface SiteFile {
  type: string;
  body: string | Buffer;
  /** Answered only once this other path has been requested (lets a page hold its load event). */
  after?: string;
  /** Answered with a 302 to this URL instead. */
  redirect?: string;
}

/** A small web site on `host`: files by path, each with its content type; records every request. */
async function serveSite(host: string, files: Record<string, SiteFile>) {
  const seen: Seen[] = [];
  const arrived = new Map<string, () => void>();
  const arrival = new Map<string, Promise<void>>();
  const arrivalOf = (path: string) => {
    if (!arrival.has(path)) arrival.set(path, new Promise<void>((resolve) => arrived.set(path, resolve)));
    return arrival.get(path) as Promise<void>;
  };
  const server: Server = createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    seen.push({ path: url, headers: req.headers });
    void arrivalOf(url);
    arrived.get(url)?.();
    const file = files[url];
    if (!file) return void res.writeHead(404).end('not found');
    if (file.redirect) return void res.writeHead(302, { location: file.redirect }).end();
    void (file.after ? arrivalOf(file.after) : Promise.resolve()).then(() =>
      res.writeHead(200, { 'content-type': file.type, 'set-cookie': 'session=secret-value; Path=/' }).end(file.body),
    );
  });
  // WebSocket handshakes arrive as upgrades, not requests.
  server.on('upgrade', (req, socket) => {
    seen.push({ path: req.url ?? '/', headers: req.headers });
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { port: (server.address() as AddressInfo).port, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * Brand kits extracted by headless Chromium from pages served on loopback (ALLOW_PRIVATE_NETWORK),
 * with every request of the browser going through the guarded fetcher; a render using the kit's
 * values is decoded and its pixels checked.
 */
describe('brand kits', () => {
  let app: TestApp;
  let key: string;
  let site: Awaited<ReturnType<typeof serveSite>>;
  let trap: Awaited<ReturnType<typeof serveSite>>;
  let receiver: WebhookReceiver;
  const dir = mkdtempSync(path.join(tmpdir(), 'vrs-brand-'));

  beforeAll(async () => {
    await makeImage(path.join(dir, 'logo.png'), '#e63946', 120, 40);
    // The trap listens on every interface: 0.0.0.0 reaches it from this host, but the address
    // rules refuse 0.0.0.0 (unspecified) even with ALLOW_PRIVATE_NETWORK, so it must stay untouched.
    trap = await serveSite('0.0.0.0', { '/evil.css': { type: 'text/css', body: 'body { background: #00ff00 }' } });
    const trapUrl = `http://0.0.0.0:${trap.port}`;
    const css = `
      body { background: #fdf6e3; color: #1b1b3a; font-family: "Lato", sans-serif; margin: 0 }
      h1 { font-family: "Baskerville Display PT", Georgia, serif }
      a { color: #2a9d8f }
      button, .cta-button { background: #e63946; color: #ffffff; border: 0; border-radius: 999px; height: 40px; padding: 0 20px; display: inline-block; line-height: 40px }
      button.secondary { background: #457b9d }
      .card { border-radius: 12px; width: 300px; height: 200px; background: #ffffff }
    `;
    site = await serveSite('127.0.0.1', {
      '/': {
        type: 'text/html',
        body: `<!doctype html><html><head><link rel="stylesheet" href="/site.css"></head><body>
          <header><a href="/"><img class="site-logo" src="/logo.png" alt="Acme logo" width="120" height="40"></a></header>
          <h1>Acme makes things</h1>
          <p>Acme has made dependable things for everyone since long ago, and still does today.</p>
          <a class="cta-button" href="/buy">Buy now</a> <button>Sign up</button> <button class="secondary">Learn more</button>
          <div class="card">A card with some text in it</div>
          <a href="/about">About us</a>
        </body></html>`,
      },
      '/site.css': { type: 'text/css', body: css },
      '/moved': { type: 'text/html', body: '', redirect: `${trapUrl}/` },
      '/gate.png': { type: 'image/png', body: readFileSync(path.join(dir, 'logo.png')), after: '/ws-settled' },
      '/logo.png': { type: 'image/png', body: readFileSync(path.join(dir, 'logo.png')) },
      '/hostile': {
        type: 'text/html',
        body: `<!doctype html><html><head>
          <link rel="stylesheet" href="${trapUrl}/evil.css">
          <style>@font-face { font-family: Evil; src: url(${trapUrl}/font.woff2) } body { font-family: Evil, serif; background: #ffffff }</style>
          </head><body><p>Plain page with text that tries to reach elsewhere.</p>
          <img src="${trapUrl}/pixel.png"><img src="http://169.254.169.254/latest/meta-data/">
          <img src="/gate.png">
          <script>
            fetch('${trapUrl}/xhr').catch(() => {});
            new Image().src = '${trapUrl}/beacon';
            window.open('${trapUrl}/popup');
            // WebSockets are not intercepted: only the browser's own lockdown stops them. The page's
            // load waits (gate.png) until both sockets have given up and said so (ws-settled).
            let pending = 2;
            const settle = () => { if (--pending === 0) fetch('/ws-settled'); };
            for (const url of ['ws://0.0.0.0:${trap.port}/ws', 'ws://127.0.0.1:${trap.port}/ws-loopback']) {
              const socket = new WebSocket(url);
              socket.onopen = settle;
              socket.onerror = settle;
            }
          </script>
        </body></html>`,
      },
    });
    receiver = await startWebhookReceiver();
    app = await startTestApp({ role: 'all', env: { ALLOW_PRIVATE_NETWORK: 'true', ALLOW_HTTP_WEBHOOKS: 'true' } });
    ({ key } = await signupVerified(app));
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await site?.close();
    await trap?.close();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function settled(id: string) {
    return waitFor(
      async () => (await app.http.get(`/v1/brand-kits/${id}`).set(bearer(key)).expect(200)).body,
      (kit) => kit.status !== 'extracting',
      60_000,
      100,
    );
  }

  it('extracts palette, fonts, logo and corners from a page, announces brand_kit.ready, and a render uses them', async () => {
    const hook = await app.http.post('/v1/webhooks').set(bearer(key)).send({ url: `${receiver.url}/brand`, events: ['brand_kit.ready'] });
    expect(hook.status).toBe(201);
    receiver.setSecret('/brand', hook.body.secret);

    const pageUrl = `http://127.0.0.1:${site.port}/`;
    const made = await app.http.post('/v1/brand-kits').set(bearer(key)).send({ url: pageUrl, name: 'Acme' });
    expect(made.status).toBe(202);
    expect(made.body).toMatchObject({ status: 'extracting', name: 'Acme', source_url: pageUrl });
    expect(made.body.id).toMatch(/^bk_/);

    const kit = await settled(made.body.id);
    expect(kit.status).toBe('ready');
    expect(kit.palette).toEqual({ bg: '#fdf6e3', ink: '#1b1b3a', primary: '#e63946', secondary: '#457b9d', accent: '#2a9d8f' });
    expect(kit.fonts).toEqual({ heading: 'Baskerville Display PT', body: 'Lato' });
    expect(kit.logo_url).toBe(`http://127.0.0.1:${site.port}/logo.png`);
    expect(kit.corner_feel).toBe('pill');
    for (const field of ['palette.primary', 'palette.bg', 'palette.ink', 'fonts.heading', 'logo_url', 'corner_feel']) {
      expect(kit.confidence[field]).toBeGreaterThanOrEqual(0.5);
      expect(kit.confidence[field]).toBeLessThanOrEqual(1);
    }
    // Every browser request went through the guarded fetcher (its user agent), and no cookie came back.
    const css = site.seen.find((s) => s.path === '/site.css');
    expect(css?.headers['user-agent']).toContain('brand-kit extractor');
    expect(site.seen.every((s) => s.headers.cookie === undefined)).toBe(true);

    const [event] = await receiver.waitFor('/brand', (d) => d.json.type === 'brand_kit.ready');
    expect(event.verified).toBe(true);
    expect(event.json.data).toMatchObject({ id: made.body.id, status: 'ready', palette: { primary: '#e63946' } });

    // The kit's values as variables of a plain render; Baskerville Display PT is neither shipped nor a Google Fonts family: nearest serif, with an info finding.
    const render = await app.http.post('/v1/renders').set(bearer(key)).send({
      width: 160,
      height: 90,
      output_format: 'png',
      brand_kit_id: made.body.id,
      background_color: '{{brand.palette.primary}}',
      elements: [
        { type: 'shape', shape: 'rectangle', x: '0%', y: '0%', width: '25%', height: '25%', fill_color: '{{brand.palette.secondary}}', time: 0, duration: 1 },
        { type: 'text', text: 'Acme', font_family: '{{brand.fonts.heading}}', time: 0, duration: 1, x: '75%', y: '75%', width: '20%', height: '20%' },
      ],
    });
    expect(render.status).toBe(202);
    expect(render.body.violations).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'BRAND_FONT_FALLBACK', severity: 'info', pointer: '/elements/1/font_family' })]),
    );
    const stored = await app.running.app.get(DataSource).query(`SELECT request FROM jobs WHERE id = $1`, [render.body.id]);
    expect(stored[0].request.elements[1].font_family).toBe('Playfair Display');
    const job = await waitFor(
      async () => (await app.http.get(`/v1/renders/${render.body.id}`).set(bearer(key))).body,
      (body) => ['completed', 'failed'].includes(body.status),
      120_000,
      100,
    );
    expect(job.status).toBe('completed');
    const link = await app.http.get(`/v1/renders/${render.body.id}/download`).set(bearer(key)).expect(200);
    const png = path.join(dir, 'brand.png');
    writeFileSync(png, Buffer.from(await (await fetch(link.body.url)).arrayBuffer()));
    expect(near(await pixelAt(png, 0, 80, 45), [0xe6, 0x39, 0x46])).toBe(true);
    expect(near(await pixelAt(png, 0, 10, 10), [0x45, 0x7b, 0x9d])).toBe(true);

    // A project template may name the kit too; its brand values are filled at render time.
    const project = await app.http
      .post('/v1/projects')
      .set(bearer(key))
      .send({ name: 'Branded', render_request: { width: 32, height: 32, output_format: 'png', brand_kit_id: made.body.id, background_color: '{{brand.palette.ink}}' } });
    expect(project.status).toBe(201);
    const projectRender = await app.http.post(`/v1/projects/${project.body.id}/renders`).set(bearer(key)).send({});
    expect(projectRender.status).toBe(202);
    const projectJob = await app.running.app.get(DataSource).query(`SELECT request FROM jobs WHERE id = $1`, [projectRender.body.id]);
    expect(projectJob[0].request.background_color).toBe('#1b1b3a');
  });

  it('never lets the browser reach a refused address, and names missing brand values', async () => {
    const made = await app.http.post('/v1/brand-kits').set(bearer(key)).send({ url: `http://127.0.0.1:${site.port}/hostile` });
    expect(made.status).toBe(202);
    const kit = await settled(made.body.id);
    expect(kit.status).toBe('ready');
    expect(site.seen.map((s) => s.path)).toEqual(expect.arrayContaining(['/hostile', '/ws-settled', '/gate.png']));
    // Stylesheet, font, images, fetch(), a beacon, WebSockets (not intercepted: loopback included)
    // and a popup all pointed at the trap: none arrived.
    expect(trap.seen).toEqual([]);
    // The refused stylesheet's green background never applied.
    expect(kit.palette.bg).toBe('#ffffff');
    expect(kit.logo_url).toBeNull();

    const missing = await app.http.post('/v1/renders').set(bearer(key)).send({
      width: 32,
      height: 32,
      brand_kit_id: made.body.id,
      elements: [{ type: 'image', source_url: '{{brand.logo_url}}' }],
    });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.errors[0]).toMatchObject({ type: 'missing', pointer: '/elements/0/source_url' });

    // A page on a refused address is refused at once.
    const refused = await app.http.post('/v1/brand-kits').set(bearer(key)).send({ url: `http://0.0.0.0:${trap.port}/` });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('invalid_source');
    const notUrl = await app.http.post('/v1/brand-kits').set(bearer(key)).send({ url: 'file:///etc/passwd' });
    expect(notUrl.status).toBe(422);
    expect(notUrl.body.error.details.errors[0].pointer).toBe('/url');
    expect(trap.seen).toEqual([]);
    // Control: the trap does answer on 0.0.0.0 from this host, so its silence above is the rules' doing.
    expect((await fetch(`http://0.0.0.0:${trap.port}/evil.css`)).status).toBe(200);
    expect(trap.seen.map((s) => s.path)).toEqual(['/evil.css']);
  });

  it('fails a kit whose page does not answer, lists, deletes, isolates workspaces and holds the cap', async () => {
    // An older kit of this test's own, so the list below has a second page whatever ran before.
    const older = await app.http.post('/v1/brand-kits').set(bearer(key)).send({ url: `http://127.0.0.1:${site.port}/missing-page` });
    await settled(older.body.id);
    const gone = await app.http.post('/v1/brand-kits').set(bearer(key)).send({ url: `http://127.0.0.1:${site.port}/missing-page` });
    const failed = await settled(gone.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('source_http_status');
    expect(failed.palette).toEqual({});
    // A page that redirects to a refused address fails at that hop, which is never connected to.
    const moved = await app.http.post('/v1/brand-kits').set(bearer(key)).send({ url: `http://127.0.0.1:${site.port}/moved` });
    const refused = await settled(moved.body.id);
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'source_refused' } });
    expect(trap.seen.filter((s) => s.path !== '/evil.css')).toEqual([]);

    const unknown = await app.http.post('/v1/renders').set(bearer(key)).send({ width: 32, height: 32, brand_kit_id: 'bk_NOPE' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details.errors[0].pointer).toBe('/brand_kit_id');
    const notReady = await app.http.post('/v1/renders').set(bearer(key)).send({ width: 32, height: 32, brand_kit_id: gone.body.id });
    expect(notReady.status).toBe(422);

    const page = await app.http.get('/v1/brand-kits?limit=2').set(bearer(key)).expect(200);
    expect(page.body.data.map((k: { id: string }) => k.id)).toEqual([moved.body.id, gone.body.id]);
    expect(page.body.has_more).toBe(true);
    const next = await app.http.get(`/v1/brand-kits?limit=200&cursor=${page.body.next_cursor}`).set(bearer(key)).expect(200);
    expect(next.body.data.map((k: { id: string }) => k.id)).toContain(older.body.id);

    const other = await signupVerified(app);
    // Another workspace's kit reads as missing: 404 on its routes, a 422 naming the field on a render.
    const answers = await Promise.all([
      app.http.get(`/v1/brand-kits/${gone.body.id}`).set(bearer(other.key)),
      app.http.delete(`/v1/brand-kits/${gone.body.id}`).set(bearer(other.key)),
      app.http.post('/v1/renders').set(bearer(other.key)).send({ width: 32, height: 32, brand_kit_id: gone.body.id }),
    ]);
    expect(answers.map((res) => res.status)).toEqual([404, 404, 422]);
    for (const res of answers) expect(JSON.stringify(res.body)).not.toContain('source_http_status');
    expect((await app.http.get(`/v1/brand-kits/${gone.body.id}`).set(bearer(other.key))).status).toBe(404);
    expect((await app.http.get('/v1/brand-kits').set(bearer(other.key)).expect(200)).body.data).toEqual([]);

    await app.http.delete(`/v1/brand-kits/${gone.body.id}`).set(bearer(key)).expect(204);
    expect((await app.http.get(`/v1/brand-kits/${gone.body.id}`).set(bearer(key))).status).toBe(404);

    // The cap (20 on the free plan): fill the other workspace to one short, then two creates.
    await app.running.app.get(DataSource).query(
      `INSERT INTO brand_kits (id, workspace_id, source_url, status) SELECT 'bk_FILL' || lpad(n::text, 2, '0'), $1, 'https://example.com', 'failed' FROM generate_series(1, 19) AS n`,
      [other.workspaceId],
    );
    const last = await app.http.post('/v1/brand-kits').set(bearer(other.key)).send({ url: `http://127.0.0.1:${site.port}/missing-page` });
    expect(last.status).toBe(202);
    const over = await app.http.post('/v1/brand-kits').set(bearer(other.key)).send({ url: `http://127.0.0.1:${site.port}/` });
    expect(over.status).toBe(403);
    expect(over.body.error.details).toEqual({ limit: 'brand_kits', max: 20 });
  });
});

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { makeImage, makeVideo, serveFolder, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

const SIX_GIB = 6 * 1024 ** 3;

/**
 * Sources by public URL: the submit-time checks (each error code, against real loopback servers),
 * `ingest_external` (copy once per URL per workspace, `asset.ready`, ingesting → queued →
 * completed), its failures, and the out_point rule without it.
 */
describe('external sources and ingest', () => {
  let app: TestApp;
  let key: string;
  let db: DataSource;
  let media: Awaited<ReturnType<typeof serveFolder>>;
  let odd: Server;
  let oddUrl: string;
  let receiver: WebhookReceiver;
  const stalled = new Set<ServerResponse>();
  const oddRequests: string[] = [];
  const fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-ingest-fixtures-'));

  beforeAll(async () => {
    await makeVideo(path.join(fixtures, 'clip.mp4'), { width: 320, height: 180, seconds: 1, fps: 25 });
    for (const name of ['ingest.mp4', 'trimmed.mp4', 'imported.mp4']) copyFileSync(path.join(fixtures, 'clip.mp4'), path.join(fixtures, name));
    await makeImage(path.join(fixtures, 'green.png'), 'green', 64, 64);
    writeFileSync(path.join(fixtures, 'garbage.mp4'), 'this is not a video');
    media = await serveFolder(fixtures);

    // Hosts that answer the quick check one way and the download another.
    const png = readFileSync(path.join(fixtures, 'green.png'));
    // A GIF followed by markup: ffprobe decodes it, a browser told text/html would run it.
    execFileSync('ffmpeg', ['-y', '-v', 'error', '-f', 'lavfi', '-i', 'color=red:s=16x16:d=0.1', '-frames:v', '1', path.join(fixtures, 'red.gif')]);
    const gif = Buffer.concat([readFileSync(path.join(fixtures, 'red.gif')), Buffer.from('<script>alert(document.domain)</script>')]);
    const mp4 = readFileSync(path.join(fixtures, 'clip.mp4'));
    odd = createServer((req, res) => {
      oddRequests.push(`${req.method} ${req.url}`);
      const ranged = req.headers.range === 'bytes=0-0';
      switch (req.url) {
        case '/shared.mp4': // a download slow enough for a second job to arrive while it runs
          res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': mp4.length });
          if (req.method === 'HEAD') res.end();
          else setTimeout(() => res.end(mp4), 2500);
          return;
        case '/huge.mp4': // declares more than 5 GiB
          res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': SIX_GIB }).end();
          return;
        case '/signed-huge.mp4': // refuses HEAD like a signed S3/GCS GET URL; a ranged GET tells the size
          if (req.method === 'HEAD') res.writeHead(403).end();
          else res.writeHead(206, { 'Content-Type': 'video/mp4', 'Content-Range': `bytes 0-0/${SIX_GIB}`, 'Content-Length': 1 }).end('x');
          return;
        case '/signed.png': // the same refusal for a small file, which then downloads whole
          if (req.method === 'HEAD') res.writeHead(405).end();
          else if (ranged) res.writeHead(206, { 'Content-Type': 'image/png', 'Content-Range': `bytes 0-0/${png.length}`, 'Content-Length': 1 }).end(png.subarray(0, 1));
          else res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length }).end(png);
          return;
        case '/page.gif': // an image for the check; the download is a GIF that declares itself a web page
          if (req.method === 'HEAD') res.writeHead(200, { 'Content-Type': 'image/gif', 'Content-Length': gif.length }).end();
          else res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': gif.length }).end(gif);
          return;
        case '/flaky.mp4': // fine for the check, broken for the copy
          if (req.method === 'HEAD') res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': 1000 }).end();
          else res.writeHead(500).end('upstream exploded');
          return;
        case '/slow.mp4': // starts the body, then stalls
          if (req.method === 'HEAD') {
            res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': 10_000_000 }).end();
          } else {
            res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': 10_000_000 });
            res.write(Buffer.alloc(1000));
            stalled.add(res);
          }
          return;
        default:
          res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;

    receiver = await startWebhookReceiver();
    app = await startTestApp({ role: 'all', env: { ALLOW_PRIVATE_NETWORK: 'true', ALLOW_HTTP_WEBHOOKS: 'true' } });
    db = app.running.app.get(DataSource);
    ({ key } = await signupVerified(app));
    const hook = await app.http.post('/v1/webhooks').set(bearer(key)).send({ url: `${receiver.url}/assets`, events: ['asset.ready'] });
    expect(hook.status).toBe(201);
    receiver.setSecret('/assets', hook.body.secret);
  }, 120_000);

  afterAll(async () => {
    for (const res of stalled) res.destroy();
    await app?.close();
    await media?.close();
    await receiver?.close();
    odd?.closeAllConnections();
    await new Promise<void>((resolve) => (odd ? odd.close(() => resolve()) : resolve()));
    rmSync(fixtures, { recursive: true, force: true });
  });

  const submit = (body: object) => app.http.post('/v1/renders').set(bearer(key)).send({ width: 64, height: 36, duration: 0.5, frame_rate: 10, ...body });
  const video = (url: string, extra: object = {}) => ({ type: 'video', source_url: url, ...extra });
  const requestsFor = (name: string) => media.requests.filter((r) => r.endsWith(` /${name}`));

  /** Polls the job until it ends, recording each status change seen. */
  async function finish(id: string) {
    const seen: string[] = [];
    const job = await waitFor(
      async () => {
        const body = (await app.http.get(`/v1/renders/${id}`).set(bearer(key)).expect(200)).body;
        if (seen[seen.length - 1] !== body.status) seen.push(body.status);
        return body;
      },
      (body) => ['completed', 'failed', 'cancelled'].includes(body.status),
      60_000,
      50,
    );
    return { job, seen };
  }

  it('answers unreachable, forbidden, missing and oversized sources with 422 at submit, with the pointer', async () => {
    const cases: [object, string, string, RegExp][] = [
      [{ elements: [video(`${media.url}/missing.mp4`)] }, 'source_not_found', '/elements/0/source_url', /404/],
      [{ elements: [video('http://127.0.0.1:1/refused.mp4')] }, 'invalid_source', '/elements/0/source_url', /could not be fetched/],
      [{ elements: [], background_image_url: 'http://169.254.169.254/latest/meta-data/x.png' }, 'invalid_source', '/background_image_url', /link-local/],
      [{ elements: [video(`${media.url}/clip.mp4`), video(`${oddUrl}/huge.mp4`)] }, 'source_too_large', '/elements/1/source_url', /5 GiB/],
      [{ elements: [], watermark_url: `${oddUrl}/signed-huge.mp4` }, 'source_too_large', '/watermark_url', /6442450944 bytes/],
    ];
    const before = (await db.query(`SELECT count(*)::int AS n FROM jobs`))[0].n;
    const answers = await Promise.all(cases.map(([body]) => submit(body)));
    answers.forEach((res, index) => {
      const [, code, pointer, message] = cases[index];
      expect([res.status, res.body.error?.code, res.body.error?.details?.pointer]).toEqual([422, code, pointer]);
      expect(res.body.error.message).toMatch(message);
    });
    expect((await db.query(`SELECT count(*)::int AS n FROM jobs`))[0].n).toBe(before); // nothing was queued
  });

  it('without ingest_external, needs out_point on external video/audio and renders straight from the URL; the workspace default is patchable', async () => {
    const me = await app.http.get('/v1/workspace').set(bearer(key)).expect(200);
    expect(me.body.ingest_external).toBe(true);

    const untrimmed = await submit({ ingest_external: false, elements: [video(`${media.url}/trimmed.mp4`), { type: 'audio', source_url: `${media.url}/trimmed.mp4` }] });
    expect(untrimmed.status).toBe(422);
    expect(untrimmed.body.error.code).toBe('invalid_request');
    expect(untrimmed.body.error.details.errors).toEqual([
      expect.objectContaining({ type: 'missing', loc: ['body', 'elements', 0, 'video', 'out_point'], pointer: '/elements/0/out_point' }),
      expect.objectContaining({ type: 'missing', loc: ['body', 'elements', 1, 'audio', 'out_point'], pointer: '/elements/1/out_point' }),
    ]);

    const patched = await app.http.patch('/v1/workspace').set(bearer(key)).send({ ingest_external: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ ingest_external: false, name: me.body.name });
    expect((await submit({ elements: [video(`${media.url}/trimmed.mp4`)] })).status).toBe(422); // the default now applies
    expect((await app.http.patch('/v1/workspace').set(bearer(key)).send({})).status).toBe(422);
    expect((await app.http.patch('/v1/workspace').set(bearer(key)).send({ ingest_external: 'no' })).body.error.details.errors[0].type).toBe('bool_type');

    const trimmed = await submit({ elements: [video(`${media.url}/trimmed.mp4`, { out_point: 0.5 })] });
    expect(trimmed.status).toBe(202);
    expect(trimmed.body.status).toBe('queued');
    const { job } = await finish(trimmed.body.id);
    expect(job.status).toBe('completed');
    // Checked by HEAD at submit, downloaded by the worker, never stored as an asset.
    expect(requestsFor('trimmed.mp4')).toEqual(['HEAD /trimmed.mp4', 'GET /trimmed.mp4']);
    expect(await db.query(`SELECT id FROM assets WHERE ingested_from LIKE '%/trimmed.mp4'`)).toEqual([]);

    await app.http.patch('/v1/workspace').set(bearer(key)).send({ ingest_external: true }).expect(200);
  });

  it('ingests: ingesting → queued → completed, one asset.ready per file, and the next job reuses the copies', async () => {
    const clipUrl = `${media.url}/ingest.mp4`;
    const signedPng = `${oddUrl}/signed.png`;
    const first = await submit({ elements: [video(clipUrl), { type: 'image', source_url: signedPng, time: 0, duration: 0.5 }] });
    expect(first.status).toBe(202);
    expect(first.body.status).toBe('ingesting');
    const { job, seen } = await finish(first.body.id);
    expect(job.error).toBeNull();
    expect(job.status).toBe('completed');
    expect(seen[0]).toBe('ingesting');
    expect(['ingesting', 'queued', 'processing', 'completed'].filter((s) => seen.includes(s))).toEqual(seen);

    const copies = await db.query(`SELECT id, ingested_from, status, updated_at FROM assets WHERE ingested_from = ANY($1)`, [[clipUrl, signedPng]]);
    expect(copies).toHaveLength(2);
    expect(copies.map((c: { ingested_from: string; status: string }) => [c.ingested_from, c.status])).toEqual(
      expect.arrayContaining([[clipUrl, 'present'], [signedPng, 'present']]),
    );
    // The render was enqueued only once the copies were complete.
    const [renderEntry] = await db.query(`SELECT created_on FROM pgboss.job WHERE name = 'render' AND data->>'job_id' = $1`, [job.id]);
    for (const copy of copies) expect(renderEntry.created_on.getTime()).toBeGreaterThanOrEqual(copy.updated_at.getTime());

    const events = await receiver.waitFor('/assets', (d) => copies.some((c: { id: string }) => c.id === d.json.data.id), 2);
    expect(events.every((d) => d.verified && d.json.type === 'asset.ready')).toBe(true);
    const clipEvent = events.find((d) => d.json.data.ingested_from === clipUrl)!;
    expect(clipEvent.json.data).toMatchObject({ kind: 'video', status: 'present', width: 320, height: 180, content_type: 'video/mp4', name: 'ingest.mp4' });
    const listed = (await app.http.get('/v1/workspace/assets').set(bearer(key)).expect(200)).body.data;
    expect(listed.map((a: { ingested_from: string }) => a.ingested_from)).toEqual(expect.arrayContaining([clipUrl, signedPng]));

    // Already hosted: no check, no download, straight to the queue, no new event.
    const second = await submit({ elements: [video(clipUrl, { in_point: 0.2 })], background_image_url: signedPng });
    expect(second.status).toBe(202);
    expect(second.body.status).toBe('queued');
    expect((await finish(second.body.id)).job.status).toBe('completed');
    expect(requestsFor('ingest.mp4')).toEqual(['HEAD /ingest.mp4', 'GET /ingest.mp4']);
    expect(receiver.at('/assets').filter((d) => d.json.data.ingested_from === clipUrl)).toHaveLength(1);
  });

  it('copies a URL once when two jobs need it at the same time', async () => {
    const url = `${oddUrl}/shared.mp4`;
    const [a, b] = await Promise.all([submit({ elements: [video(url)] }), submit({ elements: [video(url, { volume: 0 })] })]);
    expect([a.body.status, b.body.status]).toEqual(['ingesting', 'ingesting']);
    const [doneA, doneB] = await Promise.all([finish(a.body.id), finish(b.body.id)]);
    expect([doneA.job.status, doneB.job.status]).toEqual(['completed', 'completed']);
    expect(oddRequests.filter((r) => r === 'GET /shared.mp4')).toHaveLength(1);
    expect(receiver.at('/assets').filter((d) => d.json.data.ingested_from === url)).toHaveLength(1);
    expect(await db.query(`SELECT status FROM assets WHERE ingested_from = $1`, [url])).toEqual([{ status: 'present' }]);
  });

  it('fails the job with ingest_failed when a copy fails or the download is a web page, codec_unsupported when the file cannot be decoded; nothing is kept', async () => {
    const flaky = await submit({ elements: [video(`${oddUrl}/flaky.mp4`)], webhook_url: `${receiver.url}/job`, metadata: { run: 7 } });
    const garbage = await submit({ elements: [video(`${media.url}/garbage.mp4`)] });
    for (const res of [flaky, garbage]) expect(res.body.status).toBe('ingesting');

    const failed = (await finish(flaky.body.id)).job;
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'ingest_failed' } });
    expect(failed.error.message).toMatch(/\/elements\/0\/source_url.*HTTP 500.*not copied/);
    const [event] = await receiver.waitFor('/job', (d) => d.json.type === 'render.failed');
    expect(event.json.data).toMatchObject({ id: flaky.body.id, status: 'failed', error: { code: 'ingest_failed' }, metadata: { run: 7 } });

    const page = await submit({ elements: [{ type: 'image', source_url: `${oddUrl}/page.gif`, time: 0, duration: 0.5 }] });
    expect(page.body.status).toBe('ingesting');
    const refused = (await finish(page.body.id)).job;
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'ingest_failed' } });
    expect(refused.error.message).toMatch(/\/elements\/0\/source_url is a web page \(text\/html\)/);

    const undecodable = (await finish(garbage.body.id)).job;
    expect(undecodable).toMatchObject({ status: 'failed', error: { code: 'codec_unsupported' } });
    expect(undecodable.error.message).toMatch(/could not be decoded as video/);

    const left = await db.query(`SELECT id FROM assets WHERE ingested_from = ANY($1)`, [[`${oddUrl}/flaky.mp4`, `${media.url}/garbage.mp4`, `${oddUrl}/page.gif`]]);
    expect(left).toEqual([]);
  });

  it('creates an asset from a URL with the same copy (POST /v1/workspace/assets): stored, probed, announced, once per URL; refusals point at /url', async () => {
    const url = `${media.url}/imported.mp4`;
    const post = (body: object, idempotencyKey?: string) => {
      const req = app.http.post('/v1/workspace/assets').set(bearer(key));
      return (idempotencyKey ? req.set('Idempotency-Key', idempotencyKey) : req).send(body);
    };
    const created = await post({ url }, 'import-1');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'video', status: 'present', ingested_from: url, content_type: 'video/mp4', name: 'imported.mp4', width: 320, height: 180, bytes_uploaded: true });
    expect(created.body.duration).toBeCloseTo(1, 1);
    const stored = await fetch(created.body.source_url, { headers: bearer(key) });
    expect(Buffer.from(await stored.arrayBuffer()).equals(readFileSync(path.join(fixtures, 'imported.mp4')))).toBe(true);
    const [event] = await receiver.waitFor('/assets', (d) => d.json.data.id === created.body.id);
    expect([event.verified, event.json.type]).toEqual([true, 'asset.ready']);

    // The same key replays; the same URL without a key is the stored asset; neither downloads again.
    const replay = await post({ url }, 'import-1');
    const again = await post({ url });
    expect([replay.status, replay.body.id, again.status, again.body.id]).toEqual([200, created.body.id, 200, created.body.id]);
    expect(requestsFor('imported.mp4').filter((r) => r.startsWith('GET'))).toHaveLength(1);
    const greenBefore = requestsFor('green.png').length;
    const conflict = await post({ url: `${media.url}/green.png` }, 'import-1');
    expect([conflict.status, conflict.body.error.code]).toEqual([409, 'conflict']);
    expect(requestsFor('green.png')).toHaveLength(greenBefore);
    // Another workspace does not see it.
    const other = (await signupVerified(app)).key;
    expect((await app.http.get(`/v1/workspace/assets/${created.body.id}`).set(bearer(other))).status).toBe(404);

    const refusals: [string, string, RegExp][] = [
      ['http://169.254.169.254/latest/meta-data/x.mp4', 'invalid_source', /link-local/],
      [`${oddUrl}/huge.mp4`, 'source_too_large', /5 GiB/],
      [`${media.url}/missing.mp4`, 'source_not_found', /404/],
      [`${media.url}/garbage.mp4`, 'codec_unsupported', /could not be decoded as video/],
      [`${oddUrl}/page.gif`, 'invalid_source', /web page \(text\/html\)/],
    ];
    for (const [source, code, message] of refusals) {
      const res = await post({ url: source });
      expect([source, res.status, res.body.error?.code, res.body.error?.details?.pointer]).toEqual([source, 422, code, '/url']);
      expect(res.body.error.message).toMatch(message);
    }
    expect(await db.query(`SELECT id FROM assets WHERE ingested_from = ANY($1)`, [refusals.map(([source]) => source)])).toEqual([]);
    const typo = await post({ ulr: url });
    expect(typo.status).toBe(422);
    expect(typo.body.error.details.errors.map((e: { type: string; pointer: string }) => [e.type, e.pointer])).toEqual([
      ['extra_forbidden', '/ulr'],
      ['missing', '/url'],
    ]);
  });

  it('stops copying when an ingesting job is cancelled', async () => {
    const url = `${oddUrl}/slow.mp4`;
    const res = await submit({ elements: [video(url)] });
    expect(res.body.status).toBe('ingesting');
    await waitFor(async () => stalled.size, (n) => n > 0, 30_000, 50); // the copy has started
    const cancelled = await app.http.post(`/v1/renders/${res.body.id}/cancel`).set(bearer(key));
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const [download] = stalled;
    await waitFor(async () => download.destroyed || download.writableEnded || !download.socket || download.socket.destroyed, (gone) => gone, 10_000, 50);
    await waitFor(async () => db.query(`SELECT id FROM assets WHERE ingested_from = $1`, [url]), (rows) => rows.length === 0, 10_000, 100);
    expect((await app.http.get(`/v1/renders/${res.body.id}`).set(bearer(key))).body.status).toBe('cancelled');
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { near, pixelAt, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

/**
 * Batches against the real app, database, Chromium and ffmpeg: JSON rows and CSV bodies become one
 * render per row whose pixels show the row's colour; bad rows are 422s pointing at the row (CSV: the
 * line) with nothing queued; the month's minutes are checked for the whole batch; cancel; the
 * batch.completed event with its counts; another workspace's render is not stuck behind a batch;
 * identical rows render once (reuse is on here, as in production).
 */
describe('batches', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let key: string;
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-batch-outputs-'));
  const template = {
    width: 320,
    height: 180,
    duration: 1,
    frame_rate: 10,
    background_color: '{{bg}}',
    elements: [{ type: 'text', id: 'name', text: '{{name}}', time: 0, duration: 1, y: '80%', height: '20%', fill_color: '#ffffff' }],
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    app = await startTestApp({ role: 'all', env: { ALLOW_PRIVATE_NETWORK: 'true', ALLOW_HTTP_WEBHOOKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1', RENDER_REUSE: 'true' } });
    ({ key } = await signupVerified(app));
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
    rmSync(outputs, { recursive: true, force: true });
  });

  async function project(withKey = key, variables: Record<string, string> = { name: 'Default' }) {
    const res = await app.http.post('/v1/projects').set(bearer(withKey)).send({ name: 'Promo', render_request: template, variables });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  async function ended(batchId: string, withKey = key) {
    return waitFor(
      async () => (await app.http.get(`/v1/batches/${batchId}?limit=100`).set(bearer(withKey)).expect(200)).body,
      (batch) => batch.status === 'completed' || batch.status === 'cancelled',
      240_000,
      200,
    );
  }

  async function fetchOutput(render: { id: string; output: { url: string } }, extension = 'mp4'): Promise<string> {
    const file = path.join(outputs, `${render.id}.${extension}`);
    const res = await fetch(render.output.url);
    expect(res.status).toBe(200);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    return file;
  }

  it('renders one job per JSON row, each showing its row, and sends batch.completed with the counts', async () => {
    const projectId = await project();
    const colours = { red: [255, 0, 0], green: [0, 255, 0], blue: [0, 0, 255] } as const;
    const res = await app.http
      .post(`/v1/projects/${projectId}/batches`)
      .set(bearer(key))
      .send({
        rows: [{ name: 'Ada', bg: '#ff0000' }, { name: 'Grace', bg: '#00ff00' }, { name: 'Alan', bg: '#0000ff' }],
        output_filename: '{{name}}-{{row}}',
        metadata: { campaign: 'spring' },
        webhook_url: `${receiver.url}/batch-json`,
      });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ project_id: projectId, project_version: 1, row_count: 3, metadata: { campaign: 'spring' } });
    expect(res.body.id).toMatch(/^batch_/);
    expect(res.body.counts.queued + res.body.counts.processing + res.body.counts.completed).toBe(3);

    const batch = await ended(res.body.id);
    expect(batch).toMatchObject({ status: 'completed', progress_percent: 100, counts: { queued: 0, processing: 0, completed: 3, failed: 0, cancelled: 0 } });
    expect(batch.renders.data.map((r: { batch_row: number }) => r.batch_row)).toEqual([1, 2, 3]);
    const wanted = [colours.red, colours.green, colours.blue];
    for (const [index, render] of batch.renders.data.entries()) {
      expect(render).toMatchObject({ batch_id: batch.id, project_id: projectId, status: 'completed', metadata: { campaign: 'spring' } });
      const file = await fetchOutput(render);
      const pixel = await pixelAt(file, 0.5, 20, 20);
      expect(near(pixel.slice(0, 3), [...wanted[index]])).toBe(true);
    }
    const download = await app.http.get(`/v1/renders/${batch.renders.data[1].id}/download`).set(bearer(key)).expect(200);
    const file = await fetch(download.body.url);
    expect(file.headers.get('content-disposition')).toContain('Grace-2.mp4');

    // Its renders page in row order.
    const first = await app.http.get(`/v1/batches/${batch.id}?limit=2`).set(bearer(key)).expect(200);
    expect(first.body.renders.data.map((r: { batch_row: number }) => r.batch_row)).toEqual([1, 2]);
    expect(first.body.renders.has_more).toBe(true);
    const next = await app.http.get(`/v1/batches/${batch.id}?limit=2&cursor=${first.body.renders.next_cursor}`).set(bearer(key)).expect(200);
    expect(next.body.renders.data.map((r: { batch_row: number }) => r.batch_row)).toEqual([3]);

    const [event] = await receiver.waitFor('/batch-json', (d) => d.json.type === 'batch.completed');
    expect(event.json.data).toMatchObject({ id: batch.id, status: 'completed', counts: { completed: 3, failed: 0, cancelled: 0 } });
    const renderEvents = await receiver.waitFor('/batch-json', (d) => d.json.type === 'render.completed', 3);
    expect(renderEvents.map((d) => d.json.data.batch_id)).toEqual([batch.id, batch.id, batch.id]);

    // The stream of an ended batch says so at once, and ends.
    const stream = await app.http.get(`/v1/batches/${batch.id}/events`).set(bearer(key)).buffer(true).parse((r, done) => {
      let text = '';
      r.on('data', (chunk: Buffer) => (text += chunk.toString()));
      r.on('end', () => done(null, text));
    });
    expect(stream.status).toBe(200);
    expect(stream.body).toContain('event: status');
    expect(JSON.parse(String(stream.body).split('data: ')[1].split('\n')[0])).toMatchObject({ id: batch.id, status: 'completed' });

    const list = await app.http.get('/v1/batches?limit=1').set(bearer(key)).expect(200);
    expect(list.body.data[0].id).toBe(batch.id);
  }, 300_000);

  it('renders a 20-row CSV into 20 files, each showing its row\'s colour', async () => {
    const res = await app.http.post('/v1/projects').set(bearer(key)).send({ name: 'Swatches', render_request: { width: 32, height: 32, output_format: 'png', background_color: '{{bg}}' }, variables: {} });
    expect(res.status).toBe(201);
    // 20 colours at least 127 apart in some channel, so a row showing another row's colour fails.
    const levels = [0, 128, 255];
    const colours = Array.from({ length: 27 }, (_, i) => [levels[i % 3], levels[Math.floor(i / 3) % 3], levels[Math.floor(i / 9)]]).slice(0, 20);
    const hex = (rgb: number[]) => `#${rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
    const csv = `bg\r\n${colours.map(hex).join('\r\n')}\r\n`;
    const made = await app.http.post(`/v1/projects/${res.body.id}/batches`).set(bearer(key)).set('Content-Type', 'text/csv').send(csv);
    expect(made.status).toBe(202);
    expect(made.body.row_count).toBe(20);
    const batch = await ended(made.body.id);
    expect(batch.counts).toEqual({ queued: 0, processing: 0, completed: 20, failed: 0, cancelled: 0 });
    expect(batch.renders.data).toHaveLength(20);
    for (const [index, render] of batch.renders.data.entries()) {
      expect(render.batch_row).toBe(index + 1);
      const pixel = await pixelAt(await fetchOutput(render, 'png'), 0, 16, 16);
      const level = (v: number) => levels.reduce((best, l) => (Math.abs(l - v) < Math.abs(best - v) ? l : best));
      expect({ row: index + 1, rgb: pixel.slice(0, 3).map(level), near: near(pixel.slice(0, 3), colours[index], 20) }).toEqual({ row: index + 1, rgb: colours[index], near: true });
    }
  }, 300_000);

  it('renders identical rows once: the others complete with its file, and a waiting row renders itself when that row is cancelled', async () => {
    const mine = await signupVerified(app);
    const projectId = await project(mine.key);
    const db = app.running.app.get(DataSource);
    const rows = [{ name: 'Same', bg: '#ff00ff' }, { name: 'Other', bg: '#00ffff' }, { name: 'Same', bg: '#ff00ff' }, { name: 'Same', bg: '#ff00ff' }];
    const made = await app.http.post(`/v1/projects/${projectId}/batches`).set(bearer(mine.key)).send({ rows, output_filename: '{{name}}-{{row}}', webhook_url: `${receiver.url}/batch-same` });
    expect(made.status).toBe(202);
    const batch = await ended(made.body.id, mine.key);
    expect(batch.counts.completed).toBe(4);
    const [first, other, third, fourth] = batch.renders.data;
    expect(first.output.reused_from).toBeUndefined();
    expect(other.output.reused_from).toBeUndefined();
    expect(third.output.reused_from).toBe(first.id);
    expect(fourth.output.reused_from).toBe(first.id);
    // Two renders ran (two files, minutes for two); the repeats point at the first row's file.
    const stored: { id: string; output_key: string; output_seconds: number }[] = await db.query(
      `SELECT id, output_key, output_seconds FROM jobs WHERE batch_id = $1 ORDER BY batch_row`,
      [batch.id],
    );
    expect(new Set(stored.map((r) => r.output_key)).size).toBe(2);
    expect(stored.map((r) => r.output_seconds > 0)).toEqual([true, true, false, false]);
    expect(stored[2].output_key).toBe(stored[0].output_key);
    const pixel = await pixelAt(await fetchOutput(fourth), 0.5, 20, 20);
    expect(near(pixel.slice(0, 3), [255, 0, 255])).toBe(true);
    const download = await app.http.get(`/v1/renders/${fourth.id}/download`).set(bearer(mine.key)).expect(200);
    expect((await fetch(download.body.url)).headers.get('content-disposition')).toContain('Same-4.mp4');
    const events = await receiver.waitFor('/batch-same', (d) => d.json.type === 'render.completed', 4);
    expect(events.map((d) => d.json.data.batch_row).sort()).toEqual([1, 2, 3, 4]);

    // Cancel the row the repeat waits on: the repeat is queued and renders on its own.
    const twice = await app.http.post(`/v1/projects/${projectId}/batches`).set(bearer(mine.key)).send({ rows: [{ name: 'Twice', bg: '#123456' }, { name: 'Twice', bg: '#123456' }] });
    expect(twice.status).toBe(202);
    const [leader] = (await app.http.get(`/v1/batches/${twice.body.id}`).set(bearer(mine.key)).expect(200)).body.renders.data;
    await app.http.post(`/v1/renders/${leader.id}/cancel`).set(bearer(mine.key)).expect(200);
    const after = await ended(twice.body.id, mine.key);
    expect(after.counts).toMatchObject({ completed: 1, cancelled: 1 });
    expect(after.renders.data[1].status).toBe('completed');
    expect(after.renders.data[1].output.reused_from).toBeUndefined();
  }, 300_000);

  it('takes a CSV with a BOM, CRLF line ends and quoted fields', async () => {
    const projectId = await project();
    const csv = '\ufeffname,bg\r\n"Ada, Countess",#ff0000\r\n"Grace ""G"" H",#00ff00\r\n';
    const res = await app.http
      .post(`/v1/projects/${projectId}/batches?output_filename=${encodeURIComponent('{{name}}-{{row}}')}`)
      .set(bearer(key))
      .set('Content-Type', 'text/csv')
      .send(csv);
    expect(res.status).toBe(202);
    expect(res.body.row_count).toBe(2);
    const batch = await ended(res.body.id);
    expect(batch.counts.completed).toBe(2);
    const names = [];
    for (const render of batch.renders.data) {
      const link = await app.http.get(`/v1/renders/${render.id}/download`).set(bearer(key)).expect(200);
      names.push((await fetch(link.body.url)).headers.get('content-disposition'));
    }
    expect(names[0]).toContain('Ada, Countess-1.mp4');
    expect(decodeURIComponent(names[1] ?? '')).toContain('Grace "G" H-2.mp4');
    const pixel = await pixelAt(await fetchOutput(batch.renders.data[1]), 0.5, 20, 20);
    expect(near(pixel.slice(0, 3), [0, 255, 0])).toBe(true);
  }, 240_000);

  it('refuses a bad row with a pointer to it (CSV: its line and column) and queues nothing', async () => {
    const mine = await signupVerified(app);
    const projectId = await project(mine.key);
    const post = (body: unknown, csv = false) => {
      const req = app.http.post(`/v1/projects/${projectId}/batches`).set(bearer(mine.key));
      return csv ? req.set('Content-Type', 'text/csv').send(body as string) : req.send(body as object);
    };

    const badColour = await post({ rows: [{ bg: '#ff0000' }, { bg: 'not-a-colour' }] });
    expect(badColour.status).toBe(422);
    expect(badColour.body.error.details.errors[0].pointer).toBe('/rows/1/bg');

    const extra = await post({ rows: [{ bg: '#ff0000', size: 'xl' }] });
    expect(extra.status).toBe(422);
    expect(extra.body.error.details.errors[0]).toMatchObject({ pointer: '/rows/0/size', type: 'extra_forbidden' });

    const missing = await post({ rows: [{ name: 'x' }] });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.errors[0]).toMatchObject({ pointer: '/rows/0/bg', type: 'missing' });

    const notString = await post({ rows: [{ bg: 5 }] });
    expect(notString.body.error.details.errors[0].pointer).toBe('/rows/0/bg');

    const csvBad = await post('bg,name\n#ff0000,a\n#00ff00,b\nnope,c\n', true);
    expect(csvBad.status).toBe(422);
    expect(csvBad.body.error.details.errors[0]).toMatchObject({ pointer: '/rows/2/bg', loc: ['body', 'line', 4, 'column', 1] });
    expect(csvBad.body.error.details.errors[0].msg).toContain('CSV line 4, column 1 ("bg")');

    const csvExtra = await post('bg,size\n#ff0000,xl\n', true);
    expect(csvExtra.body.error.details.errors[0].msg).toContain('CSV line 1, column 2 ("size")');

    const tooMany = await post({ rows: Array.from({ length: 1001 }, () => ({ bg: '#ff0000' })) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error.details.errors[0].pointer).toBe('/rows');
    expect((await post('', true)).status).toBe(422);
    expect((await post('bg\n', true)).status).toBe(422);
    const latin1 = await app.http
      .post(`/v1/projects/${projectId}/batches`)
      .set(bearer(mine.key))
      .set('Content-Type', 'text/csv')
      .send(Buffer.concat([Buffer.from('bg,name\n#ff0000,Jos'), Buffer.from([0xe9]), Buffer.from('\n')]));
    expect(latin1.status).toBe(422);
    expect(latin1.body.error.message).toContain('UTF-8');
    expect((await post({ rows: [{ bg: '#ff0000' }], colour: 'x' })).status).toBe(422);

    expect((await app.http.get('/v1/batches').set(bearer(mine.key)).expect(200)).body.data).toEqual([]);
    expect((await app.http.get('/v1/renders').set(bearer(mine.key)).expect(200)).body.data).toEqual([]);
  });

  it('refuses a batch whose estimate does not fit the month with 402', async () => {
    const mine = await signupVerified(app);
    const projectId = await project(mine.key);
    // 1.5 s left of the free plan's 60 minutes: one row of 1 s fits, two do not.
    await app.running.app.get(DataSource).query(
      `INSERT INTO jobs (id, workspace_id, kind, status, request, output_seconds, completed_at) VALUES ('render_BATCHQUOTA', $1, 'render', 'completed', '{}', 3598.5, now())`,
      [mine.workspaceId],
    );
    const res = await app.http.post(`/v1/projects/${projectId}/batches`).set(bearer(mine.key)).send({ rows: [{ bg: '#ff0000' }, { bg: '#00ff00' }] });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('quota_exceeded');
    expect((await app.http.get('/v1/batches').set(bearer(mine.key)).expect(200)).body.data).toEqual([]);
  });

  it('cancels the queued rows, lets running ones finish, and sends batch.completed once all ended', async () => {
    const mine = await signupVerified(app);
    const projectId = await project(mine.key);
    const rows = Array.from({ length: 6 }, (_, i) => ({ bg: `#0000${(i * 40).toString(16).padStart(2, '0')}` }));
    const made = await app.http.post(`/v1/projects/${projectId}/batches`).set(bearer(mine.key)).send({ rows, webhook_url: `${receiver.url}/batch-cancel` });
    expect(made.status).toBe(202);
    const cancelled = await app.http.post(`/v1/batches/${made.body.id}/cancel`).set(bearer(mine.key));
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.cancelled_at).not.toBeNull();
    expect(cancelled.body.counts.queued).toBe(0);
    expect(cancelled.body.counts.cancelled).toBeGreaterThanOrEqual(4);

    const batch = await ended(made.body.id, mine.key);
    expect(batch.status).toBe('cancelled');
    expect(batch.counts.cancelled + batch.counts.completed).toBe(6);
    const [event] = await receiver.waitFor('/batch-cancel', (d) => d.json.type === 'batch.completed');
    expect(event.json.data.counts).toEqual(batch.counts);
    expect(event.json.data.status).toBe('cancelled');
    expect((await app.http.post(`/v1/batches/${made.body.id}/cancel`).set(bearer(mine.key))).status).toBe(409);
  }, 240_000);

  it("does not hold up another workspace's render behind a batch", async () => {
    const big = await signupVerified(app);
    const other = await signupVerified(app);
    const projectId = await project(big.key);
    // Rows take turns with other workspaces' jobs (priority falls with a workspace's backlog): four leave the single render two rows of room.
    const rows = Array.from({ length: 4 }, (_, i) => ({ bg: `#${(i * 20).toString(16).padStart(2, '0')}0000` }));
    const batch = await app.http.post(`/v1/projects/${projectId}/batches`).set(bearer(big.key)).send({ rows }).expect(202);
    const single = await app.http.post('/v1/renders').set(bearer(other.key)).send({ width: 320, height: 180, duration: 1, frame_rate: 10 }).expect(202);
    const done = await waitFor(
      async () => (await app.http.get(`/v1/renders/${single.body.id}`).set(bearer(other.key)).expect(200)).body,
      (job) => job.status === 'completed',
      240_000,
    );
    const all = await ended(batch.body.id, big.key);
    const lastRow = Math.max(...all.renders.data.map((r: { completed_at: string }) => Date.parse(r.completed_at)));
    expect(Date.parse(done.completed_at)).toBeLessThan(lastRow);
  }, 300_000);

  it("answers 404 for another workspace's batch or project, and one batch for one Idempotency-Key", async () => {
    const mine = await signupVerified(app);
    const projectId = await project(mine.key);
    const send = () => app.http.post(`/v1/projects/${projectId}/batches`).set(bearer(mine.key)).set('Idempotency-Key', 'batch-key-1').send({ rows: [{ bg: '#ff0000' }] });
    const first = await send();
    expect(first.status).toBe(202);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect((await app.http.get('/v1/batches').set(bearer(mine.key)).expect(200)).body.data).toHaveLength(1);

    for (const res of [
      await app.http.get(`/v1/batches/${first.body.id}`).set(bearer(key)),
      await app.http.post(`/v1/batches/${first.body.id}/cancel`).set(bearer(key)),
      await app.http.get(`/v1/batches/${first.body.id}/events`).set(bearer(key)),
      await app.http.post(`/v1/projects/${projectId}/batches`).set(bearer(key)).send({ rows: [{ bg: '#ff0000' }] }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    await ended(first.body.id, mine.key);
  }, 240_000);
});

import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { EventPublisher } from '../src/jobs/event-publisher';
import { waitFor } from './helpers/media';
import { bearer, createDatabase, dropDatabase, signupVerified, startTestApp, TestApp } from './helpers/test-app';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

/**
 * Webhooks end to end: real PostgreSQL, real renders, and a receiving server on loopback that
 * verifies every delivery with the `standardwebhooks` package. Retries run on a short schedule
 * (1 s apart, 4 attempts) and attempts time out after 1 s, so failures play out in seconds.
 */
describe('webhooks', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  /** A media host whose file passes the submit-time check (HEAD) and is gone when the worker fetches it. */
  let vanishing: Server;
  let vanishingUrl: string;
  let key: string;
  let workspaceId: string;
  const env = {
    TRUST_PROXY: 'true',
    ALLOW_PRIVATE_NETWORK: 'true',
    ALLOW_HTTP_WEBHOOKS: 'true',
    WEBHOOK_TIMEOUT_S: '3', // short for the silent endpoint, long enough for a loaded machine's receiver
    WEBHOOK_RETRY_SCHEDULE: '1,1,1',
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    vanishing = createServer((req, res) => {
      if (req.method === 'HEAD') res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '1000' }).end();
      else res.writeHead(404).end('gone');
    });
    await new Promise<void>((resolve) => vanishing.listen(0, '127.0.0.1', resolve));
    vanishingUrl = `http://127.0.0.1:${(vanishing.address() as AddressInfo).port}/clip.mp4`;
    app = await startTestApp({ role: 'all', env });
    ({ key, workspaceId } = await signupVerified(app));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
    await new Promise((resolve) => vanishing?.close(resolve));
  });

  async function register(events: string[], endpoint: string, apiKey = key) {
    const res = await app.http.post('/v1/webhooks').set(bearer(apiKey)).send({ url: `${receiver.url}${endpoint}`, events });
    expect(res.status).toBe(201);
    receiver.setSecret(endpoint, res.body.secret);
    return res.body as { id: string; secret: string };
  }

  async function deliveries(webhookId: string, query = '') {
    const res = await app.http.get(`/v1/webhooks/${webhookId}/deliveries${query}`).set(bearer(key)).expect(200);
    return res.body as { data: Record<string, any>[]; next_cursor: string | null; has_more: boolean };
  }

  async function deliveryOf(webhookId: string, deliveryId: string, done: (d: Record<string, any>) => boolean) {
    return waitFor(
      async () => (await deliveries(webhookId, '?limit=200')).data.find((d) => d.id === deliveryId)!,
      done,
      30_000,
      100,
    );
  }

  async function submit(body: object) {
    const res = await app.http.post('/v1/renders').set(bearer(key)).send(body);
    expect(res.status).toBe(202);
    return res.body.id as string;
  }

  const still = { width: 64, height: 36, output_format: 'png', background_color: '#0000ff' };

  it('registers, lists, gets, updates and deletes webhooks, validates input, and hides them from other workspaces', async () => {
    const created = await app.http
      .post('/v1/webhooks')
      .set(bearer(key))
      .send({ url: `${receiver.url}/crud`, events: ['render.completed', 'render.failed', 'render.completed'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: `${receiver.url}/crud`,
      events: ['render.completed', 'render.failed'],
      enabled: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const { secret } = created.body;
    const second = await register(['task.completed'], '/crud-2');
    expect(second.secret).toBe(secret); // one secret per workspace

    const got = await app.http.get(`/v1/webhooks/${created.body.id}`).set(bearer(key)).expect(200);
    expect(got.body).not.toHaveProperty('secret');
    const page = await app.http.get('/v1/webhooks?limit=1').set(bearer(key)).expect(200);
    expect(page.body).toMatchObject({ data: [{ id: second.id }], has_more: true });
    const next = await app.http.get(`/v1/webhooks?limit=1&cursor=${page.body.next_cursor}`).set(bearer(key)).expect(200);
    expect(next.body).toMatchObject({ data: [{ id: created.body.id }], has_more: false, next_cursor: null });

    const patched = await app.http
      .patch(`/v1/webhooks/${created.body.id}`)
      .set(bearer(key))
      .send({ events: ['asset.ready'], enabled: false, url: `${receiver.url}/crud-moved` });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ['asset.ready'], enabled: false, url: `${receiver.url}/crud-moved` });

    const invalid = await app.http
      .post('/v1/webhooks')
      .set(bearer(key))
      .send({ url: 'ftp://example.com/hook', events: ['render.complete', 'render.progress'] });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.code).toBe('invalid_request');
    expect(invalid.body.error.details.errors).toEqual([
      expect.objectContaining({ type: 'url_parsing', loc: ['body', 'url'], pointer: '/url' }),
      expect.objectContaining({ type: 'enum', loc: ['body', 'events', 0], pointer: '/events/0', suggestion: 'render.completed' }),
      expect.objectContaining({ type: 'enum', pointer: '/events/1', msg: expect.stringContaining('webhook_url') }),
    ]);
    const cases: [object, string, string][] = [
      [{ events: ['render.completed'] }, 'missing', '/url'],
      [{ url: `${receiver.url}/x`, events: [] }, 'too_short', '/events'],
      [{ url: `${receiver.url}/x`, events: 'render.completed' }, 'list_type', '/events'],
      [{ url: `https://example.com/${'a'.repeat(2084)}`, events: ['render.completed'] }, 'string_too_long', '/url'],
      [{ url: '', events: ['render.completed'] }, 'string_too_short', '/url'],
      [{ url: `${receiver.url}/x`, events: ['render.completed'], secret: 'mine' }, 'extra_forbidden', '/secret'],
    ];
    for (const [body, type, pointer] of cases) {
      const res = await app.http.post('/v1/webhooks').set(bearer(key)).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error.details.errors[0]).toMatchObject({ type, pointer });
    }
    const badPatch = await app.http.patch(`/v1/webhooks/${created.body.id}`).set(bearer(key)).send({ enabled: 'yes' });
    expect(badPatch.status).toBe(422);

    const other = await signupVerified(app);
    const id = created.body.id;
    const foreign = [
      app.http.get(`/v1/webhooks/${id}`),
      app.http.patch(`/v1/webhooks/${id}`).send({ enabled: true }),
      app.http.delete(`/v1/webhooks/${id}`),
      app.http.post(`/v1/webhooks/${id}/test`),
      app.http.post(`/v1/webhooks/${id}/rotate-secret`),
      app.http.get(`/v1/webhooks/${id}/deliveries`),
      app.http.post(`/v1/webhooks/${id}/deliveries/dlv_01ABC/retry`),
    ];
    for (const pending of foreign) {
      const res = await pending.set(bearer(other.key));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await app.http.get('/v1/webhooks').set(bearer(other.key)).expect(200)).body.data).toEqual([]);
    const theirs = await register(['render.completed'], '/other-workspace', other.key);
    expect(theirs.secret).not.toBe(secret);

    await app.http.delete(`/v1/webhooks/${id}`).set(bearer(key)).expect(204);
    await app.http.delete(`/v1/webhooks/${second.id}`).set(bearer(key)).expect(204);
    expect((await app.http.get(`/v1/webhooks/${id}`).set(bearer(key))).status).toBe(404);
    expect((await app.http.delete(`/v1/webhooks/${id}`).set(bearer(key))).status).toBe(404);
  });

  it('delivers render.completed and render.failed, signed, with the job and its metadata, to each subscribed webhook', async () => {
    const both = await register(['render.completed', 'render.failed'], '/both');
    const failedOnly = await register(['render.failed'], '/failed-only');
    const disabled = await register(['render.completed', 'render.failed'], '/disabled');
    await app.http.patch(`/v1/webhooks/${disabled.id}`).set(bearer(key)).send({ enabled: false }).expect(200);

    const okId = await submit({ ...still, metadata: { order: 42, customer: 'ünïcode' } });
    const failId = await submit({
      width: 64,
      height: 36,
      duration: 0.5,
      metadata: { order: 43 },
      ingest_external: false,
      elements: [{ type: 'video', source_url: vanishingUrl, out_point: 0.5 }],
    });

    const [completed] = await receiver.waitFor('/both', (d) => d.json.data.id === okId);
    const [failed] = await receiver.waitFor('/both', (d) => d.json.data.id === failId);
    await receiver.waitFor('/failed-only', (d) => d.json.data.id === failId);

    for (const delivery of [completed, failed]) {
      expect(delivery.verified).toBe(true);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['webhook-id']).toMatch(/^evt_/);
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(Object.keys(delivery.json)).toEqual(['type', 'timestamp', 'data']);
    }
    expect(completed.json).toMatchObject({
      type: 'render.completed',
      data: {
        id: okId,
        kind: 'render',
        status: 'completed',
        progress_percent: 100,
        metadata: { order: 42, customer: 'ünïcode' },
        output: { width: 64, height: 36 },
        error: null,
      },
    });
    expect(Date.parse(completed.json.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    const artifact = await fetch(completed.json.data.output.url);
    expect(artifact.status).toBe(200);
    expect(failed.json).toMatchObject({
      type: 'render.failed',
      data: { id: failId, status: 'failed', metadata: { order: 43 }, error: { code: 'source_not_found', message: expect.any(String) } },
    });
    // The same job object the API shows.
    const job = await app.http.get(`/v1/renders/${failId}`).set(bearer(key)).expect(200);
    expect(failed.json.data).toEqual(job.body);

    // An event's deliveries are all created when it is published: once failed-only's has succeeded,
    // the disabled webhook has none and never will.
    await waitFor(() => deliveries(failedOnly.id), (page) => page.data.length === 1 && page.data[0].status === 'succeeded');
    expect((await deliveries(disabled.id)).data).toEqual([]);
    expect(receiver.at('/failed-only').map((d) => d.json.data.id)).toEqual([failId]);
    expect(receiver.at('/disabled')).toEqual([]);

    const list = await waitFor(() => deliveries(both.id), (page) => page.data.every((d) => d.status === 'succeeded'));
    expect(list.data).toHaveLength(2);
    expect(list.data[0]).toEqual({
      id: expect.stringMatching(/^dlv_/),
      event_id: failed.headers['webhook-id'],
      event_type: 'render.failed',
      webhook_id: both.id,
      url: `${receiver.url}/both`,
      status: 'succeeded',
      attempts: 1,
      response_status_code: 200,
      response_excerpt: 'ok',
      error: null,
      next_attempt_at: null,
      last_attempt_at: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const firstPage = await deliveries(both.id, '?limit=1');
    const secondPage = await deliveries(both.id, `?limit=1&cursor=${firstPage.next_cursor}`);
    expect(secondPage.data.map((d) => d.event_type)).toEqual(['render.completed']);
    expect((await deliveries(both.id, '?status=failed')).data).toEqual([]);
    expect((await app.http.get(`/v1/webhooks/${both.id}/deliveries?status=done`).set(bearer(key))).status).toBe(422);

    for (const id of [both.id, failedOnly.id, disabled.id]) await app.http.delete(`/v1/webhooks/${id}`).set(bearer(key)).expect(204);
  });

  it("sends a job's events, progress included, only to its own webhook_url, signed with the workspace secret", async () => {
    const { secret } = await register(['render.completed'], '/workspace-wide');
    receiver.setSecret('/per-request', secret);
    const id = await submit({
      width: 64,
      height: 36,
      duration: 2,
      frame_rate: 10,
      output_format: 'mp4',
      webhook_url: `${receiver.url}/per-request?job=1`,
      metadata: { campaign: 'spring' },
      elements: [{ type: 'shape', shape: 'rectangle', width: '50%', height: '50%', fill_color: '#ff0000' }],
    });
    const [completed] = await receiver.waitFor('/per-request', (d) => d.json.type === 'render.completed');
    await new Promise((r) => setTimeout(r, 500)); // progress deliveries run side by side and may land a little later

    const all = receiver.at('/per-request').filter((d) => d.json.data.id === id);
    expect(all.every((d) => d.verified)).toBe(true);
    expect(all.every((d) => d.json.data.metadata.campaign === 'spring')).toBe(true);
    const progress = all.filter((d) => d.json.type === 'render.progress').sort((a, b) => a.json.timestamp.localeCompare(b.json.timestamp));
    expect(progress.length).toBeGreaterThanOrEqual(3);
    for (const event of progress) {
      expect(event.json.data).toMatchObject({ status: 'processing', progress_stage: expect.any(String) });
      expect(event.json.data.progress_percent).toBeLessThan(100);
    }
    // At most one per 5 percentage points or 2 seconds (docs/decisions/0004-jobs.md).
    for (let i = 1; i < progress.length; i++) {
      const step = progress[i].json.data.progress_percent - progress[i - 1].json.data.progress_percent;
      const seconds = (Date.parse(progress[i].json.timestamp) - Date.parse(progress[i - 1].json.timestamp)) / 1000;
      expect(step >= 5 || seconds >= 1.9).toBe(true);
      expect(step).toBeGreaterThanOrEqual(0);
    }
    expect(progress.every((event) => event.json.timestamp <= completed.json.timestamp)).toBe(true);
    expect(new Set(all.map((d) => d.headers['webhook-id'])).size).toBe(all.length);
    expect(receiver.at('/workspace-wide').filter((d) => d.json.data.id === id)).toEqual([]);
  });

  it('sends asset.ready to subscribed webhooks, or only to the webhook_url given', async () => {
    const assets = await register(['asset.ready'], '/assets');
    receiver.setSecret('/asset-override', assets.secret);
    const publisher = app.running.app.get(EventPublisher);
    await publisher.assetReady(workspaceId, { id: 'asset_1', kind: 'video' }, null);
    await publisher.assetReady(workspaceId, { id: 'asset_2', kind: 'image' }, `${receiver.url}/asset-override`);
    const [ready] = await receiver.waitFor('/assets', () => true);
    const [override] = await receiver.waitFor('/asset-override', () => true);
    expect(ready).toMatchObject({ verified: true, json: { type: 'asset.ready', data: { id: 'asset_1', kind: 'video' } } });
    expect(override).toMatchObject({ verified: true, json: { type: 'asset.ready', data: { id: 'asset_2' } } });
    // The workspace webhook got one delivery (asset_1); asset_2's went only to its own URL.
    const recorded = await waitFor(() => deliveries(assets.id), (page) => page.data.length >= 1 && page.data.every((d) => d.status === 'succeeded'));
    expect(recorded.data).toHaveLength(1);
    expect(receiver.at('/assets')).toHaveLength(1);
    await app.http.delete(`/v1/webhooks/${assets.id}`).set(bearer(key)).expect(204);
  });

  it('sends webhook.test; after rotate-secret deliveries verify only with the new secret', async () => {
    const hook = await register(['render.completed'], '/rotation');
    const test = await app.http.post(`/v1/webhooks/${hook.id}/test`).set(bearer(key));
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ id: expect.stringMatching(/^dlv_/), event_type: 'webhook.test', status: 'pending', attempts: 0 });
    const [before] = await receiver.waitFor('/rotation', () => true);
    expect(before).toMatchObject({ verified: true, json: { type: 'webhook.test', data: { webhook_id: hook.id } } });

    const rotated = await app.http.post(`/v1/webhooks/${hook.id}/rotate-secret`).set(bearer(key));
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: hook.id, secret: expect.stringMatching(/^whsec_/) });
    const oldSecret = hook.secret;
    const secret = rotated.body.secret;
    expect(secret).not.toBe(oldSecret);
    receiver.setSecret('/rotation', secret);

    await app.http.post(`/v1/webhooks/${hook.id}/test`).set(bearer(key)).expect(202);
    const [, after] = await receiver.waitFor('/rotation', () => true, 2);
    expect(after.verified).toBe(true);
    const headers = after.headers as Record<string, string>;
    expect(() => new Webhook(oldSecret).verify(after.body, headers)).toThrow();
    expect(() => new Webhook(oldSecret).verify(before.body, before.headers as Record<string, string>)).not.toThrow();
    // The secret is the workspace's: a registration now hands out the new one.
    const another = await register(['render.failed'], '/rotation-2');
    expect(another.secret).toBe(secret);
  });

  it('retries on the schedule with the same webhook-id, times out silent endpoints without holding up others, and retries by hand', async () => {
    const flaky = await register(['render.completed'], '/flaky');
    receiver.answer('/flaky', (n) => (n <= 2 ? { status: 500, body: `boom ${n}` } : { status: 200, body: 'finally' }));
    const silent = await register(['render.completed'], '/silent');
    let silentAnswers: 'hang' | 'ok' = 'hang';
    receiver.answer('/silent', () => (silentAnswers === 'hang' ? 'hang' : { status: 204 }));
    const healthy = await register(['render.completed'], '/healthy');

    const flakyTest = (await app.http.post(`/v1/webhooks/${flaky.id}/test`).set(bearer(key)).expect(202)).body;
    const silentTest = (await app.http.post(`/v1/webhooks/${silent.id}/test`).set(bearer(key)).expect(202)).body;
    await receiver.waitFor('/silent', () => true);
    // While the silent endpoint holds its attempt open, another endpoint is served at once.
    const sentAt = Date.now();
    await app.http.post(`/v1/webhooks/${healthy.id}/test`).set(bearer(key)).expect(202);
    const [healthyDelivery] = await receiver.waitFor('/healthy', () => true);
    expect(healthyDelivery.receivedAt - sentAt).toBeLessThan(3000);

    // The silent endpoint: a pending retry with its next attempt scheduled and the timeout recorded.
    const waiting = await deliveryOf(silent.id, silentTest.id, (d) => d.attempts >= 1 && d.status === 'pending');
    expect(waiting).toMatchObject({ error: 'No answer within 3 s', response_status_code: null });
    expect(Date.parse(waiting.next_attempt_at)).toBeGreaterThan(Date.parse(waiting.last_attempt_at));

    // 500, 500, then 200: three attempts, one event id.
    const flakyDone = await deliveryOf(flaky.id, flakyTest.id, (d) => d.status !== 'pending');
    expect(flakyDone).toMatchObject({
      status: 'succeeded',
      attempts: 3,
      response_status_code: 200,
      response_excerpt: 'finally',
      error: null,
      next_attempt_at: null,
    });
    const flakyAttempts = receiver.at('/flaky');
    expect(flakyAttempts).toHaveLength(3);
    expect(new Set(flakyAttempts.map((d) => d.headers['webhook-id'])).size).toBe(1);
    expect(flakyAttempts.every((d) => d.verified)).toBe(true);
    expect(flakyAttempts[2].receivedAt - flakyAttempts[1].receivedAt).toBeGreaterThanOrEqual(900);

    // Four attempts (1 + three retries), each cut off after 1 s, then the delivery is failed.
    const silentDone = await deliveryOf(silent.id, silentTest.id, (d) => d.status !== 'pending');
    expect(silentDone).toMatchObject({ status: 'failed', attempts: 4, error: 'No answer within 3 s', next_attempt_at: null });
    expect(receiver.at('/silent')).toHaveLength(4);

    // A manual retry sends it again now, with the same event id.
    silentAnswers = 'ok';
    const retried = await app.http.post(`/v1/webhooks/${silent.id}/deliveries/${silentTest.id}/retry`).set(bearer(key));
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: silentTest.id, status: 'pending', attempts: 4 });
    const manualDone = await deliveryOf(silent.id, silentTest.id, (d) => d.status !== 'pending');
    expect(manualDone).toMatchObject({ status: 'succeeded', attempts: 5, response_status_code: 204, error: null });
    const silentAttempts = receiver.at('/silent');
    expect(silentAttempts).toHaveLength(5);
    expect(new Set(silentAttempts.map((d) => d.headers['webhook-id'])).size).toBe(1);

    expect((await app.http.post(`/v1/webhooks/${silent.id}/deliveries/dlv_01NOPE/retry`).set(bearer(key))).status).toBe(404);
    expect((await app.http.post(`/v1/webhooks/${flaky.id}/deliveries/${silentTest.id}/retry`).set(bearer(key))).status).toBe(404);
  });
});

describe('webhooks without the development flags', () => {
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { TRUST_PROXY: 'true' } });
    ({ key } = await signupVerified(app));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it('requires https and refuses private addresses', async () => {
    const cases: [string, string][] = [
      ['http://hooks.example.com/video', 'url_scheme'],
      ['https://127.0.0.1:8443/hook', 'value_error'],
      ['https://localhost/hook', 'value_error'],
      ['https://192.168.1.10/hook', 'value_error'],
    ];
    for (const [url, type] of cases) {
      const res = await app.http.post('/v1/webhooks').set(bearer(key)).send({ url, events: ['render.completed'] });
      expect(res.status).toBe(422);
      expect(res.body.error.details.errors).toEqual([expect.objectContaining({ type, pointer: '/url' })]);
    }
    const ok = await app.http.post('/v1/webhooks').set(bearer(key)).send({ url: 'https://hooks.example.com/video', events: ['render.completed'] });
    expect(ok.status).toBe(201);
    const patch = await app.http.patch(`/v1/webhooks/${ok.body.id}`).set(bearer(key)).send({ url: 'http://hooks.example.com/video' });
    expect(patch.status).toBe(422);
  });
});

describe('webhook delivery across restarts', () => {
  let databaseUrl: string;
  const apps: TestApp[] = [];
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    databaseUrl = await createDatabase();
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    for (const running of apps) await running.close().catch(() => undefined);
    await receiver?.close();
    await dropDatabase(databaseUrl);
  });

  const start = async (role: 'api' | 'worker', schedule: string) => {
    const started = await startTestApp({
      role,
      databaseUrl,
      env: { TRUST_PROXY: 'true', ALLOW_PRIVATE_NETWORK: 'true', ALLOW_HTTP_WEBHOOKS: 'true', WEBHOOK_RETRY_SCHEDULE: schedule },
    });
    apps.push(started);
    return started;
  };

  it('an attempt scheduled by a worker that stops is made by the next worker, with the same webhook-id', async () => {
    const api = await start('api', '3');
    const { key } = await signupVerified(api);
    const hook = await api.http.post('/v1/webhooks').set(bearer(key)).send({ url: `${receiver.url}/restart`, events: ['render.completed'] });
    receiver.setSecret('/restart', hook.body.secret);
    receiver.answer('/restart', (n) => (n === 1 ? { status: 503 } : { status: 200 }));
    // The API only queues: nothing is sent until a worker runs.
    const queued = (await api.http.post(`/v1/webhooks/${hook.body.id}/test`).set(bearer(key)).expect(202)).body;

    const list = async () => (await api.http.get(`/v1/webhooks/${hook.body.id}/deliveries`).set(bearer(key)).expect(200)).body.data[0];
    // The first worker stops as soon as its attempt arrives (it finishes that attempt and takes no
    // further job), well before the retry falls due 5 s later.
    const firstWorker = await start('worker', '5');
    await receiver.waitFor('/restart', () => true);
    await firstWorker.close();
    apps.splice(apps.indexOf(firstWorker), 1);
    const scheduled = await waitFor(list, (d) => d.attempts === 1 && d.status === 'pending', 10_000, 50);
    expect(scheduled).toMatchObject({ id: queued.id, response_status_code: 503, error: 'The endpoint answered HTTP 503' });

    // The retry falls due while no worker runs; it waits in the database.
    const dueIn = Date.parse(scheduled.next_attempt_at) - Date.now();
    await new Promise((r) => setTimeout(r, Math.max(0, dueIn) + 500));
    expect(receiver.at('/restart')).toHaveLength(1);

    await start('worker', '3');
    const [first, second] = await receiver.waitFor('/restart', () => true, 2, 30_000);
    expect(second.verified).toBe(true);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    const done = await waitFor(list, (d) => d.status === 'succeeded', 10_000, 50);
    expect(done).toMatchObject({ attempts: 2, response_status_code: 200 });
  });
});

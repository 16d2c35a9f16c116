import { waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';
import { startWebhookReceiver } from './helpers/webhook-receiver';

const METRICS_TOKEN = 'metrics-scrape-token-for-tests';

/** One sample of the Prometheus text format: `name{label="value",…} number`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample with exactly these labels among those given (0 when absent: a counter not yet touched). */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.find((s) => s.name === name && Object.keys(labels).length === Object.keys(s.labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found?.value ?? 0;
}

describe('GET /metrics', () => {
  let app: TestApp;
  let key: string;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    app = await startTestApp({ role: 'all', env: { METRICS_TOKEN, ALLOW_HTTP_WEBHOOKS: 'true', ALLOW_PRIVATE_NETWORK: 'true' } });
    ({ key } = await signupVerified(app));
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  async function scrape(): Promise<Sample[]> {
    const res = await app.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(res.text);
  }

  it('needs the metrics token: 401 in the envelope without it or with an API key', async () => {
    const anonymous = await app.http.get('/metrics').expect(401);
    expect(anonymous.body.error.code).toBe('unauthorized');
    const apiKey = await app.http.get('/metrics').set(bearer(key)).expect(401);
    expect(apiKey.body.error.code).toBe('unauthorized');
    expect(JSON.stringify(apiKey.body)).not.toContain(METRICS_TOKEN);
  });

  it('counts requests by route template, jobs, frames and webhook deliveries after a render', async () => {
    const before = await scrape();
    const submitted = await app.http
      .post('/v1/renders')
      .set(bearer(key))
      .send({
        width: 160,
        height: 90,
        duration: 1,
        frame_rate: 30,
        background_color: '#1d4ed8',
        webhook_url: `${receiver.url}/metrics-test`,
        elements: [{ type: 'shape', width: 40, height: 40, fill_color: '#ef4444' }],
      })
      .expect(202);
    const id = submitted.body.id;
    await waitFor(
      async () => (await app.http.get(`/v1/renders/${id}`).set(bearer(key)).expect(200)).body.status,
      (status) => ['completed', 'failed', 'cancelled'].includes(status),
      120_000,
      200,
    );
    await receiver.waitFor('/metrics-test', (d) => d.json.type === 'render.completed');
    // The delivery is counted once the worker has recorded it, just after the endpoint answered.
    const after = await waitFor(scrape, (s) => value(s, 'vrs_webhook_delivery_attempts_total', { outcome: 'succeeded' }) > value(before, 'vrs_webhook_delivery_attempts_total', { outcome: 'succeeded' }), 30_000, 100);

    const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
    expect(delta('vrs_http_requests_total', { method: 'POST', route: '/v1/renders', status: '202' })).toBe(1);
    // Polled under its template: one series for every render id.
    expect(delta('vrs_http_requests_total', { method: 'GET', route: '/v1/renders/:id', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(after.some((s) => s.name === 'vrs_http_requests_total' && s.labels.route.includes(id))).toBe(false);
    expect(delta('vrs_http_request_duration_seconds_count', { method: 'POST', route: '/v1/renders' })).toBe(1);
    expect(delta('vrs_jobs_finished_total', { kind: 'render', outcome: 'completed' })).toBe(1);
    expect(delta('vrs_job_duration_seconds_count', { kind: 'render', outcome: 'completed' })).toBe(1);
    expect(delta('vrs_job_duration_seconds_sum', { kind: 'render', outcome: 'completed' })).toBeGreaterThan(0);
    // 1 s at 30 fps.
    expect(delta('vrs_render_frames_total')).toBe(30);
    expect(delta('vrs_render_frames_per_second_count')).toBe(1);
    expect(delta('vrs_render_frames_per_second_sum')).toBeGreaterThan(0);
    expect(delta('vrs_webhook_delivery_attempts_total', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
    // Every queue has a depth and an age; nothing waits once the render is done.
    expect(value(after, 'vrs_queue_depth', { queue: 'render' })).toBe(0);
    expect(after.some((s) => s.name === 'vrs_queue_oldest_age_seconds' && s.labels.queue === 'render')).toBe(true);
    // An unknown path is one series, not one per path.
    await app.http.get('/v1/no-such-route-123').set(bearer(key)).expect(404);
    const unmatched = await scrape();
    expect(value(unmatched, 'vrs_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(unmatched.some((s) => s.labels.route?.includes('no-such-route'))).toBe(false);
  }, 180_000);
});

describe('GET /metrics on an API process without METRICS_TOKEN', () => {
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
    ({ key } = await signupVerified(app));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('does not exist', async () => {
    const res = await app.http.get('/metrics').set(bearer(key)).expect(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'No route GET /metrics' } });
  });
});

describe('GET /metrics on an API process (no workers), queue gauges', () => {
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { METRICS_TOKEN } });
    ({ key } = await signupVerified(app));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('shows a waiting render as queue depth 1 and its age, read from pg-boss', async () => {
    const scrape = async () => parseExposition((await app.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200)).text);
    expect(value(await scrape(), 'vrs_queue_depth', { queue: 'render' })).toBe(0);
    await app.http.post('/v1/renders').set(bearer(key)).send({ width: 64, height: 64, duration: 0.2, elements: [] }).expect(202);
    const first = await scrape();
    expect(value(first, 'vrs_queue_depth', { queue: 'render' })).toBe(1);
    expect(value(first, 'vrs_queue_depth', { queue: 'transcribe' })).toBe(0);
    // The age grows while nobody takes the entry (this process runs no render worker).
    const later = await waitFor(scrape, (s) => value(s, 'vrs_queue_oldest_age_seconds', { queue: 'render' }) > value(first, 'vrs_queue_oldest_age_seconds', { queue: 'render' }), 10_000, 100);
    expect(value(later, 'vrs_queue_oldest_age_seconds', { queue: 'render' })).toBeGreaterThan(0);
    expect(value(later, 'vrs_queue_depth', { queue: 'render' })).toBe(1);
  });
});

import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

describe('render_submit rate limit', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => app.close());

  it('allows 120 submits per IP per minute, counting invalid ones, then answers 429 with Retry-After', async () => {
    const { key } = await signupVerified(app);
    // Windows are fixed minutes: start early in one so all 121 requests fall into it.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    const ip = '203.0.113.77';
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) {
      const res = await app.http.post('/v1/renders').set(bearer(key)).set('X-Forwarded-For', ip).send({ bogus: i });
      statuses.push(res.status);
    }
    expect(new Set(statuses)).toEqual(new Set([422]));
    const blocked = await app.http.post('/v1/renders').set(bearer(key)).set('X-Forwarded-For', ip).send({ bogus: 'last' });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(blocked.headers['ratelimit-limit']).toBe('120');
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(blocked.body.error.message).toContain(`${retryAfter} seconds`);
    // Another address has its own budget.
    const other = await app.http.post('/v1/renders').set(bearer(key)).set('X-Forwarded-For', '203.0.113.78').send({ bogus: 1 });
    expect(other.status).toBe(422);
  });
});

describe('a render webhook_url', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
  });
  afterAll(() => app.close());

  it('must be https to a public address unless the deployment allows otherwise', async () => {
    const { key } = await signupVerified(app);
    for (const [url, type] of [
      ['http://hooks.example.com/render', 'url_scheme'],
      ['https://127.0.0.1/hook', 'value_error'],
      ['not a url', 'url_parsing'],
    ]) {
      const res = await app.http.post('/v1/renders').set(bearer(key)).send({ width: 64, height: 64, elements: [], webhook_url: url });
      expect(res.status).toBe(422);
      expect(res.body.error.details.errors[0]).toMatchObject({ type, loc: ['body', 'webhook_url'], pointer: '/webhook_url' });
    }
  });
});

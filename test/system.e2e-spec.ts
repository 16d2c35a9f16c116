import { Client } from 'pg';
import { waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

describe('system routes, discovery and the error envelope', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'all', env: { TRUST_PROXY: 'true', BODY_LIMIT: '2kb' } });
  });
  afterAll(() => app.close());

  it('answers health, readiness and version without a key', async () => {
    expect((await app.http.get('/v1/health').expect(200)).body).toEqual({ status: 'ok' });
    // This process runs workers too, so it is ready once the renderer has warmed up.
    const ready = await waitFor(() => app.http.get('/v1/ready'), (res) => res.status === 200, 60_000);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok', queue: 'ok', storage: 'ok', renderer: 'ok' } });
    const version = await app.http.get('/v1/version').expect(200);
    expect(version.body).toMatchObject({ version: '0.2.0', api_version: 'v1' });
    expect(version.body).toHaveProperty('commit');
    expect(version.body).toHaveProperty('built_at');
  });

  it('publishes the capabilities catalog with complete limits and rate limits', async () => {
    const res = await app.http.get('/v1/capabilities').expect(200);
    expect(res.body.rate_limits).toEqual({
      auth_sync: { limit: 10, window_seconds: 3600, per: 'ip' },
      render_submit: { limit: 120, window_seconds: 60, per: 'ip' },
      task_submit: { limit: 300, window_seconds: 60, per: 'ip' },
      preview: { limit: 120, window_seconds: 60, per: 'ip' },
      webhook_test: { limit: 10, window_seconds: 60, per: 'workspace' },
    });
    expect(res.body.limits).toMatchObject({
      width: { min: 16, max: 8192 },
      height: { min: 16, max: 8192 },
      frame_rate: { min: 1, max: 240, default: 30 },
      url_length: { min: 1, max: 2083 },
      source_file_bytes: 5 * 1024 ** 3,
      upload_url_lifetime_seconds: 3600,
      violations_returned: 40,
      otp_wrong_guesses: 5,
      webhook_response_seconds: 10,
      free_plan: { render_minutes_per_month: 60 },
    });
    for (const catalog of ['formats', 'effects', 'motions', 'transitions', 'blend_modes', 'easings', 'text_animations']) {
      expect(Array.isArray(res.body[catalog])).toBe(true);
      for (const entry of res.body[catalog]) expect(typeof entry.supported).toBe('boolean');
    }
    expect(Object.keys(res.body.element_schemas).sort()).toEqual(['audio', 'image', 'shape', 'text', 'video', 'waveform']);
    const video = res.body.element_schemas.video;
    expect(video.additionalProperties).toBe(false);
    expect(video.properties).toHaveProperty('volume');
    expect(video.properties.motion['x-supported']).toBeUndefined();
    expect(video.properties.blend_mode['x-supported']).toBeUndefined();
    expect(video.properties.volume['x-supported']).toBeUndefined();
    expect(res.body.request_schema.properties).toHaveProperty('elements');
    expect(res.body.request_schema.properties.transitions['x-supported']).toBeUndefined();
    expect(res.body.formats.map((f: { name: string; supported: boolean }) => [f.name, f.supported])).toEqual([
      ['mp4', true], ['webm', true], ['mov', true], ['gif', true], ['png', true], ['jpg', true],
    ]);
    expect(res.body.fonts.length).toBeGreaterThanOrEqual(8);
    expect(res.body.onboarding.steps.map((s: { path: string }) => s.path)).toEqual(['/v1/signup', '/v1/signup/verify', '/v1/skills']);
  });

  it('serves an OpenAPI 3 document and Swagger UI', async () => {
    const doc = await app.http.get('/v1/openapi.json').expect(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(doc.body.info.version).toBe('0.2.0');
    for (const path of ['/v1/signup', '/v1/signup/verify', '/v1/auth/sync', '/v1/workspace', '/v1/workspace/usage', '/v1/api-keys', '/v1/api-keys/{key_id}', '/v1/capabilities', '/v1/skills/{name}']) {
      expect(doc.body.paths).toHaveProperty([path]);
    }
    expect(doc.body.components.schemas.Signup.required).toEqual(['workspace_name', 'email']);
    const ui = await app.http.get('/docs').redirects(1).expect(200);
    expect(ui.text).toContain('swagger-ui');
  });

  it('wraps unknown routes, malformed JSON and too-large bodies in the envelope', async () => {
    const unknown = await app.http.get('/v1/nothing-here').expect(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: 'No route GET /v1/nothing-here' } });
    // A path that exists under another method: 405 naming the methods it serves.
    const wrongMethod = await app.http.put('/v1/health').expect(405);
    expect(wrongMethod.body.error.code).toBe('method_not_allowed');
    expect(wrongMethod.headers.allow).toContain('GET');

    const malformed = await app.http.post('/v1/signup').set('Content-Type', 'application/json').send('{"workspace_name": ');
    expect(malformed.status).toBe(422);
    expect(malformed.body.error.code).toBe('invalid_request');
    expect(malformed.body.error.details.errors[0].type).toBe('json_invalid');

    const large = await app.http.post('/v1/signup').send({ workspace_name: 'x'.repeat(4096), email: 'big@example.com' });
    expect(large.status).toBe(413);
    expect(large.body.error.code).toBe('payload_too_large');
    expect(large.body.error.details.limit_bytes).toBe(2048);
    for (const res of [unknown, malformed, large]) {
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(js|ts):\d+/);
    }
  });

  it('serves skills to a verified key and records a valid X-Run-Id in the request log', async () => {
    const { key, workspaceId } = await signupVerified(app);
    await app.http.get('/v1/skills').expect(401);

    const lines: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const appLogger = app.running.app;
    appLogger.useLogger(['log', 'warn', 'error']);
    let list;
    try {
      list = await app.http.get('/v1/skills').set(bearer(key)).set('X-Run-Id', 'agent-run_42.a:b').expect(200);
      // The line is written when the response finishes, which may be just after the client has it.
      await waitFor(async () => lines.some((l) => l.includes('"path":"/v1/skills"')), (found) => found, 5_000, 10);
    } finally {
      spy.mockRestore();
      appLogger.useLogger(['warn', 'error']);
    }
    const logged = lines.find((l) => l.includes('"path":"/v1/skills"'));
    expect(logged).toBeDefined();
    expect(logged).toContain('"run_id":"agent-run_42.a:b"');
    expect(logged).toContain(`"workspace_id":"${workspaceId}"`);
    expect(lines.join('')).not.toContain(key);

    const names = list.body.data.map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining(['onboarding', 'api-keys', 'errors']));
    for (const skill of list.body.data) {
      expect(skill.title.length).toBeGreaterThan(3);
      expect(skill.description.length).toBeGreaterThan(10);
      const one = await app.http.get(skill.path).set(bearer(key)).expect(200);
      expect(one.headers['content-type']).toMatch(/^text\/markdown/);
      expect(one.text).toContain(`# ${skill.title}`);
    }
    const errorsGuide = await app.http.get('/v1/skills/errors').set(bearer(key)).expect(200);
    for (const code of ['unauthorized', 'email_not_verified', 'invalid_request', 'rate_limited', 'quota_exceeded']) {
      expect(errorsGuide.text).toContain(code);
    }

    const missing = await app.http.get('/v1/skills/nope').set(bearer(key)).expect(404);
    expect(missing.body.error.details.available).toEqual(names);
    const badRunId = await app.http.get('/v1/skills').set(bearer(key)).set('X-Run-Id', 'bad id with spaces');
    expect(badRunId.status).toBe(422);
    expect(badRunId.body.error.details.errors[0]).toMatchObject({ loc: ['header', 'x-run-id'], type: 'string_pattern_mismatch' });
  });
});

describe('readiness follows the database', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api' });
  });
  afterAll(() => app.close());

  it('answers 503 while the database refuses connections and 200 once it is back', async () => {
    const name = new URL(app.databaseUrl).pathname.slice(1);
    const admin = new Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [name]);
      const down = await app.http.get('/v1/ready');
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('unavailable');
      expect(down.body.checks.database).toBe('unavailable');
      expect(down.body.checks.queue).toBe('unavailable');
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    const back = await waitFor(() => app.http.get('/v1/ready'), (res) => res.status === 200, 30_000, 250);
    expect(back.body.checks.database).toBe('ok');
  });
});

describe('roles', () => {
  it('a worker process serves only the system routes', async () => {
    const worker = await startTestApp({ role: 'worker' });
    try {
      await worker.http.get('/v1/health').expect(200);
      const ready = await waitFor(() => worker.http.get('/v1/ready'), (res) => res.status === 200, 60_000);
      expect(ready.body.checks.renderer).toBe('ok');
      const signup = await worker.http.post('/v1/signup').send({ workspace_name: 'x', email: 'w@example.com' });
      expect(signup.status).toBe(404);
      expect(signup.body.error.code).toBe('not_found');
    } finally {
      await worker.close();
    }
  });
});

describe('one source for limits and rules', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { WEBHOOK_TIMEOUT_S: '3', UPLOAD_MAX_BYTES: '1000000' } });
  });
  afterAll(() => app.close());

  it('publishes the configured webhook timeout and upload size, not the defaults', async () => {
    const caps = await app.http.get('/v1/capabilities').expect(200);
    expect(caps.body.limits.webhook_response_seconds).toBe(3);
    expect(caps.body.limits.upload_file_bytes).toBe(1_000_000);
    expect(caps.body.limits.source_file_bytes).toBe(5 * 1024 ** 3);
  });

  it('judges a URL the same in a render request and in a task', async () => {
    const { key } = await signupVerified(app);
    // Valid syntax in both (underscores are allowed in host names): both fail only when fetched.
    const render = await app.http.post('/v1/renders').set(bearer(key)).send({ elements: [{ type: 'image', source_url: 'http://my_host/a.png' }] });
    const task = await app.http.post('/v1/tasks/transcribe').set(bearer(key)).send({ source_url: 'http://my_host/a.mp4' });
    for (const res of [render, task]) {
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('invalid_source');
    }
    // Invalid in both, with the same type and message.
    const badRender = await app.http.post('/v1/renders').set(bearer(key)).send({ elements: [{ type: 'image', source_url: 'https://user:pw@e.com/a.png' }] });
    const badTask = await app.http.post('/v1/tasks/transcribe').set(bearer(key)).send({ source_url: 'https://user:pw@e.com/a.mp4' });
    expect(badRender.body.error.details.errors[0]).toMatchObject({ type: 'url_parsing', pointer: '/elements/0/source_url' });
    expect(badTask.body.error.details.errors[0]).toMatchObject({ type: 'url_parsing', pointer: '/source_url' });
    expect(badTask.body.error.details.errors[0].msg).toBe(badRender.body.error.details.errors[0].msg);
  });
});

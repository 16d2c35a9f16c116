import { generateKeyPair } from 'jose';
import { TestOidcProvider } from './helpers/oidc-provider';
import { bearer, latestCodeFromFiles, startTestApp, TestApp } from './helpers/test-app';

describe('POST /v1/auth/sync with OIDC ID tokens', () => {
  const idp = new TestOidcProvider();
  let app: TestApp;
  let ipCounter = 0;
  const ip = () => `203.0.113.${++ipCounter}`; // auth_sync allows 10 per IP per hour

  beforeAll(async () => {
    await idp.start();
    app = await startTestApp({ role: 'api', env: { ...idp.env(), TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await app.close();
    await idp.stop();
  });

  const sync = (token: string) => app.http.post('/v1/auth/sync').set('X-Forwarded-For', ip()).send({ id_token: token });

  it('creates a verified workspace on first login and returns the key only then', async () => {
    const token = await idp.token({ sub: 'user-1', email: 'First@Example.com', email_verified: true, name: 'First User' });
    const first = await sync(token);
    expect(first.status).toBe(200);
    expect(first.body.created).toBe(true);
    expect(first.body.workspace).toMatchObject({ name: 'First User', email: 'first@example.com', email_verified: true });
    expect(first.body.api_key.key).toMatch(/^sk_/);
    await app.http.get('/v1/workspace').set(bearer(first.body.api_key.key)).expect(200);

    const later = await sync(await idp.token({ sub: 'user-1', email: 'first@example.com', email_verified: true }));
    expect(later.status).toBe(200);
    expect(later.body.workspace.id).toBe(first.body.workspace.id);
    expect(later.body.api_key).toBeNull();
    expect(later.body.created).toBe(false);
  });

  it('answers 403 when the provider has not verified the email', async () => {
    const res = await sync(await idp.token({ sub: 'user-2', email: 'unverified@example.com', email_verified: false }));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('email_not_verified');
  });

  it('answers 401 for a bad signature, an expired token, another audience or issuer, and garbage', async () => {
    const other = await generateKeyPair('RS256');
    const cases = [
      await idp.token({ sub: 'u', email: 'a@example.com', email_verified: true }, { key: other.privateKey }),
      await idp.token({ sub: 'u', email: 'a@example.com', email_verified: true }, { expiresIn: Math.floor(Date.now() / 1000) - 3600 }),
      await idp.token({ sub: 'u', email: 'a@example.com', email_verified: true }, { audience: 'someone-else' }),
      await idp.token({ sub: 'u', email: 'a@example.com', email_verified: true }, { issuer: 'https://evil.example' }),
      'not-a-jwt',
    ];
    for (const token of cases) {
      const res = await sync(token);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
    const expired = await sync(cases[1]);
    expect(expired.body.error.message).toMatch(/expired/);
  });

  it('adopts an email-signup workspace: a verified one keeps its keys and data', async () => {
    const email = 'adopt-verified@example.com';
    const signup = await app.http.post('/v1/signup').set('X-Forwarded-For', ip()).send({ workspace_name: 'Signed up', email });
    const code = latestCodeFromFiles(app.dataDir, email);
    await app.http.post('/v1/signup/verify').set('X-Forwarded-For', ip()).set(bearer(signup.body.api_key.key)).send({ email, code }).expect(200);
    const extra = await app.http.post('/v1/api-keys').set(bearer(signup.body.api_key.key)).send({ name: 'ci' }).expect(201);

    const res = await sync(await idp.token({ sub: 'adopter-1', email, email_verified: true }));
    expect(res.status).toBe(200);
    expect(res.body.created).toBe(false);
    expect(res.body.workspace).toMatchObject({ id: signup.body.workspace.id, name: 'Signed up' });
    expect(res.body.api_key.key).toMatch(/^sk_/);
    await app.http.get('/v1/workspace').set(bearer(signup.body.api_key.key)).expect(200);
    const keys = await app.http.get('/v1/api-keys').set(bearer(res.body.api_key.key)).expect(200);
    expect(keys.body.data.map((k: { id: string }) => k.id)).toEqual(
      expect.arrayContaining([signup.body.api_key.id, extra.body.id, res.body.api_key.id]),
    );
  });

  it('adopts an unverified email-signup workspace but revokes the keys nobody proved they own', async () => {
    const email = 'adopt-unverified@example.com';
    const signup = await app.http.post('/v1/signup').set('X-Forwarded-For', ip()).send({ workspace_name: 'Squatter', email });
    const res = await sync(await idp.token({ sub: 'adopter-2', email, email_verified: true }));
    expect(res.status).toBe(200);
    expect(res.body.workspace).toMatchObject({ id: signup.body.workspace.id, email_verified: true });
    const old = await app.http.get('/v1/workspace').set(bearer(signup.body.api_key.key));
    expect(old.status).toBe(401);
    await app.http.get('/v1/workspace').set(bearer(res.body.api_key.key)).expect(200);
  });

  it('answers 503 when the JWKS cannot be fetched, and 422 for a body without id_token', async () => {
    const dead = await startTestApp({
      role: 'api',
      env: { OIDC_ISSUER: idp.issuer, OIDC_AUDIENCE: idp.audience, OIDC_JWKS_URL: 'http://127.0.0.1:1/jwks.json' },
    });
    try {
      const res = await dead.http.post('/v1/auth/sync').send({ id_token: await idp.token({ sub: 'x', email: 'x@example.com', email_verified: true }) });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('unavailable');
      const invalid = await dead.http.post('/v1/auth/sync').send({ token: 'x' });
      expect(invalid.status).toBe(422);
      expect(invalid.body.error.details.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ type: 'missing', loc: ['body', 'id_token'] })]),
      );
    } finally {
      await dead.close();
    }
  });
});

describe('rate limits are shared by API processes on one database', () => {
  const idp = new TestOidcProvider();
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    await idp.start();
    a = await startTestApp({ role: 'api', env: idp.env() });
    b = await startTestApp({ role: 'api', env: idp.env(), databaseUrl: a.databaseUrl });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    await idp.stop();
  });

  it('counts auth_sync (10 per IP per hour) across two instances, ignoring X-Forwarded-For without TRUST_PROXY', async () => {
    const token = await idp.token({ sub: 'shared', email: 'shared@example.com', email_verified: true });
    for (let i = 0; i < 10; i++) {
      const target = i % 2 === 0 ? a : b;
      // A spoofed X-Forwarded-For must not give a fresh budget when the proxy is not trusted.
      const res = await target.http.post('/v1/auth/sync').set('X-Forwarded-For', `192.0.2.${i}`).send({ id_token: token });
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(9 - i));
    }
    const blocked = await a.http.post('/v1/auth/sync').send({ id_token: token });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const blockedOnB = await b.http.post('/v1/auth/sync').send({ id_token: token });
    expect(blockedOnB.status).toBe(429);
  });
});

import { once } from 'node:events';
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { Client } from 'pg';
import { bearer, latestCodeFromFiles, latestMailFromFiles, nextIp, startTestApp, TestApp } from './helpers/test-app';

describe('self-serve signup (file mailer, the embedded default)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => app.close());

  it('creates a workspace whose key is gated until the emailed code is verified with that key', async () => {
    const ip = nextIp();
    const email = 'Gated@Example.com';
    const res = await app.http.post('/v1/signup').set('X-Forwarded-For', ip).send({ workspace_name: 'Acme', email });
    expect(res.status).toBe(201);
    expect(res.body.workspace).toMatchObject({ name: 'Acme', email: 'gated@example.com', email_verified: false, plan: 'free' });
    expect(res.body.workspace.id).toMatch(/^ws_[0-9A-Z]{26}$/);
    expect(res.body.api_key.key).toMatch(/^sk_[0-9A-Za-z]{43}$/);
    expect(res.body.api_key.id).toMatch(/^key_/);
    expect(res.body.verification.sent_to).toBe('gated@example.com');
    const ttl = Date.parse(res.body.verification.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);

    const key = res.body.api_key.key;
    for (const [method, path] of [
      ['get', '/v1/workspace'],
      ['get', '/v1/api-keys'],
      ['get', '/v1/skills'],
      ['delete', '/v1/workspace'],
    ] as const) {
      const gated = await app.http[method](path).set(bearer(key));
      expect(gated.status).toBe(403);
      expect(gated.body.error.code).toBe('email_not_verified');
    }

    const code = latestCodeFromFiles(app.dataDir, email);
    // The code alone is not enough: verification needs the key signup returned.
    const keyless = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', ip).send({ email, code });
    expect(keyless.status).toBe(401);
    expect(keyless.body.error.code).toBe('unauthorized');
    expect(keyless.body.error.message).toMatch(/Authorization: Bearer/);

    const verified = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', ip).set(bearer(key)).send({ email, code });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ id: res.body.workspace.id, email_verified: true });

    const me = await app.http.get('/v1/workspace').set(bearer(key));
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(res.body.workspace.id);

    // The code is single-use.
    const again = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', ip).set(bearer(key)).send({ email, code });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('invalid_code');
  });

  it('a stranger re-signing up with an owner\'s email cannot take the workspace over', async () => {
    const email = 'owner@example.com';
    const owner = await app.http.post('/v1/signup').set('X-Forwarded-For', nextIp()).send({ workspace_name: 'Owned', email });
    const ownerKey = owner.body.api_key.key;
    await app.http.post('/v1/signup/verify').set(bearer(ownerKey)).set('X-Forwarded-For', nextIp())
      .send({ email, code: latestCodeFromFiles(app.dataDir, email) }).expect(200);
    await app.http.post('/v1/api-keys').set(bearer(ownerKey)).send({ name: 'ci' }).expect(201);

    // The attack: an anonymous signup with the owner's email.
    await new Promise((r) => setTimeout(r, 5)); // distinct mail file names
    const attackerIp = nextIp();
    const attack = await app.http.post('/v1/signup').set('X-Forwarded-For', attackerIp).send({ workspace_name: 'Mine now', email });
    expect(attack.status).toBe(201);
    const attackerKey = attack.body.api_key.key;
    expect(attack.body.workspace).toMatchObject({ id: owner.body.workspace.id, name: 'Owned', email_verified: true });

    // Nothing of the owner's changed: both keys work, the pending key is not listed.
    await app.http.get('/v1/workspace').set(bearer(ownerKey)).expect(200);
    const listed = await app.http.get('/v1/api-keys').set(bearer(ownerKey)).expect(200);
    expect(listed.body.data.map((k: { id: string }) => k.id)).not.toContain(attack.body.api_key.id);
    expect(listed.body.data.filter((k: { revoked_at: string | null }) => k.revoked_at === null)).toHaveLength(2);
    const gated = await app.http.get('/v1/workspace').set(bearer(attackerKey));
    expect(gated.status).toBe(403);
    expect(gated.body.error.code).toBe('email_not_verified');

    // The mail tells the owner what verifying would do.
    const mail = latestMailFromFiles(app.dataDir, email);
    expect(mail).toContain('A new API key was requested for your workspace "Owned"');
    expect(mail).toMatch(/revokes every other key/);
    expect(mail).toMatch(/your current keys keep working/);

    // The attacker holds the key but not the code: guesses are counted and run out.
    const code = latestCodeFromFiles(app.dataDir, email);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) {
      const guess = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', attackerIp).set(bearer(attackerKey)).send({ email, code: wrong });
      expect(guess.status).toBe(400);
    }
    const late = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', attackerIp).set(bearer(attackerKey)).send({ email, code });
    expect(late.status).toBe(400);
    // Dead with its code.
    expect((await app.http.get('/v1/workspace').set(bearer(attackerKey))).status).toBe(401);

    // The owner, holding the code of a fresh attack but not its key, cannot be tricked into activating it.
    await new Promise((r) => setTimeout(r, 5));
    const second = await app.http.post('/v1/signup').set('X-Forwarded-For', attackerIp).send({ workspace_name: 'x', email });
    const secondCode = latestCodeFromFiles(app.dataDir, email);
    const withOwnerKey = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', nextIp()).set(bearer(ownerKey)).send({ email, code: secondCode });
    expect(withOwnerKey.status).toBe(401);
    expect(withOwnerKey.body.error.message).toMatch(/not issued by the latest POST \/v1\/signup/);
    const gatedAgain = await app.http.get('/v1/workspace').set(bearer(second.body.api_key.key));
    expect(gatedAgain.body.error.code).toBe('email_not_verified');
    await app.http.get('/v1/workspace').set(bearer(ownerKey)).expect(200);
  });

  it('rotates the keys when a repeated signup is verified with its own key and code', async () => {
    const ip = nextIp();
    const email = 'rekey@example.com';
    const first = await app.http.post('/v1/signup').set('X-Forwarded-For', ip).send({ workspace_name: 'One', email });
    const firstCode = latestCodeFromFiles(app.dataDir, email);
    await app.http.post('/v1/signup/verify').set('X-Forwarded-For', ip).set(bearer(first.body.api_key.key)).send({ email, code: firstCode }).expect(200);
    await app.http.get('/v1/workspace').set(bearer(first.body.api_key.key)).expect(200);

    await new Promise((r) => setTimeout(r, 5)); // distinct mail file names
    const second = await app.http.post('/v1/signup').set('X-Forwarded-For', ip).send({ workspace_name: 'Two', email });
    expect(second.status).toBe(201);
    expect(second.body.workspace.id).toBe(first.body.workspace.id);
    expect(second.body.workspace.name).toBe('One');
    expect(second.body.api_key.key).not.toBe(first.body.api_key.key);
    await app.http.get('/v1/workspace').set(bearer(first.body.api_key.key)).expect(200);

    const secondCode = latestCodeFromFiles(app.dataDir, email);
    await app.http.post('/v1/signup/verify').set('X-Forwarded-For', ip).set(bearer(second.body.api_key.key)).send({ email, code: secondCode }).expect(200);
    await app.http.get('/v1/workspace').set(bearer(second.body.api_key.key)).expect(200);
    const old = await app.http.get('/v1/workspace').set(bearer(first.body.api_key.key));
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('unauthorized');
  });

  it('an unverified pending key expires with its code, or when a newer signup replaces it', async () => {
    const email = 'expiry@example.com';
    const first = await app.http.post('/v1/signup').set('X-Forwarded-For', nextIp()).send({ workspace_name: 'E', email });
    await new Promise((r) => setTimeout(r, 5));
    const second = await app.http.post('/v1/signup').set('X-Forwarded-For', nextIp()).send({ workspace_name: 'E', email });
    expect((await app.http.get('/v1/workspace').set(bearer(first.body.api_key.key))).status).toBe(401);
    expect((await app.http.get('/v1/workspace').set(bearer(second.body.api_key.key))).body.error.code).toBe('email_not_verified');

    // Fifteen minutes later (the code's expiry moved into the past).
    const db = new Client({ connectionString: app.databaseUrl });
    await db.connect();
    try {
      await db.query(`UPDATE signup_codes SET expires_at = now() - interval '1 second' WHERE workspace_id = $1`, [second.body.workspace.id]);
    } finally {
      await db.end();
    }
    const expired = await app.http.get('/v1/workspace').set(bearer(second.body.api_key.key));
    expect(expired.status).toBe(401);
    const code = latestCodeFromFiles(app.dataDir, email);
    const verify = await app.http.post('/v1/signup/verify').set(bearer(second.body.api_key.key)).set('X-Forwarded-For', nextIp()).send({ email, code });
    expect(verify.status).toBe(400);
    expect(verify.body.error.message).toMatch(/expired/);
  });

  it('invalidates the code after 5 wrong guesses, even for the right code afterwards', async () => {
    const ip = nextIp();
    const email = 'guess@example.com';
    const signup = await app.http.post('/v1/signup').set('X-Forwarded-For', ip).send({ workspace_name: 'G', email }).expect(201);
    const key = signup.body.api_key.key;
    const code = latestCodeFromFiles(app.dataDir, email);
    const wrong = code === '000000' ? '111111' : '000000';
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', ip).set(bearer(key)).send({ email, code: wrong });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_code');
      remaining.push(res.body.error.details.attempts_remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const right = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', ip).set(bearer(key)).send({ email, code });
    expect(right.status).toBe(400);
    expect(right.body.error.message).toMatch(/POST \/v1\/signup/);
  });

  it('answers 404 for an email with no workspace and 422 for malformed input', async () => {
    const ip = nextIp();
    const missing = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', ip).set(bearer(`sk_${'a'.repeat(43)}`)).send({ email: 'nobody@example.com', code: '123456' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');

    const bad = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', ip).send({ email: 'x@example.com', code: '12ab' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.errors[0]).toMatchObject({ loc: ['body', 'code'], pointer: '/code' });

    const typo = await app.http.post('/v1/signup').set('X-Forwarded-For', ip).send({ workspace_nme: 'x', email: 'not-an-email' });
    expect(typo.status).toBe(422);
    const errors = typo.body.error.details.errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'workspace_nme'], pointer: '/workspace_nme', suggestion: 'workspace_name' }),
        expect.objectContaining({ type: 'missing', loc: ['body', 'workspace_name'], pointer: '/workspace_name' }),
        expect.objectContaining({ type: 'value_error', loc: ['body', 'email'], pointer: '/email' }),
      ]),
    );
  });

  it('limits signups to 5 per email per hour with the rate-limit headers', async () => {
    const email = 'limited@example.com';
    for (let i = 0; i < 5; i++) {
      const res = await app.http.post('/v1/signup').set('X-Forwarded-For', nextIp()).send({ workspace_name: 'L', email });
      expect(res.status).toBe(201);
      expect(res.headers['ratelimit-limit']).toBeDefined();
    }
    const blocked = await app.http.post('/v1/signup').set('X-Forwarded-For', nextIp()).send({ workspace_name: 'L', email });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(blocked.body.error.details.scope).toBe('signup_email');
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(blocked.body.error.message).toContain(`retry in ${retryAfter} seconds`);
    expect(blocked.headers['ratelimit-limit']).toBe('5');
    expect(blocked.headers['ratelimit-remaining']).toBe('0');
  });

  it('limits signups to 20 per IP per hour and verifies to 30 per IP per hour', async () => {
    const ip = nextIp();
    for (let i = 0; i < 20; i++) {
      const res = await app.http.post('/v1/signup').set('X-Forwarded-For', ip).send({ workspace_name: 'L', email: `ip${i}@example.com` });
      expect(res.status).toBe(201);
      expect(Number(res.headers['ratelimit-remaining'])).toBeLessThanOrEqual(Math.min(4, 19 - i));
    }
    const blocked = await app.http.post('/v1/signup').set('X-Forwarded-For', ip).send({ workspace_name: 'L', email: 'ip-last@example.com' });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.details.scope).toBe('signup_ip');

    const verifyIp = nextIp();
    for (let i = 0; i < 30; i++) {
      const res = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', verifyIp).set(bearer(`sk_${'a'.repeat(43)}`)).send({ email: 'nobody@example.com', code: '123456' });
      expect(res.status).toBe(404);
    }
    const verifyBlocked = await app.http.post('/v1/signup/verify').set('X-Forwarded-For', verifyIp).send({ email: 'nobody@example.com', code: '123456' });
    expect(verifyBlocked.status).toBe(429);
    expect(verifyBlocked.headers['ratelimit-limit']).toBe('30');
  });
});

describe('signup over SMTP', () => {
  let smtp: SMTPServer;
  const received: { to: string; body: string }[] = [];
  let app: TestApp;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      disableReverseLookup: true,
      logger: false,
      onData(stream, session, callback) {
        let body = '';
        stream.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), body });
          callback();
        });
      },
    });
    smtp.listen(0, '127.0.0.1');
    await once(smtp.server, 'listening');
    const port = (smtp.server.address() as AddressInfo).port;
    app = await startTestApp({ role: 'api', env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Service <noreply@test.local>' } });
  });
  afterAll(async () => {
    await app.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('mails the 6-digit code, which verifies the workspace', async () => {
    const res = await app.http.post('/v1/signup').send({ workspace_name: 'Mail', email: 'mail@example.com' });
    expect(res.status).toBe(201);
    expect(received).toHaveLength(1);
    expect(received[0].to).toBe('mail@example.com');
    expect(received[0].body).toContain('From: Service <noreply@test.local>');
    const code = /verification code is (\d{6})/.exec(received[0].body)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    await app.http.post('/v1/signup/verify').set(bearer(res.body.api_key.key)).send({ email: 'mail@example.com', code }).expect(200);
    await app.http.get('/v1/workspace').set(bearer(res.body.api_key.key)).expect(200);
  });

  it('changes nothing and answers 503 when the mail cannot be sent', async () => {
    const broken = await startTestApp({ role: 'api', env: { SMTP_URL: 'smtp://127.0.0.1:1' } });
    try {
      const written: string[] = [];
      const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      });
      let res;
      try {
        res = await broken.http.post('/v1/signup').send({ workspace_name: 'X', email: 'down@example.com' });
      } finally {
        spy.mockRestore();
      }
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('unavailable');
      // Every error line the request caused names its request id.
      const requestId = res.headers['x-request-id'];
      const errorLines = written.join('').split('\n').filter((line) => line.includes('ERROR'));
      expect(errorLines.some((line) => line.includes('Sending the verification email failed'))).toBe(true);
      for (const line of errorLines) expect(line).toContain(`request_id: '${requestId}'`);
      const verify = await broken.http.post('/v1/signup/verify').set(bearer(`sk_${'a'.repeat(43)}`)).send({ email: 'down@example.com', code: '123456' });
      expect(verify.status).toBe(404);
    } finally {
      await broken.close();
    }
  });
});

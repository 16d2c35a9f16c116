import { DataSource } from 'typeorm';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

describe('workspace and API keys', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => app.close());

  it('gets and renames the workspace; a typo in a field name is 422 with a suggestion', async () => {
    const { key, workspaceId } = await signupVerified(app);
    const me = await app.http.get('/v1/workspace').set(bearer(key)).expect(200);
    expect(me.body).toMatchObject({ id: workspaceId, name: 'Test workspace', email_verified: true, plan: 'free' });

    const renamed = await app.http.patch('/v1/workspace').set(bearer(key)).send({ name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Renamed');
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(me.body.updated_at));

    const typo = await app.http.patch('/v1/workspace').set(bearer(key)).send({ nmae: 'x' });
    expect(typo.status).toBe(422);
    expect(typo.body.error.code).toBe('invalid_request');
    expect(typo.body.error.details.errors).toEqual(
      expect.arrayContaining([
        { type: 'extra_forbidden', loc: ['body', 'nmae'], msg: expect.stringContaining('did you mean "name"'), pointer: '/nmae', suggestion: 'name' },
      ]),
    );
    const farOff = await app.http.patch('/v1/workspace').set(bearer(key)).send({ name: 'ok', colour: 'red' });
    expect(farOff.status).toBe(422);
    expect(farOff.body.error.details.errors[0]).not.toHaveProperty('suggestion');

    const wrongType = await app.http.patch('/v1/workspace').set(bearer(key)).send({ name: 5 });
    expect(wrongType.body.error.details.errors[0]).toMatchObject({ type: 'string_type', loc: ['body', 'name'] });
    const notObject = await app.http.patch('/v1/workspace').set(bearer(key)).set('Content-Type', 'application/json').send('[1,2]');
    expect(notObject.status).toBe(422);
    expect(notObject.body.error.details.errors[0].type).toBe('model_type');
  });

  it('reports usage with the right shape for the billing month and rolling periods', async () => {
    const { key } = await signupVerified(app);
    const month = await app.http.get('/v1/workspace/usage').set(bearer(key)).expect(200);
    const now = new Date();
    expect(month.body).toEqual({
      period: {
        start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
        end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      },
      render_minutes: 0,
      render_count: 0,
      task_count: 0,
      egress_bytes: 0,
      plan: { name: 'free', render_minutes_limit: 60, render_minutes_remaining: 60 },
    });
    for (const [period, days] of [['7d', 7], ['30d', 30], ['90d', 90]] as const) {
      const res = await app.http.get(`/v1/workspace/usage?period=${period}`).set(bearer(key)).expect(200);
      const span = Date.parse(res.body.period.end) - Date.parse(res.body.period.start);
      expect(span).toBe(days * 86_400_000);
    }
    const bad = await app.http.get('/v1/workspace/usage?period=7days').set(bearer(key));
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.errors[0]).toMatchObject({ type: 'enum', loc: ['query', 'period'], pointer: '/period' });
    const close = await app.http.get('/v1/workspace/usage?period=3d').set(bearer(key));
    expect(close.body.error.details.errors[0].suggestion).toBe('7d');
  });

  it('creates keys (plaintext once), lists them newest first with cursor pagination, revokes them', async () => {
    const { key, keyId } = await signupVerified(app);
    const created: { id: string; key: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await app.http.post('/v1/api-keys').set(bearer(key)).send({ name: `key ${i}` });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.stringMatching(/^key_/), name: `key ${i}`, prefix: res.body.key.slice(0, 11), key: expect.stringMatching(/^sk_/), created_at: expect.any(String) });
      created.push(res.body);
    }
    const unnamed = await app.http.post('/v1/api-keys').set(bearer(key)).send({}).expect(201);
    expect(unnamed.body.name).toBe('api key');
    await app.http.get('/v1/workspace').set(bearer(created[0].key)).expect(200);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await app.http.get('/v1/api-keys').query({ limit: 3, ...(cursor ? { cursor } : {}) }).set(bearer(key)).expect(200);
      pages += 1;
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      for (const item of res.body.data) {
        expect(item).not.toHaveProperty('key');
        expect(Object.keys(item).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at']);
        seen.push(item.id);
      }
      expect(res.body.has_more).toBe(res.body.next_cursor !== null);
      cursor = res.body.next_cursor ?? undefined;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([unnamed.body.id, ...created.map((k) => k.id).reverse(), keyId]);

    await app.http.delete(`/v1/api-keys/${created[0].id}`).set(bearer(key)).expect(204);
    const revoked = await app.http.get('/v1/workspace').set(bearer(created[0].key));
    expect(revoked.status).toBe(401);
    const listed = await app.http.get('/v1/api-keys').query({ limit: 200 }).set(bearer(key)).expect(200);
    const entry = listed.body.data.find((k: { id: string }) => k.id === created[0].id);
    expect(entry.revoked_at).not.toBeNull();
    const self = listed.body.data.find((k: { id: string }) => k.id === keyId);
    expect(self.last_used_at).not.toBeNull();

    const badLimit = await app.http.get('/v1/api-keys?limit=0').set(bearer(key));
    expect(badLimit.status).toBe(422);
    expect(badLimit.body.error.details.errors[0]).toMatchObject({ type: 'greater_than_equal', loc: ['query', 'limit'] });
    const badCursor = await app.http.get('/v1/api-keys?cursor=bm9wZQ').set(bearer(key));
    expect(badCursor.status).toBe(422);
    const unknownQuery = await app.http.get('/v1/api-keys?limt=5').set(bearer(key));
    expect(unknownQuery.body.error.details.errors[0]).toMatchObject({ type: 'extra_forbidden', suggestion: 'limit', loc: ['query', 'limt'] });
  });

  it("scopes keys to the caller's workspace: another workspace's key id is 404", async () => {
    const alice = await signupVerified(app);
    const bob = await signupVerified(app);
    const bobKey = await app.http.post('/v1/api-keys').set(bearer(bob.key)).send({ name: 'bob' }).expect(201);
    const list = await app.http.get('/v1/api-keys').set(bearer(alice.key)).expect(200);
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(bobKey.body.id);
    const del = await app.http.delete(`/v1/api-keys/${bobKey.body.id}`).set(bearer(alice.key));
    expect(del.status).toBe(404);
    expect(del.body.error.code).toBe('not_found');
    await app.http.get('/v1/workspace').set(bearer(bobKey.body.key)).expect(200);
  });

  it('rejects missing, malformed and unknown keys with 401', async () => {
    for (const headers of [{}, { Authorization: 'Basic abc' }, bearer('sk_doesnotexist0000000000000000000000000000000')]) {
      const res = await app.http.get('/v1/workspace').set(headers);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });

  it('deletes the workspace with everything in it; its keys stop working', async () => {
    const { key, email } = await signupVerified(app);
    const second = await app.http.post('/v1/api-keys').set(bearer(key)).send({ name: 'second' }).expect(201);
    await app.http.delete('/v1/workspace').set(bearer(key)).expect(204);
    for (const k of [key, second.body.key]) {
      const res = await app.http.get('/v1/workspace').set(bearer(k));
      expect(res.status).toBe(401);
    }
    const rows = await app.running.app.get(DataSource).query(
      `SELECT (SELECT count(*) FROM workspaces WHERE email = $1)::int AS workspaces,
              (SELECT count(*) FROM api_keys WHERE workspace_id NOT IN (SELECT id FROM workspaces))::int AS orphan_keys`,
      [email],
    );
    expect(rows[0]).toEqual({ workspaces: 0, orphan_keys: 0 });
    // The email is free again for a new signup.
    const again = await app.http.post('/v1/signup').set('X-Forwarded-For', '198.51.100.251').send({ workspace_name: 'Back', email });
    expect(again.status).toBe(201);
  });
});

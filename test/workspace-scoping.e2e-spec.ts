import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { ulid } from '../src/common/ids';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

const ADMIN_KEY = 'scope-admin-' + 'k'.repeat(40);
const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;

interface Operation {
  method: (typeof METHODS)[number];
  template: string;
  schemes: string[];
}

/** Every operation of the committed OpenAPI document, with the security schemes it names. */
function operations(): Operation[] {
  const doc = JSON.parse(readFileSync(path.join(__dirname, '..', 'openapi', 'openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
  };
  return Object.entries(doc.paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, template, schemes: (item[method].security ?? []).flatMap((s) => Object.keys(s)) })),
  );
}

/** Bodies that pass validation, so that an answer is about the id, not the body. */
const BODIES: Record<string, object> = {
  'patch /v1/webhooks/{id}': { enabled: false },
  'post /v1/projects/{id}/ops': { ops: [{ op: 'replace', path: '/duration', value: 2 }] },
  'post /v1/projects/{id}/renders': {},
  'post /v1/projects/{id}/batches': { rows: [{}] },
};
const QUERIES: Record<string, string> = { 'get /v1/tasks/{id}/captions': '?format=srt' };

/**
 * Scoping, checked over the whole document rather than route by route: another workspace's ids
 * are 404 on every route that takes one, a suspended workspace's key is 403 on every route a
 * key opens, a workspace key is 401 on every admin route.
 */
describe("scoping over every route of the OpenAPI document: another workspace's ids, suspended keys, admin routes", () => {
  let app: TestApp;
  let owner: Awaited<ReturnType<typeof signupVerified>>;
  const ids: Record<string, string> = {};
  const db = () => app.running.app.get(DataSource);

  /** The concrete path of a template: each id is one of the owner's. */
  function concrete(template: string): string | null {
    const kind = template.split('/')[2];
    let missing = false;
    const filled = template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
      const value = name === 'id' ? ids[kind] : ids[name];
      if (!value) missing = true;
      return value ?? '';
    });
    return missing ? null : filled;
  }

  const send = (op: Operation, path: string, headers: Record<string, string>, body: object = BODIES[`${op.method} ${op.template}`] ?? {}) => {
    const url = path + (QUERIES[`${op.method} ${op.template}`] ?? '');
    return op.method === 'get' || op.method === 'delete' ? app.http[op.method](url).set(headers) : app.http[op.method](url).set(headers).send(body);
  };

  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { ADMIN_API_KEY: ADMIN_KEY, ALLOW_HTTP_WEBHOOKS: 'true' } });
    owner = await signupVerified(app);
    const key = bearer(owner.key);
    const request = { width: 64, height: 64, output_format: 'png' };
    ids.renders = (await app.http.post('/v1/renders').set(key).send(request).expect(202)).body.id;
    ids.projects = (await app.http.post('/v1/projects').set(key).send({ name: 'p', render_request: request }).expect(201)).body.id;
    ids.batches = (await app.http.post(`/v1/projects/${ids.projects}/batches`).set(key).send({ rows: [{}] }).expect(202)).body.id;
    ids.webhooks = (await app.http.post('/v1/webhooks').set(key).send({ url: 'https://hooks.example.com/in', events: ['render.completed'] }).expect(201)).body.id;
    ids['brand-kits'] = (await app.http.post('/v1/brand-kits').set(key).send({ url: 'https://brand.example.com/' }).expect(202)).body.id;
    ids['api-keys'] = ids.key_id = (await app.http.post('/v1/api-keys').set(key).send({ name: 'second' }).expect(201)).body.id;
    await app.http.post('/v1/uploads').set(key).send({ content_type: 'image/png', filename: 'a.png' }).expect(201);
    ids.asset_id = (await app.http.get('/v1/workspace/assets').set(key).expect(200)).body.data[0].id;
    // A finished transcription, as the worker would have left it (this app runs no worker).
    ids.tasks = `task_${ulid()}`;
    await db().query(
      `INSERT INTO jobs (id, workspace_id, kind, task_type, status, request, result, completed_at) VALUES ($1, $2, 'task', 'transcribe', 'completed', '{}', '{"text": "hi", "words": []}', now())`,
      [ids.tasks, owner.workspaceId],
    );
    await app.http.post(`/v1/webhooks/${ids.webhooks}/test`).set(key).expect((res) => expect([200, 202]).toContain(res.status));
    ids.delivery_id = (await app.http.get(`/v1/webhooks/${ids.webhooks}/deliveries`).set(key).expect(200)).body.data[0].id;
  });
  afterAll(() => app.close());

  it("answers 404 not_found to another workspace's key on every route that names one of the owner's resources, and changes nothing", async () => {
    const other = await signupVerified(app);
    const checked: string[] = [];
    for (const op of operations().filter((o) => o.schemes.includes('ApiKey') && /\{(id|[a-z]+_id)\}/.test(o.template))) {
      const url = concrete(op.template);
      if (!url) throw new Error(`no id of the owner for ${op.template}`);
      const res = await send(op, url, bearer(other.key));
      expect({ route: `${op.method.toUpperCase()} ${op.template}`, status: res.status, code: res.body?.error?.code }).toEqual({
        route: `${op.method.toUpperCase()} ${op.template}`,
        status: 404,
        code: 'not_found',
      });
      checked.push(`${op.method} ${op.template}`);
    }
    expect(checked.length).toBeGreaterThanOrEqual(25);
    // Still there and unchanged for their owner.
    const key = bearer(owner.key);
    expect((await app.http.get(`/v1/webhooks/${ids.webhooks}`).set(key).expect(200)).body.enabled).toBe(true);
    expect((await app.http.get(`/v1/projects/${ids.projects}`).set(key).expect(200)).body.version).toBe(1);
    expect((await app.http.get(`/v1/renders/${ids.renders}`).set(key).expect(200)).body.status).toBe('queued');
    expect((await app.http.get('/v1/api-keys').set(key).expect(200)).body.data.find((k: { id: string }) => k.id === ids.key_id).revoked_at).toBeNull();
  });

  it("answers 403 forbidden to a suspended workspace's keys on every route a key opens, then works again once unsuspended", async () => {
    const admin = { Authorization: `Bearer ${ADMIN_KEY}` };
    const made = await app.http.post('/v1/admin/workspaces').set(admin).send({ name: 'Held', email: 'held@example.com' }).expect(201);
    const key = bearer(made.body.api_key.key);
    await app.http.patch(`/v1/admin/workspaces/${made.body.workspace.id}`).set(admin).send({ suspended: true }).expect(200);
    let checked = 0;
    for (const op of operations().filter((o) => o.schemes.includes('ApiKey'))) {
      const url = concrete(op.template) ?? op.template.replace(/\{[a-z_]+\}/g, 'x');
      const body = op.template === '/v1/signup/verify' ? { email: 'held@example.com', code: '123456' } : undefined;
      const res = await send(op, url, key, body);
      expect({ route: `${op.method.toUpperCase()} ${op.template}`, status: res.status, reason: res.body?.error?.details?.reason }).toEqual({
        route: `${op.method.toUpperCase()} ${op.template}`,
        status: 403,
        reason: 'workspace_suspended',
      });
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(50);
    // Nor can a new signup for its email re-key it.
    const again = await app.http.post('/v1/signup').send({ workspace_name: 'Held', email: 'held@example.com' });
    expect(again.status).toBe(403);
    expect(again.body.error.details.reason).toBe('workspace_suspended');
    await app.http.patch(`/v1/admin/workspaces/${made.body.workspace.id}`).set(admin).send({ suspended: false }).expect(200);
    await app.http.get('/v1/workspace').set(key).expect(200);
  });

  it('answers 401 to a workspace key on every admin route', async () => {
    const admins = operations().filter((o) => o.schemes.includes('AdminKey'));
    expect(admins.map((o) => `${o.method} ${o.template}`).sort()).toEqual([
      'delete /v1/admin/workspaces/{id}',
      'get /v1/admin/plans',
      'get /v1/admin/workspaces',
      'get /v1/admin/workspaces/{id}',
      'patch /v1/admin/workspaces/{id}',
      'post /v1/admin/workspaces',
    ]);
    for (const op of admins) {
      const res = await send(op, op.template.replace('{id}', owner.workspaceId), bearer(owner.key), { name: 'x', email: 'y@example.com' });
      expect({ route: `${op.method} ${op.template}`, status: res.status }).toEqual({ route: `${op.method} ${op.template}`, status: 401 });
    }
    expect((await app.http.get(`/v1/admin/workspaces/${owner.workspaceId}`).set(bearer(owner.key))).body.error.code).toBe('unauthorized');
  });
});

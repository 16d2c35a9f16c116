import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { waitFor } from './helpers/media';
import { TestOidcProvider } from './helpers/oidc-provider';
import { bearer, nextIp, startTestApp, TestApp } from './helpers/test-app';

const ADMIN_KEY = 'adm_' + 'x'.repeat(40);
const admin = { Authorization: `Bearer ${ADMIN_KEY}` };

const unlimited = {
  render_minutes_per_month: null,
  transcribe_minutes_per_month: null,
  job: { frames: null, pixels_per_frame: null, pixel_frames: null, elements: null, media_seconds: null },
  workspace: { webhooks: null, api_keys: null, open_uploads: null, projects: null, brand_kits: null, concurrent_renders: null },
};
/** `big`: no limits. `small`: 5 s of render minutes a month, one render at a time. */
const PLANS = {
  plans: [
    { name: 'big', ...unlimited },
    { name: 'small', ...unlimited, render_minutes_per_month: 5 / 60, workspace: { ...unlimited.workspace, concurrent_renders: 1 } },
  ],
};

/** A small render of `seconds`, its frames drawn one by one (a moving shape), so it stays running a few seconds. */
const render = (seconds: number) => ({
  width: 320,
  height: 180,
  duration: seconds,
  frame_rate: 30,
  background_color: '#1d4ed8',
  custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0, x: 0 }, { offset: 1, x: 290 }] }] },
  elements: [{ type: 'shape', fill_color: '#ffffff', x: 5, y: '50%', width: 10, height: 180, motion: [{ custom: 'glide', time: 0, duration: seconds, easing: 'linear' }] }],
});

describe('the admin API (ADMIN_API_KEY) and closed signup', () => {
  let app: TestApp;
  let folder: string;
  const idp = new TestOidcProvider();
  const db = () => app.running.app.get(DataSource);
  const jobRow = async (id: string) => (await db().query(`SELECT status, error FROM jobs WHERE id = $1`, [id]))[0] as { status: string; error: { code: string; message: string } | null };

  async function createWorkspace(plan?: string, email = `op${Math.random().toString(36).slice(2, 10)}@example.com`) {
    const res = await app.http.post('/v1/admin/workspaces').set(admin).send({ name: 'Team', email, ...(plan ? { plan } : {}) });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.workspace.id as string, key: res.body.api_key.key as string, email, body: res.body };
  }

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'vrs-admin-'));
    writeFileSync(path.join(folder, 'plans.json'), JSON.stringify(PLANS));
    await idp.start();
    app = await startTestApp({
      env: { ...idp.env(), ADMIN_API_KEY: ADMIN_KEY, SIGNUP_MODE: 'closed', PLANS_FILE: path.join(folder, 'plans.json'), TRUST_PROXY: 'true', RENDER_CONCURRENCY: '1' },
    });
  });
  afterAll(async () => {
    await app.close();
    await idp.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('takes only the admin key: none, a workspace key or a wrong one is 401; the admin key is no workspace key; own rate limit', async () => {
    const { key } = await createWorkspace();
    for (const headers of [{}, bearer(key), { Authorization: `Bearer ${'adm_' + 'y'.repeat(40)}` }, { Authorization: 'Bearer short' }]) {
      const res = await app.http.get('/v1/admin/workspaces').set(headers);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(res.body.error.message).toMatch(/ADMIN_API_KEY/);
      expect(JSON.stringify(res.body)).not.toContain(ADMIN_KEY);
    }
    expect((await app.http.get('/v1/workspace').set(admin)).status).toBe(401);
    const ok = await app.http.get('/v1/admin/plans').set(admin).expect(200);
    expect(ok.headers['ratelimit-limit']).toBe('300');
    const before = Number(ok.headers['ratelimit-remaining']);
    const next = await app.http.get('/v1/admin/plans').set(admin).expect(200);
    expect(Number(next.headers['ratelimit-remaining'])).toBe(before - 1);
  });

  it('closes public signup (403 forbidden saying so) and says so in /v1/capabilities', async () => {
    const res = await app.http.post('/v1/signup').set('X-Forwarded-For', nextIp()).send({ workspace_name: 'Me', email: 'me@example.com' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toMatch(/^Signup is closed on this service/);
    const caps = (await app.http.get('/v1/capabilities').expect(200)).body;
    expect(caps.onboarding.signup).toEqual({ mode: 'closed', email_domains: null });
    expect(caps.onboarding.summary).toMatch(/Signup is closed/);
  });

  it('closes OIDC sign-in to new workspaces too; a workspace the operator made signs in', async () => {
    const stranger = await app.http.post('/v1/auth/sync').set('X-Forwarded-For', nextIp())
      .send({ id_token: await idp.token({ sub: 'oidc-new', email: 'new@example.com', email_verified: true }) });
    expect(stranger.status).toBe(403);
    expect(stranger.body.error.message).toMatch(/^Signup is closed on this service/);
    const made = await createWorkspace(undefined, 'oidc-member@example.com');
    const member = await app.http.post('/v1/auth/sync').set('X-Forwarded-For', nextIp())
      .send({ id_token: await idp.token({ sub: 'oidc-member', email: 'oidc-member@example.com', email_verified: true }) });
    expect(member.status).toBe(200);
    expect(member.body).toMatchObject({ created: false, workspace: { id: made.id } });
  });

  it('creates a verified workspace with a working key and no mail; a taken email is 409, an unknown plan 422 with a suggestion', async () => {
    const made = await createWorkspace('big', 'Owner@Example.com');
    expect(made.body.workspace).toMatchObject({ name: 'Team', email: 'owner@example.com', email_verified: true, plan: 'big', suspended: false, suspended_at: null });
    expect(made.body.api_key.key).toMatch(/^sk_/);
    const me = await app.http.get('/v1/workspace').set(bearer(made.key)).expect(200);
    expect(me.body).toMatchObject({ id: made.id, plan: 'big', email_verified: true });
    const mail = path.join(app.dataDir, 'mail');
    expect(existsSync(mail) ? readdirSync(mail).filter((f) => f.includes('owner@example.com')) : []).toEqual([]);

    const again = await app.http.post('/v1/admin/workspaces').set(admin).send({ name: 'Again', email: 'owner@example.com' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', details: { workspace_id: made.id } });
    const typo = await app.http.post('/v1/admin/workspaces').set(admin).send({ name: 'X', email: 'x@example.com', plan: 'smal' });
    expect(typo.status).toBe(422);
    expect(typo.body.error.details.errors[0]).toMatchObject({ type: 'enum', pointer: '/plan', suggestion: 'small' });
    const defaulted = await createWorkspace();
    expect(defaulted.body.workspace.plan).toBe('free');
  });

  it('lists and finds workspaces (email, plan, suspended; cursor pages) and reads one with its usage', async () => {
    const a = await createWorkspace('small', 'find-a@findme.test');
    const b = await createWorkspace('small', 'find-b@findme.test');
    await app.http.patch(`/v1/admin/workspaces/${b.id}`).set(admin).send({ suspended: true }).expect(200);
    const all = await app.http.get('/v1/admin/workspaces?email=FINDME.test').set(admin).expect(200);
    expect(all.body.data.map((w: { id: string }) => w.id)).toEqual([b.id, a.id]);
    const first = await app.http.get('/v1/admin/workspaces?email=findme&limit=1').set(admin).expect(200);
    expect(first.body).toMatchObject({ has_more: true, data: [{ id: b.id }] });
    const second = await app.http.get(`/v1/admin/workspaces?email=findme&limit=1&cursor=${first.body.next_cursor}`).set(admin).expect(200);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null, data: [{ id: a.id }] });
    const suspended = await app.http.get('/v1/admin/workspaces?email=findme&suspended=true').set(admin).expect(200);
    expect(suspended.body.data.map((w: { id: string }) => w.id)).toEqual([b.id]);
    const active = await app.http.get('/v1/admin/workspaces?plan=small&suspended=false&email=findme').set(admin).expect(200);
    expect(active.body.data.map((w: { id: string }) => w.id)).toEqual([a.id]);
    // A wildcard in the filter is a character, not a pattern.
    expect((await app.http.get('/v1/admin/workspaces?email=%25').set(admin).expect(200)).body.data).toEqual([]);
    expect((await app.http.get('/v1/admin/workspaces?suspended=maybe').set(admin)).status).toBe(422);

    const one = await app.http.get(`/v1/admin/workspaces/${a.id}`).set(admin).expect(200);
    expect(one.body).toMatchObject({ id: a.id, plan: 'small', suspended: false, usage: { render_minutes: 0, render_count: 0, plan: { name: 'small', render_minutes_limit: 5 / 60 } } });
    expect((await app.http.get('/v1/admin/workspaces/ws_01JD8Z3N5Q7W9X2Y4A6B8C0D1E').set(admin)).status).toBe(404);
    expect((await app.http.get('/v1/admin/workspaces/nope').set(admin)).status).toBe(404);
  });

  it('renames and moves plans, keeping each change in the audit table with before and after', async () => {
    const ws = await createWorkspace();
    const empty = await app.http.patch(`/v1/admin/workspaces/${ws.id}`).set(admin).send({});
    expect(empty.status).toBe(422);
    const changed = await app.http.patch(`/v1/admin/workspaces/${ws.id}`).set(admin).send({ plan: 'big', name: 'Renamed' }).expect(200);
    expect(changed.body).toMatchObject({ id: ws.id, plan: 'big', name: 'Renamed' });
    expect((await app.http.get('/v1/workspace').set(bearer(ws.key)).expect(200)).body).toMatchObject({ plan: 'big', name: 'Renamed' });
    expect((await app.http.get('/v1/workspace/usage').set(bearer(ws.key)).expect(200)).body.plan).toEqual({ name: 'big', render_minutes_limit: null, render_minutes_remaining: null });
    const audit = await db().query(`SELECT action, actor, request_id, before, after FROM admin_audit WHERE workspace_id = $1 ORDER BY id`, [ws.id]);
    expect(audit.map((row: { action: string }) => row.action)).toEqual(['workspace.create', 'workspace.update']);
    expect(audit[1]).toMatchObject({ actor: 'admin_api_key', before: { plan: 'free', name: 'Team' }, after: { plan: 'big', name: 'Renamed' } });
    expect(audit[1].request_id).toEqual(expect.any(String));

    const plans = (await app.http.get('/v1/admin/plans').set(admin).expect(200)).body;
    expect(plans.default_plan).toBe('free');
    expect(plans.data.map((p: { name: string }) => p.name)).toEqual(['free', 'big', 'small']);
    expect(plans.data[0]).toMatchObject({ name: 'free', default: true, built_in: true, render_minutes_per_month: 60 });
    expect(plans.data[1]).toMatchObject({ name: 'big', default: false, built_in: false, render_minutes_per_month: null });
    expect(plans.data[1].workspaces).toBeGreaterThanOrEqual(2);
  });

  it("re-checks queued renders against the new plan at dispatch: served in order until it is spent, nothing lost or counted twice", async () => {
    const ws = await createWorkspace('big');
    const submit = async (seconds: number) => (await app.http.post('/v1/renders').set(bearer(ws.key)).send(render(seconds)).expect(202)).body.id as string;
    const first = await submit(2);
    await waitFor(() => jobRow(first), (row) => row.status !== 'queued', 120_000);
    const second = await submit(2);
    const third = await submit(2);
    // One worker, one render at a time: the other two wait with their reservations.
    await app.http.patch(`/v1/admin/workspaces/${ws.id}`).set(admin).send({ plan: 'small' }).expect(200);
    const tiers = await db().query(`SELECT group_tier FROM pgboss.job WHERE data->>'job_id' = $1 AND state = 'created'`, [third]);
    expect(tiers).toEqual([{ group_tier: 'small' }]);

    const ended = async (id: string) => waitFor(() => jobRow(id), (row) => ['completed', 'failed', 'cancelled'].includes(row.status), 300_000);
    expect((await ended(first)).status).toBe('completed');
    expect((await ended(second)).status).toBe('completed');
    const refused = await ended(third);
    expect(refused.status).toBe('failed');
    expect(refused.error?.code).toBe('quota_exceeded');
    expect(refused.error?.message).toMatch(/of the small plan's .* a month remain/);

    // 4 of the 5 seconds are spent, once each; the failed render holds nothing.
    const usage = (await app.http.get('/v1/workspace/usage').set(bearer(ws.key)).expect(200)).body;
    expect(usage.render_count).toBe(2);
    expect(usage.render_minutes).toBeCloseTo(4 / 60, 2);
    expect(usage.plan.render_minutes_remaining).toBeCloseTo(1 / 60, 2);
    expect((await app.http.post('/v1/renders').set(bearer(ws.key)).send(render(2))).status).toBe(402);
    const fits = await app.http.post('/v1/renders').set(bearer(ws.key)).send({ ...render(1), frame_rate: 10 });
    expect(fits.status).toBe(202);
    await app.http.post(`/v1/renders/${fits.body.id}/cancel`).set(bearer(ws.key)).expect(200);
    // Three renders one after another: on shared cores that can pass the default two minutes.
  }, 600_000);

  it('suspends: every key is 403 from its next request, queued jobs are cancelled saying why, the running one finishes; unsuspend restores', async () => {
    const ws = await createWorkspace('big');
    const running = (await app.http.post('/v1/renders').set(bearer(ws.key)).send(render(2)).expect(202)).body.id as string;
    await waitFor(() => jobRow(running), (row) => row.status === 'processing', 120_000);
    const queued = (await app.http.post('/v1/renders').set(bearer(ws.key)).send(render(1)).expect(202)).body.id as string;
    const second = await app.http.post('/v1/api-keys').set(bearer(ws.key)).send({ name: 'ci' }).expect(201);

    const res = await app.http.patch(`/v1/admin/workspaces/${ws.id}`).set(admin).send({ suspended: true }).expect(200);
    expect(res.body).toMatchObject({ suspended: true, suspended_at: expect.any(String) });
    for (const key of [ws.key, second.body.key]) {
      const refused = await app.http.get('/v1/workspace').set(bearer(key));
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { reason: 'workspace_suspended' } });
      expect(refused.body.error.message).toMatch(/suspended/);
    }
    expect(await jobRow(queued)).toEqual({ status: 'cancelled', error: { code: 'workspace_suspended', message: expect.stringMatching(/suspended this workspace/) } });
    expect((await waitFor(() => jobRow(running), (row) => row.status !== 'processing', 300_000)).status).toBe('completed');

    await app.http.patch(`/v1/admin/workspaces/${ws.id}`).set(admin).send({ suspended: false }).expect(200);
    expect((await app.http.get('/v1/workspace').set(bearer(ws.key))).status).toBe(200);
    const audit = await db().query(`SELECT before->>'suspended' AS b, after->>'suspended' AS a FROM admin_audit WHERE workspace_id = $1 AND action = 'workspace.update' ORDER BY id`, [ws.id]);
    expect(audit).toEqual([{ b: 'false', a: 'true' }, { b: 'true', a: 'false' }]);
  });

  it("deletes a workspace while it renders like the owner's delete: its render stops, no row or file is left", async () => {
    const ws = await createWorkspace('big');
    await app.http.post('/v1/projects').set(bearer(ws.key)).send({ name: 'p', render_request: render(1) }).expect(201);
    const upload = await app.http.post('/v1/uploads').set(bearer(ws.key)).send({ content_type: 'image/png', filename: 'a.png' }).expect(201);
    expect(upload.body.upload_url).toEqual(expect.any(String));
    const running = (await app.http.post('/v1/renders').set(bearer(ws.key)).send(render(3)).expect(202)).body.id as string;
    await waitFor(() => jobRow(running), (row) => row?.status === 'processing', 120_000);
    const queued = (await app.http.post('/v1/renders').set(bearer(ws.key)).send(render(1)).expect(202)).body.id as string;
    const entries: { queue_entry_id: string }[] = await db().query(`SELECT queue_entry_id FROM jobs WHERE id = ANY($1)`, [[running, queued]]);

    await app.http.delete(`/v1/admin/workspaces/${ws.id}`).set(admin).expect(204);
    expect((await app.http.get('/v1/workspace').set(bearer(ws.key))).status).toBe(401);
    // The queued entry left its queue with the job; the running one ends within moments (no output kept).
    const queueStates = async () => (await db().query(`SELECT id::text, state FROM pgboss.job WHERE id = ANY($1::uuid[])`, [entries.map((e) => e.queue_entry_id)])) as { state: string }[];
    await waitFor(queueStates, (rows) => rows.every((row) => row.state !== 'active' && row.state !== 'created'), 120_000);
    const left = await db().query(
      `SELECT (SELECT count(*) FROM workspaces WHERE id = $1) + (SELECT count(*) FROM jobs WHERE workspace_id = $1) + (SELECT count(*) FROM api_keys WHERE workspace_id = $1)
            + (SELECT count(*) FROM assets WHERE workspace_id = $1) + (SELECT count(*) FROM projects WHERE workspace_id = $1)
            + (SELECT count(*) FROM render_chunks WHERE job_id = ANY($2)) AS n`,
      [ws.id, [running, queued]],
    );
    expect(Number(left[0].n)).toBe(0);
    expect(existsSync(path.join(app.dataDir, 'storage', ws.id))).toBe(false);
    expect((await app.http.get(`/v1/admin/workspaces/${ws.id}`).set(admin)).status).toBe(404);
    const audit = await db().query(`SELECT action, before->>'id' AS workspace, after FROM admin_audit WHERE workspace_id = $1 ORDER BY admin_audit.id`, [ws.id]);
    expect(audit).toEqual([expect.objectContaining({ action: 'workspace.create' }), { action: 'workspace.delete', workspace: ws.id, after: null }]);
  });
});

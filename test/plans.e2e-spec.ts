import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { bearer, nextIp, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/** Operator plans: `team` has no render-minute limit, `tiny` is smaller than free everywhere. */
const PLANS = {
  plans: [
    {
      name: 'team',
      render_minutes_per_month: null,
      transcribe_minutes_per_month: null,
      job: { frames: null, pixels_per_frame: null, pixel_frames: null, elements: null, media_seconds: null },
      workspace: { webhooks: null, api_keys: null, open_uploads: null, projects: null, brand_kits: null, concurrent_renders: null },
    },
    {
      name: 'tiny',
      render_minutes_per_month: 0.05,
      transcribe_minutes_per_month: 1,
      job: { frames: 40, pixels_per_frame: 320 * 180, pixel_frames: null, elements: 3, media_seconds: 10 },
      workspace: { webhooks: 1, api_keys: 2, open_uploads: 1, projects: 1, brand_kits: 1, concurrent_renders: 1 },
    },
  ],
};

const still = { width: 64, height: 64, output_format: 'png' };
const video = (duration: number) => ({ width: 64, height: 36, duration, frame_rate: 10 });

describe('plans from configuration (PLANS_FILE, DEFAULT_PLAN) and the signup email domains', () => {
  let app: TestApp;
  let folder: string;
  const db = () => app.running.app.get(DataSource);

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'vrs-plans-'));
    writeFileSync(path.join(folder, 'plans.json'), JSON.stringify(PLANS));
    // The API alone: renders stay queued, holding their reservations, which is what quotas count.
    app = await startTestApp({
      role: 'api',
      env: { PLANS_FILE: path.join(folder, 'plans.json'), DEFAULT_PLAN: 'team', SIGNUP_EMAIL_DOMAINS: 'example.com,Example.org', TRUST_PROXY: 'true' },
    });
  });
  afterAll(async () => {
    await app.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('publishes every plan, the default and the signup policy in /v1/capabilities', async () => {
    const caps = (await app.http.get('/v1/capabilities').expect(200)).body;
    expect(Object.keys(caps.limits.plans)).toEqual(['free', 'team', 'tiny']);
    expect(caps.limits.plans.free.render_minutes_per_month).toBe(60);
    expect(caps.limits.plans.team).toEqual({
      render_minutes_per_month: null,
      transcribe_minutes_per_month: null,
      job: PLANS.plans[0].job,
      workspace: PLANS.plans[0].workspace,
    });
    expect(caps.limits.plans.tiny.workspace.projects).toBe(1);
    expect(caps.limits.default_plan).toBe('team');
    expect(caps.onboarding.signup).toEqual({ mode: 'open', email_domains: ['example.com', 'example.org'] });
    expect(caps.onboarding.summary).toMatch(/Only emails at example\.com, example\.org may sign up/);
  });

  it('gives new workspaces DEFAULT_PLAN, shown by name with null (unlimited) limits; no 402 however much was rendered', async () => {
    const { key, workspaceId } = await signupVerified(app);
    expect((await app.http.get('/v1/workspace').set(bearer(key)).expect(200)).body.plan).toBe('team');
    // Far past any finite allowance: a thousand hours rendered this month.
    await db().query(
      `INSERT INTO jobs (id, workspace_id, kind, status, request, output_seconds, completed_at) VALUES ('render_TEAMUSED', $1, 'render', 'completed', '{}', 3600000, now())`,
      [workspaceId],
    );
    const usage = (await app.http.get('/v1/workspace/usage').set(bearer(key)).expect(200)).body;
    expect(usage.plan).toEqual({ name: 'team', render_minutes_limit: null, render_minutes_remaining: null });
    expect(usage.render_minutes).toBe(60000);
    const submitted = await app.http.post('/v1/renders').set(bearer(key)).send(video(2));
    expect(submitted.status).toBe(202);
    // No per-render caps either: beyond free's 18,000 frames and 300 elements.
    const big = await app.http.post('/v1/renders').set(bearer(key))
      .send({ ...video(2), frame_rate: 240, duration: 100, elements: Array.from({ length: 301 }, () => ({ type: 'shape', shape: 'rectangle' })) });
    expect(big.status).toBe(202);
  });

  it("applies a workspace's own plan to quota, per-render caps and per-workspace caps, naming it", async () => {
    const { key, workspaceId } = await signupVerified(app, `tiny${Date.now()}@example.org`);
    await db().query(`UPDATE workspaces SET plan = 'tiny' WHERE id = $1`, [workspaceId]);
    const usage = (await app.http.get('/v1/workspace/usage').set(bearer(key)).expect(200)).body;
    expect(usage.plan).toEqual({ name: 'tiny', render_minutes_limit: 0.05, render_minutes_remaining: 0.05 });

    // 3 s fits the 0.05 minutes (3 s) and stays reserved while queued; one more second does not.
    await app.http.post('/v1/renders').set(bearer(key)).send(video(3)).expect(202);
    const over = await app.http.post('/v1/renders').set(bearer(key)).send(video(1));
    expect(over.status).toBe(402);
    expect(over.body.error.code).toBe('quota_exceeded');
    expect(over.body.error.message).toMatch(/^The tiny plan allows 0.05 render minutes a month/);
    expect(over.body.error.details.render_minutes_limit).toBe(0.05);

    const caps = await app.http.post('/v1/renders').set(bearer(key)).send({ width: 640, height: 360, duration: 5, frame_rate: 10 });
    expect(caps.status).toBe(422);
    const messages = caps.body.error.details.errors.map((e: { msg: string; type: string }) => `${e.type}: ${e.msg}`);
    expect(messages).toEqual([
      "plan_limit: The render has 50 frames; at most 40 are allowed (the tiny plan's limit per render)",
      "plan_limit: The frame has 230400 pixels (width × height); at most 57600 are allowed (the tiny plan's limit per render)",
    ]);

    const project = { name: 'p', render_request: still };
    await app.http.post('/v1/projects').set(bearer(key)).send(project).expect(201);
    const second = await app.http.post('/v1/projects').set(bearer(key)).send(project);
    expect(second.status).toBe(403);
    expect(second.body.error).toMatchObject({ code: 'forbidden', details: { limit: 'projects', max: 1 } });
    expect(second.body.error.message).toMatch(/the most the tiny plan allows/);
  });

  it('refuses signups from other email domains with 403 saying why', async () => {
    const res = await app.http.post('/v1/signup').set('X-Forwarded-For', nextIp()).send({ workspace_name: 'Out', email: 'someone@elsewhere.net' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(res.body.error.message).toBe('Signup on this service is limited to email addresses at example.com, example.org');
    const rows = await db().query(`SELECT count(*)::int AS n FROM workspaces WHERE email = 'someone@elsewhere.net'`);
    expect(rows[0].n).toBe(0);
  });

  it('has no admin API without ADMIN_API_KEY: every admin route of the document is 404 like an unknown route, whatever the key', async () => {
    const doc = JSON.parse(readFileSync(path.join(__dirname, '..', 'openapi', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths)
      .filter(([template]) => template.startsWith('/v1/admin/'))
      .flatMap(([template, item]) => Object.keys(item).map((method) => ({ method: method as 'get' | 'post' | 'patch' | 'delete', url: template.replace('{id}', 'ws_01JD8Z3N5Q7W9X2Y4A6B8C0D1E') })));
    expect(routes).toHaveLength(6);
    const { key } = await signupVerified(app);
    for (const { method, url } of routes) {
      for (const headers of [{}, bearer(key), { Authorization: `Bearer ${'a'.repeat(40)}` }]) {
        const res = await app.http[method](url).set(headers).send(method === 'get' || method === 'delete' ? undefined : { name: 'x', email: 'x@example.com' });
        expect({ method, url, status: res.status, body: res.body }).toEqual({ method, url, status: 404, body: { error: { code: 'not_found', message: `No route ${method.toUpperCase()} ${url}` } } });
      }
    }
  });

  it('refuses to start with a broken PLANS_FILE, listing every problem (the built service, as an operator runs it)', async () => {
    const broken = { plans: [{ ...PLANS.plans[1], render_minutes_per_month: -1, workspace: { ...PLANS.plans[1].workspace, projects: undefined } }] };
    writeFileSync(path.join(folder, 'broken.json'), JSON.stringify(broken));
    const main = path.join(__dirname, '..', 'dist', 'src', 'main.js');
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [main, 'api'],
        { env: { PATH: process.env.PATH ?? '', DATABASE_URL: app.databaseUrl, DATA_DIR: folder, PLANS_FILE: path.join(folder, 'broken.json'), DEFAULT_PLAN: 'enterprise' }, timeout: 60_000 },
        (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stderr }),
      );
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Invalid configuration/);
    expect(run.stderr).toMatch(/plans\[0\] \("tiny"\)\.render_minutes_per_month must be a number ≥ 0 or null/);
    expect(run.stderr).toMatch(/plans\[0\] \("tiny"\)\.workspace\.projects is missing/);
    expect(run.stderr).toMatch(/DEFAULT_PLAN "enterprise" is not a plan/);
  });
});

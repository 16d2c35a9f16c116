import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Response } from 'supertest';
import { QuotaService } from '../src/jobs/quota.service';
import { TranscriptCacheService } from '../src/tasks/transcribe/transcript-cache.service';
import type { Workspace } from '../src/workspaces/workspace.entity';
import { Client } from 'pg';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/** Renders that cost nothing to queue: a png still of an empty canvas. */
const still = (extra: Record<string, unknown> = {}) => ({ width: 64, height: 64, output_format: 'png', ...extra });

async function sql<T = Record<string, unknown>>(app: TestApp, text: string, params: unknown[] = []): Promise<T[]> {
  const db = new Client({ connectionString: app.databaseUrl });
  await db.connect();
  try {
    return (await db.query(text, params)).rows as T[];
  } finally {
    await db.end();
  }
}

describe('what one tenant can make the service store, parse and return', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ role: 'api', env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => app.close());

  it('caps metadata at 16 KB and depth 10 on renders and tasks, and publishes the limits', async () => {
    const { key } = await signupVerified(app);
    const big = await app.http.post('/v1/renders').set(bearer(key)).send(still({ metadata: { blob: 'x'.repeat(20_000) } }));
    expect(big.status).toBe(422);
    expect(big.body.error.details.errors[0]).toMatchObject({ loc: ['body', 'metadata'], pointer: '/metadata' });
    expect(big.body.error.details.errors[0].msg).toMatch(/at most 16384 bytes/);

    let deep: unknown = 'leaf';
    for (let i = 0; i < 12; i++) deep = { d: deep };
    const nested = await app.http.post('/v1/renders').set(bearer(key)).send(still({ metadata: deep }));
    expect(nested.status).toBe(422);
    expect(nested.body.error.details.errors[0].msg).toMatch(/nested 12 levels deep; at most 10/);

    const task = await app.http.post('/v1/tasks/transcribe').set(bearer(key))
      .send({ source_url: 'https://media.example.com/a.mp3', metadata: { blob: 'x'.repeat(20_000) } });
    expect(task.status).toBe(422);
    expect(task.body.error.details.errors[0]).toMatchObject({ loc: ['body', 'metadata'], pointer: '/metadata' });
    expect(task.body.error.details.errors[0].msg).toMatch(/at most 16384 bytes/);

    const caps = await app.http.get('/v1/capabilities').expect(200);
    expect(caps.body.limits.request).toMatchObject({ metadata_bytes: 16384, metadata_depth: 10, elements: 1000 });
    expect(caps.body.limits.list_limit.max_bytes).toBe(1024 * 1024);
    expect(caps.body.request_schema.properties.metadata).toMatchObject({ 'x-max-bytes': 16384, 'x-max-depth': 10 });
  });

  it('stores metadata once and bounds list responses in bytes as well as rows', async () => {
    const { key, workspaceId } = await signupVerified(app);
    const filler = 'm'.repeat(15_500);
    const ids: string[] = [];
    for (let i = 0; i < 72; i++) {
      const res = await app.http.post('/v1/renders').set(bearer(key)).set('X-Forwarded-For', '203.0.113.9').send(still({ metadata: { i, filler } }));
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    const stored = await sql<{ has_copy: boolean; meta_i: number }>(
      app,
      `SELECT request ? 'metadata' AS has_copy, (metadata->>'i')::int AS meta_i FROM jobs WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, ids[5]],
    );
    expect(stored).toEqual([{ has_copy: false, meta_i: 5 }]);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Response = await app.http.get('/v1/renders').query({ limit: 200, ...(cursor ? { cursor } : {}) }).set(bearer(key)).expect(200);
      expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(1024 * 1024 + 1024);
      expect(page.body.data.length).toBeGreaterThan(0);
      seen.push(...page.body.data.map((job: { id: string; metadata: { i: number } }) => job.id));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
      pages += 1;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(seen).toHaveLength(ids.length);
  });

  it('refuses renders past the plan\'s per-render caps, each pointing at the field', async () => {
    const { key } = await signupVerified(app);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ width: 320, height: 180, duration: 700 }, '/duration', /21000 frames; at most 18000/],
      [{ width: 8192, height: 8192, duration: 1 }, '/width', /67108864 pixels .*at most 8294400/],
      [{ width: 3840, height: 2160, duration: 300 }, '/duration', /pixels in all .*at most 37324800000/],
      [{ width: 320, height: 180, duration: 1, elements: Array.from({ length: 301 }, () => ({ type: 'shape' })) }, '/elements', /301 elements; at most 300/],
    ];
    for (const [body, pointer, msg] of cases) {
      const res = await app.http.post('/v1/renders').set(bearer(key)).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.errors[0]).toMatchObject({ type: 'plan_limit', pointer });
      expect(res.body.error.details.errors[0].msg).toMatch(msg);
    }
    const caps = await app.http.get('/v1/capabilities').expect(200);
    expect(caps.body.limits.plans.free).toMatchObject({
      render_minutes_per_month: 60,
      transcribe_minutes_per_month: 120,
      job: { frames: 18000, pixels_per_frame: 8294400, elements: 300, media_seconds: 7200 },
      workspace: { webhooks: 20, api_keys: 50, open_uploads: 100 },
    });
  });

  it('counts speech recognised for render captions against the transcription minutes', async () => {
    const { key } = await signupVerified(app);
    const workspace = (await app.http.get('/v1/workspace').set(bearer(key)).expect(200)).body as { id: string };
    // A render's captions recognised the month's whole allowance (120 minutes) of speech.
    await sql(app, `INSERT INTO transcript_cache (workspace_id, source_url, engine, transcript) VALUES ($1, $2, 'pocketsphinx', $3)`, [
      workspace.id, 'https://media.example.com/talk.mp4', JSON.stringify({ text: '', language_code: 'en-US', duration: 7200, confidence: 0, words: [], utterances: [] }),
    ]);
    // A transcribe task of one more minute no longer fits (what its submit asks once the source is probed).
    const quota = app.running.app.get(QuotaService, { strict: false });
    const refusal = await quota.refusal('transcribe', { id: workspace.id, plan: 'free' } as Workspace, 60);
    expect(refusal).toMatchObject({ code: 'quota_exceeded', details: { transcribe_minutes_used: 120, transcribe_minutes_limit: 120 } });

    // The next render source is not recognised: the render fails quota_exceeded before recognising.
    const folder = mkdtempSync(path.join(tmpdir(), 'quota-speech-'));
    try {
      const file = path.join(folder, 'tone.wav');
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', file]);
      const cache = app.running.app.get(TranscriptCacheService, { strict: false });
      await expect(cache.transcript({ workspaceId: workspace.id, sourceUrl: 'https://media.example.com/other.mp4', file, signal: new AbortController().signal }))
        .rejects.toMatchObject({ code: 'quota_exceeded', message: expect.stringMatching(/transcription minutes/) });
      const rows = await sql(app, `SELECT 1 FROM transcript_cache WHERE workspace_id = $1 AND source_url = $2`, [workspace.id, 'https://media.example.com/other.mp4']);
      expect(rows).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('reserves render minutes for queued renders and releases them on cancel', async () => {
    const { key } = await signupVerified(app);
    const tenMinutes = { width: 320, height: 180, duration: 600 };
    const queued: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await app.http.post('/v1/renders').set(bearer(key)).send(tenMinutes);
      expect(res.status).toBe(202);
      queued.push(res.body.id);
    }
    // Sixty minutes are held by queued renders; nothing has completed.
    const over = await app.http.post('/v1/renders').set(bearer(key)).send({ width: 320, height: 180, duration: 1 });
    expect(over.status).toBe(402);
    expect(over.body.error.code).toBe('quota_exceeded');
    expect(over.body.error.message).toMatch(/0\.00 minutes remain \(queued and running jobs included\)/);
    // A still bills no minutes and is still accepted.
    await app.http.post('/v1/renders').set(bearer(key)).send(still()).expect(202);

    await app.http.post(`/v1/renders/${queued[0]}/cancel`).set(bearer(key)).expect(200);
    await app.http.post('/v1/renders').set(bearer(key)).send({ width: 320, height: 180, duration: 1 }).expect(202);
  });

  it('caps webhooks, API keys and open upload slots per workspace, and webhook tests per minute', async () => {
    const { key } = await signupVerified(app);
    const webhookIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await app.http.post('/v1/webhooks').set(bearer(key)).send({ url: `https://hooks.example.com/${i}`, events: ['render.completed'] });
      expect(res.status).toBe(201);
      webhookIds.push(res.body.id);
    }
    const extraHook = await app.http.post('/v1/webhooks').set(bearer(key)).send({ url: 'https://hooks.example.com/21', events: ['render.completed'] });
    expect(extraHook.status).toBe(403);
    expect(extraHook.body.error).toMatchObject({ code: 'forbidden', details: { limit: 'webhooks', max: 20 } });
    // Removing one frees a place.
    await app.http.delete(`/v1/webhooks/${webhookIds[0]}`).set(bearer(key)).expect(204);
    await app.http.post('/v1/webhooks').set(bearer(key)).send({ url: 'https://hooks.example.com/again', events: ['render.completed'] }).expect(201);

    for (let i = 0; i < 49; i++) await app.http.post('/v1/api-keys').set(bearer(key)).send({ name: `k${i}` }).expect(201);
    const extraKey = await app.http.post('/v1/api-keys').set(bearer(key)).send({ name: 'one too many' });
    expect(extraKey.status).toBe(403);
    expect(extraKey.body.error.details).toEqual({ limit: 'api_keys', max: 50 });

    for (let i = 0; i < 100; i++) await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'video/mp4' }).expect(201);
    const extraSlot = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'video/mp4' });
    expect(extraSlot.status).toBe(403);
    expect(extraSlot.body.error.details).toEqual({ limit: 'open_uploads', max: 100 });

    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    for (let i = 0; i < 10; i++) await app.http.post(`/v1/webhooks/${webhookIds[1]}/test`).set(bearer(key)).expect(202);
    const extraTest = await app.http.post(`/v1/webhooks/${webhookIds[1]}/test`).set(bearer(key));
    expect(extraTest.status).toBe(429);
    expect(extraTest.body.error.details.scope).toBe('webhook_test');
    expect(Number(extraTest.headers['retry-after'])).toBeGreaterThan(0);
  });
});

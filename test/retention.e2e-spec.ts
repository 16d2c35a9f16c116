import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { QueueService } from '../src/infra/queue/queue.service';
import { RetentionService } from '../src/retention/retention.service';
import { makeImage, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/** The path and query of a URL the service signed, for supertest. */
const local = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

describe('retention (RENDER_RETENTION_DAYS, ASSET_RETENTION_DAYS): a scheduled sweep deletes expired files, never one a job still needs', () => {
  let app: TestApp;
  let folder: string;
  let key: string;
  let workspaceId: string;
  const db = () => app.running.app.get(DataSource);
  const stored = (storageKey: string) => existsSync(path.join(app.dataDir, 'storage', storageKey));

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'vrs-retention-'));
    await makeImage(path.join(folder, 'a.png'), 'red', 16, 16);
    app = await startTestApp({ env: { RENDER_RETENTION_DAYS: '7', ASSET_RETENTION_DAYS: '30', RETENTION_SWEEP_MINUTES: '15' } });
    ({ key, workspaceId } = await signupVerified(app));
  });
  afterAll(async () => {
    await app.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const renderStill = async () => {
    const made = await app.http.post('/v1/renders').set(bearer(key)).send({ width: 32, height: 32, output_format: 'png', background_color: '#ff0000' }).expect(202);
    return waitFor(async () => (await app.http.get(`/v1/renders/${made.body.id}`).set(bearer(key))).body, (job) => job.status === 'completed', 120_000);
  };
  const upload = async () => {
    const slot = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'image/png', filename: 'a.png' }).expect(201);
    await app.http.put(local(slot.body.upload_url)).set('Content-Type', 'image/png').send(readFileSync(path.join(folder, 'a.png'))).expect(200);
    const id = new URL(slot.body.source_url).pathname.split('/')[4];
    await waitFor(async () => (await app.http.get(`/v1/workspace/assets/${id}`).set(bearer(key))).body.status, (status) => status === 'present', 60_000);
    const [row] = await db().query(`SELECT storage_key FROM assets WHERE id = $1`, [id]);
    return { id, sourceUrl: slot.body.source_url as string, storageKey: row.storage_key as string };
  };
  /** A queued job naming `text` in its request, as a submit would leave it (no queue entry: no worker takes it). */
  const queuedJobNaming = async (text: string) => {
    const id = `render_QUEUED${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
    await db().query(`INSERT INTO jobs (id, workspace_id, kind, status, request) VALUES ($1, $2, 'render', 'queued', $3)`, [id, workspaceId, JSON.stringify({ elements: [{ type: 'image', source_url: text }] })]);
    return id;
  };

  it('schedules the sweep with pg-boss every RETENTION_SWEEP_MINUTES', async () => {
    const rows = await db().query(`SELECT name, cron FROM pgboss.schedule WHERE name = 'retention-sweep'`);
    expect(rows).toEqual([{ name: 'retention-sweep', cron: '*/15 * * * *' }]);
  });

  it('expires old render outputs (record kept: url null, expired_at; download 404 saying so) and old assets, keeping what is young or still named by a queued job', async () => {
    const old = await renderStill();
    const young = await renderStill();
    const needed = await renderStill();
    const keys: Record<string, string> = Object.fromEntries(
      (await db().query(`SELECT id, output_key FROM jobs WHERE id = ANY($1)`, [[old.id, young.id, needed.id]])).map((r: { id: string; output_key: string }) => [r.id, r.output_key]),
    );
    const oldAsset = await upload();
    const neededAsset = await upload();
    const youngAsset = await upload();
    // The blockers go in before anything is backdated: the scheduled sweep (every 15 minutes) may run at any moment.
    const blockers = [await queuedJobNaming(neededAsset.sourceUrl), await queuedJobNaming(`https://x.example/v1/files/${keys[needed.id]}?sig=1`)];
    await db().query(`UPDATE jobs SET completed_at = now() - interval '8 days' WHERE id = ANY($1)`, [[old.id, needed.id]]);
    await db().query(`UPDATE assets SET created_at = now() - interval '31 days' WHERE id = ANY($1)`, [[oldAsset.id, neededAsset.id]]);
    const usageBefore = (await app.http.get('/v1/workspace/usage').set(bearer(key)).expect(200)).body;

    // Through the queue, as the schedule does it: one worker takes the entry.
    await app.running.app.get(QueueService).instance.send('retention-sweep', {});
    await waitFor(async () => (await app.http.get(`/v1/workspace/assets/${oldAsset.id}`).set(bearer(key))).status, (status) => status === 404, 60_000);
    await waitFor(async () => (await app.http.get(`/v1/renders/${old.id}`).set(bearer(key))).body.output.url, (url) => url === null, 60_000);

    const expired = (await app.http.get(`/v1/renders/${old.id}`).set(bearer(key)).expect(200)).body;
    expect(expired.status).toBe('completed');
    expect(expired.output).toMatchObject({ url: null, width: 32, height: 32, expired_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(stored(keys[old.id])).toBe(false);
    const download = await app.http.get(`/v1/renders/${old.id}/download`).set(bearer(key));
    expect(download.status).toBe(404);
    expect(download.body.error.code).toBe('not_found');
    expect(download.body.error.message).toMatch(/output expired on/);
    expect(stored(oldAsset.storageKey)).toBe(false);

    for (const kept of [young, needed]) {
      expect((await app.http.get(`/v1/renders/${kept.id}`).set(bearer(key)).expect(200)).body.output.url).toEqual(expect.any(String));
      expect(stored(keys[kept.id])).toBe(true);
      await app.http.get(`/v1/renders/${kept.id}/download`).set(bearer(key)).expect(200);
    }
    for (const kept of [neededAsset, youngAsset]) {
      expect((await app.http.get(`/v1/workspace/assets/${kept.id}`).set(bearer(key))).status).toBe(200);
      expect(stored(kept.storageKey)).toBe(true);
    }
    // What was rendered stays counted: the record is the usage.
    const usageAfter = (await app.http.get('/v1/workspace/usage').set(bearer(key)).expect(200)).body;
    expect(usageAfter.render_count).toBe(usageBefore.render_count);

    // Once the jobs that named them have ended, the next sweep takes them.
    await db().query(`UPDATE jobs SET status = 'cancelled', completed_at = now() WHERE id = ANY($1)`, [blockers]);
    const report = await app.running.app.get(RetentionService).sweep();
    expect(report).toEqual({ renders_expired: 1, assets_deleted: 1, kept_in_use: 0 });
    expect(stored(keys[needed.id])).toBe(false);
    expect(stored(neededAsset.storageKey)).toBe(false);
    expect(stored(keys[young.id])).toBe(true);
  });

  it('runs one sweep at a time: a second one started meanwhile steps aside', async () => {
    const retention = app.running.app.get(RetentionService);
    const reports = await Promise.all([retention.sweep(), retention.sweep()]);
    expect(reports.filter((r) => r === null)).toHaveLength(1);
    expect(reports.find((r) => r !== null)).toEqual({ renders_expired: 0, assets_deleted: 0, kept_in_use: 0 });
  });
});

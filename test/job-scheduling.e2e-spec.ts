import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { makeVideo, serveFolder } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

const tinyStill = { width: 32, height: 32, output_format: 'png', background_color: '#336699' };

describe('scheduling: fair queues, cancellation and the quota check after probing', () => {
  let app: TestApp;
  let media: Awaited<ReturnType<typeof serveFolder>>;
  const fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-fixtures-'));
  beforeAll(async () => {
    await makeVideo(path.join(fixtures, 'twenty-seconds.mp4'), { width: 64, height: 36, seconds: 20, fps: 5, audio: false });
    media = await serveFolder(fixtures);
    app = await startTestApp({ env: { TRUST_PROXY: 'true', ALLOW_PRIVATE_NETWORK: 'true' } });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await media?.close();
    rmSync(fixtures, { recursive: true, force: true });
  });

  const db = () => app.running.app.get(DataSource);

  async function waitFor<T>(what: string, read: () => Promise<T | null>, timeoutMs = 120_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (value !== null) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('runs workspace B\'s single render within the time of one of A\'s 50, and cancelled jobs leave the queue', async () => {
    const a = await signupVerified(app);
    const b = await signupVerified(app);
    const backlog: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await app.http.post('/v1/renders').set(bearer(a.key)).set('X-Forwarded-For', '203.0.113.10').send(tinyStill);
      expect(res.status).toBe(202);
      backlog.push(res.body.id);
    }
    const single = await app.http.post('/v1/renders').set(bearer(b.key)).set('X-Forwarded-For', '203.0.113.11').send(tinyStill);
    expect(single.status).toBe(202);

    const done = await waitFor('B\'s render', async () => {
      const res = await app.http.get(`/v1/renders/${single.body.id}`).set(bearer(b.key));
      return res.body.status === 'completed' ? res.body : null;
    });
    expect(done.output.url).toBeTruthy();

    // Between B's submit and B's start, at most one more of A's renders started (the next fetch of
    // a worker already asking): B waited for the render in progress, not for A's backlog.
    const [{ b_created, b_started }] = await db().query(`SELECT created_at AS b_created, started_at AS b_started FROM jobs WHERE id = $1`, [single.body.id]);
    const [{ overtaking }] = await db().query(
      `SELECT count(*)::int AS overtaking FROM jobs WHERE workspace_id = $1 AND started_at > $2 AND started_at < $3`,
      [a.workspaceId, b_created, b_started],
    );
    expect(overtaking).toBeLessThanOrEqual(1);
    const [{ unfinished }] = await db().query(
      `SELECT count(*)::int AS unfinished FROM jobs WHERE workspace_id = $1 AND status IN ('queued', 'processing')`,
      [a.workspaceId],
    );
    expect(unfinished).toBeGreaterThan(40);

    // Cancel A's backlog; a job cancelled while still queued has its queue entry cancelled in the same step.
    const queuedNow: { id: string }[] = await db().query(`SELECT id FROM jobs WHERE workspace_id = $1 AND status = 'queued' ORDER BY id`, [a.workspaceId]);
    // At once: the worker takes the next job the moment one ends, so it keeps starting A's renders meanwhile.
    await Promise.all(queuedNow.map(({ id }) => app.http.post(`/v1/renders/${id}/cancel`).set(bearer(a.key)).expect(200)));
    const neverStarted: string[] = (
      await db().query(`SELECT id FROM jobs WHERE id = ANY($1) AND started_at IS NULL`, [queuedNow.map((j) => j.id)])
    ).map((row: { id: string }) => row.id);
    expect(neverStarted.length).toBeGreaterThan(30);
    const entries: { state: string }[] = await db().query(
      `SELECT q.state FROM jobs j JOIN pgboss.job q ON q.id = j.queue_entry_id WHERE j.id = ANY($1)`,
      [neverStarted],
    );
    expect(entries).toHaveLength(neverStarted.length);
    expect(new Set(entries.map((e) => e.state))).toEqual(new Set(['cancelled']));

    // None of them is ever started afterwards.
    await waitFor('the running A renders to end', async () => {
      const [{ running }] = await db().query(`SELECT count(*)::int AS running FROM jobs WHERE workspace_id = $1 AND status = 'processing'`, [a.workspaceId]);
      return running === 0 ? true : null;
    });
    const [{ startedLater }] = await db().query(
      `SELECT count(*)::int AS "startedLater" FROM jobs WHERE id = ANY($1) AND started_at IS NOT NULL`,
      [neverStarted],
    );
    expect(startedLater).toBe(0);
  });

  it('fails a render with quota_exceeded before drawing when its probed media no longer fit the month', async () => {
    const { key, workspaceId } = await signupVerified(app);
    // 59 min 50 s of the month are used.
    await db().query(
      `INSERT INTO jobs (id, workspace_id, kind, status, request, output_seconds, completed_at) VALUES ('render_QUOTA_FILL', $1, 'render', 'completed', '{}', 3590, now())`,
      [workspaceId],
    );
    // The clip's length is unknown at submit: it counts as 5 s, which fits; probed, it is 20 s.
    const res = await app.http.post('/v1/renders').set(bearer(key)).send({
      width: 64,
      height: 36,
      elements: [{ type: 'video', source_url: `${media.url}/twenty-seconds.mp4` }],
    });
    expect(res.status).toBe(202);
    const ended = await waitFor('the render to end', async () => {
      const job = await app.http.get(`/v1/renders/${res.body.id}`).set(bearer(key));
      return ['completed', 'failed'].includes(job.body.status) ? job.body : null;
    });
    expect(ended.status).toBe('failed');
    expect(ended.error.code).toBe('quota_exceeded');
    expect(ended.error.message).toMatch(/needs 0\.33 minutes of render minutes, but only 0\.17 minutes/);
    expect(ended.output).toBeNull();
    // Failed, it no longer holds anything: a still and a 10 s render fit again.
    await app.http.post('/v1/renders').set(bearer(key)).send({ width: 64, height: 36, duration: 10 }).expect(202);
  });
});

import { DataSource } from 'typeorm';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

const tinyStill = { width: 32, height: 32, output_format: 'png', background_color: '#336699' };

describe('fair queues: one workspace\'s backlog does not starve another', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => app.close());

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
    for (const { id } of queuedNow) await app.http.post(`/v1/renders/${id}/cancel`).set(bearer(a.key)).expect(200);
    const neverStarted: string[] = (
      await db().query(`SELECT id FROM jobs WHERE id = ANY($1) AND started_at IS NULL`, [queuedNow.map((j) => j.id)])
    ).map((row: { id: string }) => row.id);
    expect(neverStarted.length).toBeGreaterThan(40);
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
});

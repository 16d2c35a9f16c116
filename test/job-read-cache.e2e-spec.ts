import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { JobChangeListener } from '../src/jobs/job-change-listener.service';
import { JobReadCache } from '../src/jobs/job-read-cache';
import { waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/**
 * The per-process cache of presented jobs (record 0133) against real PostgreSQL: two API
 * processes on one database (no worker, so renders stay queued), changes made through the other
 * process or by plain SQL, and a listening connection that is killed.
 */
describe('job read cache', () => {
  let a: TestApp;
  let b: TestApp;
  let sql: Client;
  let owner: { key: string; workspaceId: string };
  let other: { key: string };

  beforeAll(async () => {
    a = await startTestApp({ role: 'api' });
    b = await startTestApp({ role: 'api', databaseUrl: a.databaseUrl });
    sql = new Client({ connectionString: a.databaseUrl });
    await sql.connect();
    owner = await signupVerified(a);
    other = await signupVerified(a);
  });

  afterAll(async () => {
    await sql?.end();
    await b?.close();
    await a?.close();
  });

  const cacheOf = (app: TestApp) => app.running.app.get(JobReadCache);

  async function submit(): Promise<string> {
    const body = { width: 320, height: 180, duration: 1, elements: [{ type: 'text', text: `cache ${randomBytes(4).toString('hex')}` }] };
    const res = await a.http.post('/v1/renders').set(bearer(owner.key)).send(body).expect(202);
    return res.body.id as string;
  }

  /** Reads the job through `app` until its cache holds it (the listener opens with the first read). */
  async function cached(app: TestApp, id: string) {
    await app.running.app.get(JobChangeListener).ready();
    const first = await app.http.get(`/v1/renders/${id}`).set(bearer(owner.key)).expect(200);
    await waitFor(
      async () => (await app.http.get(`/v1/renders/${id}`).set(bearer(owner.key)).expect(200), cacheOf(app).get(owner.workspaceId, 'render', id)),
      (view) => view !== null,
      30_000,
      50,
    );
    return first.body;
  }

  /** Resolves when `app`'s cache has dropped `id` on a notification (or a write of its own). */
  function dropped(app: TestApp, id: string): Promise<void> {
    const cache = cacheOf(app);
    const invalidate = cache.invalidate.bind(cache);
    return new Promise((resolve) => {
      cache.invalidate = (changed: string) => {
        invalidate(changed);
        if (changed !== id) return;
        cache.invalidate = invalidate;
        resolve();
      };
    });
  }

  it('serves a change committed through another process on the next read, with a body identical to an uncached read', async () => {
    const id = await submit();
    const before = await cached(a, id);
    const fromCache = await a.http.get(`/v1/renders/${id}`).set(bearer(owner.key)).expect(200);
    expect(fromCache.text).toBe(JSON.stringify(before));

    const notified = dropped(a, id);
    const cancelled = await b.http.post(`/v1/renders/${id}/cancel`).set(bearer(owner.key)).expect(200);
    await notified;
    const after = await a.http.get(`/v1/renders/${id}`).set(bearer(owner.key)).expect(200);
    expect(after.body.status).toBe('cancelled');
    expect(after.body).toEqual(cancelled.body);
  });

  it('serves a change made by plain SQL on the next read after its notification', async () => {
    const id = await submit();
    await cached(a, id);
    const notified = dropped(a, id);
    await sql.query(`UPDATE jobs SET metadata = '{"changed_by":"sql"}', progress_percent = 42 WHERE id = $1`, [id]);
    await notified;
    const after = await a.http.get(`/v1/renders/${id}`).set(bearer(owner.key)).expect(200);
    expect(after.body.metadata).toEqual({ changed_by: 'sql' });
    expect(after.body.progress_percent).toBe(42);
  });

  it('shows a cancel in the same process on the very next read', async () => {
    const id = await submit();
    expect((await cached(a, id)).status).toBe('queued');
    await a.http.post(`/v1/renders/${id}/cancel`).set(bearer(owner.key)).expect(200);
    const after = await a.http.get(`/v1/renders/${id}`).set(bearer(owner.key)).expect(200);
    expect(after.body.status).toBe('cancelled');
  });

  it("answers 404 for another workspace's cached job, and for the job as a task", async () => {
    const id = await submit();
    await cached(a, id);
    const res = await a.http.get(`/v1/renders/${id}`).set(bearer(other.key)).expect(404);
    expect(res.body.error.code).toBe('not_found');
    await a.http.get(`/v1/tasks/${id}`).set(bearer(owner.key)).expect(404);
    await a.http.get(`/v1/renders/${id}`).set(bearer(owner.key)).expect(200);
  });

  it('drops every entry and reads the database while its listening connection is gone, then listens again', async () => {
    const id = await submit();
    await cached(a, id);
    const cache = cacheOf(a);
    // The listening backend dies as in a failover or a restart of PostgreSQL.
    const killed = await sql.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN job_changed%' AND pid <> pg_backend_pid()`,
    );
    expect(killed.rowCount).toBeGreaterThan(0);
    await waitFor(async () => cache.enabled, (enabled) => !enabled, 30_000, 20);
    expect(cache.get(owner.workspaceId, 'render', id)).toBeNull();

    // Notified to nobody in this process: only a read of the database sees it.
    await sql.query(`UPDATE jobs SET metadata = '{"while":"deaf"}' WHERE id = $1`, [id]);
    const after = await a.http.get(`/v1/renders/${id}`).set(bearer(owner.key)).expect(200);
    expect(after.body.metadata).toEqual({ while: 'deaf' });

    // It listens again by itself and caches again.
    await waitFor(async () => cache.enabled, (enabled) => enabled, 60_000, 100);
    await cached(a, id);
  });
});

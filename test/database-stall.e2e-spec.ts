import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { EmbeddedDatabase, startEmbeddedPostgres } from '../src/infra/database/embedded-postgres';
import { waitFor } from './helpers/media';
import { clusterOf, postmasterPid, removeDataDir } from './helpers/service-process';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/**
 * A database that stops answering (here: its processes stopped with SIGSTOP) fails requests fast:
 * every pool has connect and statement timeouts, so a request gets 503 `unavailable` in the
 * envelope with Retry-After instead of hanging, and the service recovers by itself once the
 * database answers again. The database is a PostgreSQL of this test's own (not the shared one).
 */
describe('a stalled database', () => {
  let pgDir: string;
  let pg: EmbeddedDatabase;
  let api: TestApp;
  let stopped: number[] = [];

  beforeAll(async () => {
    pgDir = mkdtempSync(path.join(tmpdir(), 'vrs-stall-pg-'));
    pg = await startEmbeddedPostgres(pgDir, null);
    // The service's own timeouts (the test app's are longer for a loaded machine).
    api = await startTestApp({ role: 'api', databaseUrl: pg.url, env: { DATABASE_CONNECT_TIMEOUT_MS: '3000', DATABASE_QUERY_TIMEOUT_MS: '5000' } });
  });
  afterAll(async () => {
    signal(stopped, 'SIGCONT');
    await api?.close();
    await pg?.stop();
    await removeDataDir(pgDir);
  });

  /** The server and every backend of it: stopping only the postmaster leaves open connections answering. */
  function serverProcesses(): number[] {
    const postmaster = postmasterPid(clusterOf(pgDir)!)!;
    const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    return [postmaster, ...children];
  }

  function signal(pids: number[], name: NodeJS.Signals): void {
    for (const pid of pids) {
      try {
        process.kill(pid, name);
      } catch {
        // exited meanwhile
      }
    }
  }

  it('answers 503 unavailable with Retry-After while it is stopped, and recovers when it returns', async () => {
    const { key } = await signupVerified(api);
    const submitted = await api.http.post('/v1/renders').set(bearer(key)).send({ width: 64, height: 64, duration: 1, elements: [] });
    expect(submitted.status).toBe(202);
    const id: string = submitted.body.id;

    stopped = serverProcesses();
    signal(stopped, 'SIGSTOP');
    try {
      const answers = await Promise.all([
        api.http.get(`/v1/renders/${id}`).set(bearer(key)).timeout(30_000),
        api.http.get('/v1/renders').set(bearer(key)).timeout(30_000),
        api.http.post('/v1/renders').set(bearer(key)).send({ width: 64, height: 64, duration: 1, elements: [] }).timeout(30_000),
      ]);
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.body.error).toMatchObject({ code: 'unavailable', message: expect.stringContaining('database') });
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
      const ready = await api.http.get('/v1/ready').timeout(30_000);
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database).toBe('unavailable');
    } finally {
      signal(stopped, 'SIGCONT');
      stopped = [];
    }

    // Back by itself: the same reads answer again, and the queued render is still there.
    const job = await waitFor(
      async () => api.http.get(`/v1/renders/${id}`).set(bearer(key)),
      (res) => res.status === 200,
      60_000,
      250,
    );
    expect(job.body).toMatchObject({ id, status: 'queued' });
    expect((await api.http.get('/v1/ready')).status).toBe(200);
    const again = await api.http.post('/v1/renders').set(bearer(key)).send({ width: 64, height: 64, duration: 1, elements: [] });
    expect(again.status).toBe(202);
  }, 180_000);
});

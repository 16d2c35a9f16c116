import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { PROJECT_ROOT } from '../src/config/paths';
import { waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/**
 * A worker process killed mid-render loses no job: pg-boss notices the missing heartbeat, hands
 * the job to another worker, and it completes. The doomed worker is the built service
 * (`node dist/src/main.js worker`), killed with SIGKILL.
 */
describe('a worker crash mid-render', () => {
  let api: TestApp;
  let rescuer: TestApp | null = null;
  let doomed: ChildProcess | null = null;
  // Every frame drawn in the browser (RENDER_HOLD_FRAMES=false): a still canvas would otherwise be
  // drawn once and finish before the worker can be killed mid-render.
  const env = { JOB_HEARTBEAT_SECONDS: '10', JOB_SUPERVISE_SECONDS: '1', ALLOW_PRIVATE_NETWORK: 'true', RENDER_HOLD_FRAMES: 'false' };

  beforeAll(async () => {
    api = await startTestApp({ role: 'api', env });
  });
  afterAll(async () => {
    doomed?.kill('SIGKILL');
    await rescuer?.close();
    await api.close();
  });

  it('is retried by another worker and completes', async () => {
    const { key } = await signupVerified(api);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-doomed-'));
    doomed = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'src', 'main.js'), 'worker'], {
      env: { ...process.env, ...env, DATABASE_URL: api.databaseUrl, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    try {
      const res = await api.http
        .post('/v1/renders')
        .set(bearer(key))
        .send({ width: 160, height: 90, duration: 8, frame_rate: 30, background_color: '#00ff00', elements: [] });
      expect(res.status).toBe(202);
      const id = res.body.id;
      await waitFor(
        async () => (await api.http.get(`/v1/renders/${id}`).set(bearer(key))).body,
        (job) => job.status === 'processing' && job.progress_percent >= 15,
        120_000,
      );
      doomed.kill('SIGKILL');
      await new Promise((resolve) => doomed!.once('exit', resolve));
      doomed = null;

      rescuer = await startTestApp({ role: 'worker', env, databaseUrl: api.databaseUrl });
      const job = await waitFor(
        async () => (await api.http.get(`/v1/renders/${id}`).set(bearer(key))).body,
        (body) => ['completed', 'failed', 'cancelled'].includes(body.status),
        180_000,
        250,
      );
      expect(job.status).toBe('completed');
      expect(job.output).toMatchObject({ width: 160, height: 90, duration: 8 });
      const rows = await api.running.app.get(DataSource).query(`SELECT attempts FROM jobs WHERE id = $1`, [id]);
      expect(rows[0].attempts).toBe(2);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // A worker boots twice and the render runs twice: minutes on a busy machine.
  }, 300_000);
});

import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { PROJECT_ROOT } from '../src/config/paths';
import { waitFor } from './helpers/media';
import { freePort, removeDataDir, ServiceProcess, startService } from './helpers/service-process';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/**
 * A rolling restart (SIGTERM) is not a failure: a worker that cannot finish its render within
 * SHUTDOWN_GRACE_SECONDS hands it back to the queue without using an attempt, and exits. Three
 * deploys during one render leave it to the next worker, which completes it on its first attempt.
 * The signalled workers are the built service (`node dist/src/main.js worker`).
 */
describe('graceful shutdown', () => {
  let api: TestApp;
  let rescuer: TestApp | null = null;
  let worker: ServiceProcess | null = null;
  // Every frame drawn in the browser (RENDER_HOLD_FRAMES=false), so the render is still running when signalled.
  const env = { JOB_HEARTBEAT_SECONDS: '10', JOB_SUPERVISE_SECONDS: '1', ALLOW_PRIVATE_NETWORK: 'true', RENDER_HOLD_FRAMES: 'false' };

  beforeAll(async () => {
    api = await startTestApp({ role: 'api', env });
  });
  afterAll(async () => {
    if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await rescuer?.close();
    await api.close();
  });

  it('a render signalled with SIGTERM three times is handed back each time and completes, no attempt used', async () => {
    const { key } = await signupVerified(api);
    const db = api.running.app.get(DataSource);
    const res = await api.http
      .post('/v1/renders')
      .set(bearer(key))
      .send({ width: 160, height: 90, duration: 4, frame_rate: 30, background_color: '#00ff00', elements: [] });
    expect(res.status).toBe(202);
    const id: string = res.body.id;
    const entry = async () =>
      (await db.query(`SELECT q.state, q.retry_count, q.retry_limit, j.attempts FROM pgboss.job q JOIN jobs j ON j.queue_entry_id = q.id WHERE j.id = $1`, [id]))[0];

    for (let round = 1; round <= 3; round++) {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-sigterm-'));
      // No grace period: the render cannot finish in it, however near its end, so it is handed back, not awaited.
      worker = startService(PROJECT_ROOT, { ...env, DATABASE_URL: api.databaseUrl, DATA_DIR: dataDir, PORT: String(await freePort()), SHUTDOWN_GRACE_SECONDS: '0' }, 'worker');
      try {
        await waitFor(
          async () => (await api.http.get(`/v1/renders/${id}`).set(bearer(key))).body,
          (job) => job.status === 'processing' && job.progress_percent >= 10,
          180_000,
          250,
        );
        worker.child.kill('SIGTERM');
        expect(await worker.exited).toBe(0);
        expect(worker.output()).toContain(`Render ${id} handed back to the queue`);
        // Back in the queue at once, with the attempt given back on both sides.
        expect(await entry()).toMatchObject({ state: 'retry', retry_limit: 2 + round, attempts: 0 });
      } finally {
        if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
        worker = null;
        await removeDataDir(dataDir);
      }
    }

    rescuer = await startTestApp({ role: 'worker', env, databaseUrl: api.databaseUrl });
    const job = await waitFor(
      async () => (await api.http.get(`/v1/renders/${id}`).set(bearer(key))).body,
      (body) => ['completed', 'failed', 'cancelled'].includes(body.status),
      180_000,
      250,
    );
    expect(job.status).toBe('completed');
    expect(job.output).toMatchObject({ width: 160, height: 90, duration: 4 });
    // One attempt counted: the three shutdowns raised the limit as they took a retry each.
    // The queue's entry completes just after the job's row does (when the handler returns).
    const settled = await waitFor(entry, (row) => row.state !== 'active', 30_000, 100);
    expect(settled).toMatchObject({ state: 'completed', attempts: 1 });
    expect(settled.retry_limit - settled.retry_count).toBe(2);
    // Four worker starts and one whole render: minutes on a busy machine.
  }, 600_000);

  it('an idle worker exits on SIGTERM with code 0', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-sigterm-idle-'));
    worker = startService(PROJECT_ROOT, { ...env, DATABASE_URL: api.databaseUrl, DATA_DIR: dataDir, PORT: String(await freePort()) }, 'worker');
    try {
      await waitFor(
        async () => worker!.output(),
        (text) => text.includes('Listening on'),
        120_000,
        100,
      );
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(worker.output()).toContain('SIGTERM: stopping');
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      worker = null;
      await removeDataDir(dataDir);
    }
  }, 180_000);

  it('an api process stops accepting on SIGTERM but finishes the upload in flight, then exits 0', async () => {
    const { key } = await signupVerified(api);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-sigterm-api-'));
    const port = await freePort();
    worker = startService(PROJECT_ROOT, { ...env, DATABASE_URL: api.databaseUrl, DATA_DIR: dataDir, PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }, 'api');
    const service = worker;
    try {
      await waitFor(async () => service.output(), (text) => text.includes('Listening on'), 120_000, 100);
      const slot = await fetch(`${service.url}/v1/uploads`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ content_type: 'image/png' }),
      }).then((res) => res.json());
      // A slow upload: 16 pieces of 64 KiB, one every 100 ms; SIGTERM arrives once the server is reading it.
      const piece = Buffer.alloc(64 * 1024, 9);
      const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(slot.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png', 'content-length': String(16 * piece.length) } }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        let sent = 0;
        const next = () => {
          req.write(piece);
          sent++;
          if (sent === 4) service.child.kill('SIGTERM');
          if (sent < 16) setTimeout(next, 100);
          else req.end();
        };
        next();
      });
      const res = await answered;
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ size: 16 * piece.length });
      expect(await service.exited).toBe(0);
      // A new connection is refused once it stopped listening.
      await expect(fetch(`${service.url}/v1/health`)).rejects.toThrow();
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
      worker = null;
      await removeDataDir(dataDir);
    }
  }, 180_000);
});

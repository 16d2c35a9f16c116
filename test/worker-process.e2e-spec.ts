import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { PROJECT_ROOT } from '../src/config/paths';
import { frameAt, probe, waitFor } from './helpers/media';
import { renderThroughApi } from './helpers/render-through-api';
import { freePort, isAlive, ServiceProcess, startService, waitUntilReady } from './helpers/service-process';
import { createDatabase, dropDatabase, signupVerified } from './helpers/test-app';

/**
 * The `all` role as an operator starts it (`node dist/src/main.js`, WORKER_PROCESS=fork):
 * the API in the process started, the worker in a child Node process of the same build
 * (record 0129), which renders, is restarted when it dies, and stops with its parent.
 */
describe('the all role with its worker in a process of its own', () => {
  const metricsToken = 'worker-process-metrics-token';
  const started: { service: ServiceProcess; dataDir: string; databaseUrl: string }[] = [];

  async function start(): Promise<{ service: ServiceProcess; dataDir: string }> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-worker-process-'));
    const databaseUrl = await createDatabase();
    const service = startService(PROJECT_ROOT, { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, PORT: String(await freePort()), METRICS_TOKEN: metricsToken, WORKER_PROCESS: 'fork' }, 'all');
    started.push({ service, dataDir, databaseUrl });
    await waitUntilReady(service);
    return { service, dataDir };
  }

  afterAll(async () => {
    for (const { service, dataDir, databaseUrl } of started) {
      for (const pid of [service.child.pid!, ...workerPids(service.child.pid!)]) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      await service.exited;
      rmSync(dataDir, { recursive: true, force: true });
      await dropDatabase(databaseUrl);
    }
  });

  it('renders in a child process, counts its render in /metrics, and exits cleanly with it on SIGTERM', async () => {
    const { service, dataDir } = await start();
    const workers = workerPids(service.child.pid!);
    expect(workers).toHaveLength(1);
    expect(readFileSync(`/proc/${workers[0]}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining([path.join(PROJECT_ROOT, 'dist', 'src', 'main.js'), 'worker']));

    const app = { http: request(service.url), dataDir };
    const { key } = await signupVerified(app);
    const folder = mkdtempSync(path.join(tmpdir(), 'vrs-worker-process-out-'));
    try {
      const { file } = await renderThroughApi(app, key, folder, 'red', { width: 160, height: 90, duration: 1, frame_rate: 30, background_color: '#ff0000', elements: [] }, 180_000);
      const probed = await probe(file);
      const video = probed.streams.find((stream) => stream.codec_type === 'video')!;
      expect({ width: video.width, height: video.height, frames: Number(video.nb_read_frames) }).toEqual({ width: 160, height: 90, frames: 30 });
      expect(Number(probed.format.duration)).toBeCloseTo(1, 1);
      const [r, g, b] = (await frameAt(file, 0.5)).at(80, 45);
      expect({ red: r > 200, green: g < 50, blue: b < 50 }).toEqual({ red: true, green: true, blue: true });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }

    // The render was counted in the worker process; the API's /metrics says so, and lists that process's own figures apart.
    const metrics = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
    expect(metrics).toMatch(/^vrs_jobs_finished_total\{kind="render",outcome="completed"\} 1$/m);
    expect(metrics).toMatch(/^vrs_process_cpu_seconds_total\{process="worker"\} \d/m);
    expect(metrics).toMatch(/^vrs_process_cpu_seconds_total \d/m);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(isAlive(workers[0])).toBe(false);
    expect(service.output()).toContain(`Working as the worker process of ${service.child.pid}`);
    expect(service.output().match(/SIGTERM: stopping/g)).toHaveLength(2); // the API's process and the worker's
    expect(service.output()).not.toMatch(/\bERROR\b/);
  }, 300_000);

  it('starts another worker process when its worker dies, and is ready again', async () => {
    const { service } = await start();
    const [first] = workerPids(service.child.pid!);
    process.kill(first, 'SIGKILL');
    const [second] = await waitFor(
      async () => workerPids(service.child.pid!),
      (pids) => pids.length === 1 && pids[0] !== first,
      120_000,
      250,
    );
    expect(service.output()).toContain(`Worker process ${first} was killed by SIGKILL; starting another in 1 s`);
    await waitFor(
      async () => (await fetch(`${service.url}/v1/ready`)).status,
      (status) => status === 200,
      120_000,
      250,
    );

    service.interrupt(); // Ctrl-C: the process group, which the worker process is not in
    expect(await service.exited).toBe(0);
    expect(isAlive(second)).toBe(false);
  }, 300_000);
});

/** The service's child Node processes that run the worker role. */
function workerPids(parent: number): number[] {
  let children: number[];
  try {
    children = readdirSync(`/proc/${parent}/task`).flatMap((tid) =>
      readFileSync(`/proc/${parent}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return []; // it has exited
  }
  return children.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('worker');
    } catch {
      return false;
    }
  });
}

// The container row of `npm run bench:chunks`: the image (scripts/build-image.sh, not rebuilt here)
// as an operator runs it: one api and two worker containers on the host network, a database of their
// own on the bench's PostgreSQL server, a shared data volume, each container held to one CPU
// (--cpus=1) where the engine allows it. Skipped, with the reason, when podman or the image is
// missing or BENCH_CHUNKS_CONTAINERS=false.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { containerEngine, IMAGE, IMAGE_UID, startServiceContainer, stopContainers, waitReady } from '../test/helpers/containers.ts';
import { freshDatabase, signUp, treeCpuSeconds } from './bench-service.mts';

export type ContainerCase =
  | { skipped: string }
  | { wall: number; cpu: number; limit: string; diagnostics: { render_path: string; drawing_tabs?: number; chunk_seconds?: number[]; join_seconds?: number }; chunksPerWorker: number[] };

const freePort = () => 20000 + Math.floor(Math.random() * 5000);

/** Why the containers cannot run here, or null. */
function unavailable(): string | null {
  if (process.env.BENCH_CHUNKS_CONTAINERS === 'false') return 'BENCH_CHUNKS_CONTAINERS=false';
  try {
    execFileSync('podman', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'podman is not installed';
  }
  try {
    execFileSync('podman', ['image', 'exists', IMAGE], { stdio: 'ignore' });
  } catch {
    return `no ${IMAGE} image (bash scripts/build-image.sh builds it)`;
  }
  return null;
}

/**
 * Renders `request` once with the containers (after a warm-up render on each worker) and reads
 * wall time (submit → completed), CPU seconds of the three containers' process trees, the job's
 * diagnostics and how many chunks each worker drew (render_chunks.worker_id).
 */
export async function renderWithContainers(options: { server: string; request: object; warmup: object; chunkFrames: number }): Promise<ContainerCase> {
  const reason = unavailable();
  if (reason) return { skipped: reason };
  const prefix = `vrs-bench-chunks-${process.pid}`;
  const engine = containerEngine(prefix);
  const names = [`${prefix}-api`, `${prefix}-worker-a`, `${prefix}-worker-b`];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-chunks-containers-'));
  chownSync(dataDir, IMAGE_UID, IMAGE_UID);
  const database = await freshDatabase('chunks_containers', options.server);
  try {
    const limited = await engine.podman(['run', '--rm', '--cpus=1', '--entrypoint', 'true', IMAGE]).then(() => true, () => false);
    const limit = limited ? '--cpus=1 each' : 'no CPU limit (the engine refused --cpus)';
    const [apiPort, ...workerPorts] = [freePort(), freePort() + 5000, freePort() + 10000];
    const env = {
      DATABASE_URL: database.url!,
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      STORAGE_SIGNING_SECRET: 'a-signing-secret-shared-by-the-three-containers',
      RENDER_CHUNK_FRAMES: String(options.chunkFrames),
      // One chunk at a time per one-CPU instance.
      RENDER_CONCURRENCY: '1',
      ALLOW_PRIVATE_NETWORK: 'true',
      LOG_FORMAT: 'text',
      LOG_LEVEL: 'error',
    };
    const extra = limited ? ['--cpus=1'] : [];
    await startServiceContainer(engine, { name: names[0], role: 'api', port: apiPort, dataDir, env, extra });
    await Promise.all(workerPorts.map((port, i) => startServiceContainer(engine, { name: names[i + 1], role: 'worker', port, dataDir, env, extra })));
    for (const port of [apiPort, ...workerPorts]) await waitReady(port);
    const { call } = await signUp(`http://127.0.0.1:${apiPort}`, path.join(dataDir, 'mail'));
    const render = async (request: object) => {
      const submitted = await call('POST', '/v1/renders', request);
      if (submitted.status !== 202) throw new Error(JSON.stringify(submitted.body));
      for (;;) {
        const job = (await call('GET', `/v1/renders/${submitted.body.id}`)).body;
        if (job.status === 'completed') return job.id as string;
        if (job.status === 'failed' || job.status === 'cancelled') throw new Error(JSON.stringify(job.error));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    // Two at once: each worker takes one (one at a time each) and opens its browser.
    await Promise.all([render(options.warmup), render(options.warmup)]);

    const pids = await Promise.all(names.map(async (name) => Number((await engine.podman(['inspect', '--format', '{{.State.Pid}}', name])).stdout.trim())));
    const cpuNow = () => pids.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0);
    const cpuBefore = cpuNow();
    const started = performance.now();
    const jobId = await render(options.request);
    const wall = (performance.now() - started) / 1000;
    const cpu = cpuNow() - cpuBefore;
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const diagnostics = (await db.query('SELECT diagnostics FROM jobs WHERE id = $1', [jobId])).rows[0].diagnostics;
    const perWorker = await db.query<{ chunks: number }>('SELECT count(*)::int AS chunks FROM render_chunks WHERE job_id = $1 GROUP BY worker_id ORDER BY 1 DESC', [jobId]);
    await db.end();
    return { wall, cpu, limit, diagnostics, chunksPerWorker: perWorker.rows.map((row) => row.chunks) };
  } finally {
    await stopContainers(engine, names);
    engine.dispose();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

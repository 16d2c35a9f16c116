import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import request from 'supertest';
import { PROJECT_ROOT } from '../src/config/paths';
import { containerEngine, IMAGE, IMAGE_UID, startServiceContainer, stopContainers, waitReady } from './helpers/containers';
import { probe, waitFor } from './helpers/media';
import { freePort } from './helpers/service-process';
import { bearer, createDatabase, dropDatabase, signupVerified, TestApp } from './helpers/test-app';

const run = promisify(execFile);
const CHUNK_FRAMES = 30;

/** Every frame of a video as rgb24. */
async function decodeFrames(file: string, width: number, height: number): Promise<Buffer[]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  const data = stdout as unknown as Buffer;
  const size = width * height * 3;
  return Array.from({ length: data.length / size }, (_, i) => data.subarray(i * size, (i + 1) * size));
}

function pixel(frame: Buffer, width: number, x: number, y: number): [number, number, number] {
  const at = (y * width + x) * 3;
  return [frame[at], frame[at + 1], frame[at + 2]];
}

function near(actual: [number, number, number], expected: [number, number, number], tolerance = 24): boolean {
  return actual.every((value, i) => Math.abs(value - expected[i]) <= tolerance);
}

/**
 * The image as an operator runs it: built by scripts/build-image.sh (cached layers after the first
 * build), one `api` and two `worker` containers from it on the host network, PostgreSQL the test
 * server's (a database of its own, empty: the containers migrate it), and one data volume shared
 * by the three (local storage and the file mailer live there, as on one disk or a network volume).
 */
describe('the container image (api + two workers)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-image-data-'));
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-image-out-'));
  const prefix = `vrs-e2e-${process.pid}`;
  const names = { api: `${prefix}-api`, workerA: `${prefix}-worker-a`, workerB: `${prefix}-worker-b` };
  const containers = containerEngine(prefix);
  const engine = containers.podman;
  let databaseUrl: string;
  let api: TestApp;
  let apiPort: number;

  beforeAll(async () => {
    // The first build takes minutes (npm install, the build); later ones reuse every layer.
    const built = await run('bash', [path.join(PROJECT_ROOT, 'scripts', 'build-image.sh'), IMAGE], {
      env: { ...process.env, CONTAINERS_CONF: containers.conf },
      timeout: 30 * 60_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(built.stdout).toMatch(/Built video-render-service:local with podman: \d+ MB/);

    databaseUrl = await createDatabase({ empty: true });
    chownSync(dataDir, IMAGE_UID, IMAGE_UID);
    apiPort = await freePort();
    const common = {
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      STORAGE_SIGNING_SECRET: 'a-signing-secret-shared-by-the-three-containers',
      RENDER_CHUNK_FRAMES: String(CHUNK_FRAMES),
      RENDER_CONCURRENCY: '1',
      // A stopped worker's chunk is taken over once its heartbeat is this old (the least allowed).
      JOB_HEARTBEAT_SECONDS: '10',
      JOB_SUPERVISE_SECONDS: '1',
      LOG_FORMAT: 'text',
      LOG_LEVEL: 'warn',
    };
    const start = (name: string, role: 'api' | 'worker', port: number) => startServiceContainer(containers, { name, role, port, dataDir, env: common });
    const workerPorts = [await freePort(), await freePort()];
    // All three at once on the empty database: one migrates, the others wait for it.
    await Promise.all([start(names.api, 'api', apiPort), start(names.workerA, 'worker', workerPorts[0]), start(names.workerB, 'worker', workerPorts[1])]);
    for (const port of [apiPort, ...workerPorts]) await waitReady(port);
    api = { url: `http://127.0.0.1:${apiPort}`, http: request(`http://127.0.0.1:${apiPort}`), dataDir } as TestApp;
  }, 35 * 60_000);

  afterAll(async () => {
    // SIGTERM, then SIGKILL after 10 s, as a container platform stops them.
    await stopContainers(containers, Object.values(names));
    if (databaseUrl) await dropDatabase(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(outputs, { recursive: true, force: true });
    containers.dispose();
  }, 60_000);

  it('runs as a non-root user with the Debian packages the service needs', async () => {
    const { stdout } = await engine(['exec', names.workerA, 'sh', '-c', 'id -u; for t in ffmpeg ffprobe pocketsphinx_continuous; do command -v $t; done; ls /usr/lib/chromium/chromium-headless-shell; node -v']);
    const [uid, ...rest] = stdout.trim().split('\n');
    expect(Number(uid)).toBe(IMAGE_UID);
    expect(rest).toEqual(['/usr/bin/ffmpeg', '/usr/bin/ffprobe', '/usr/bin/pocketsphinx_continuous', '/usr/lib/chromium/chromium-headless-shell', expect.stringMatching(/^v24\./)]);
  });

  /** A box gliding across the frame: every frame is drawn by the browser, so the render splits. */
  const gliding = (seconds: number) => ({
    width: 320,
    height: 180,
    duration: seconds,
    frame_rate: 30,
    background_color: '#102030',
    custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0, x: 0 }, { offset: 1, x: 270 }] }] },
    elements: [{ type: 'shape', fill_color: '#ffcc00', x: 0, y: 60, width: 40, height: 40, motion: [{ custom: 'glide', time: 0, duration: seconds, easing: 'linear' }] }],
  });
  const finished = (key: string, id: string) =>
    waitFor(
      async () => (await api.http.get(`/v1/renders/${id}`).set(bearer(key)).expect(200)).body,
      (current) => ['completed', 'failed', 'cancelled'].includes(current.status),
      180_000,
      500,
    );
  const chunkRows = async (jobId: string) => {
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      return (
        await db.query<{ index: number; state: string; attempts: number; started_at: Date; finished_at: Date; worker_id: string | null }>(
          'SELECT index, state, attempts, started_at, finished_at, worker_id FROM render_chunks WHERE job_id = $1 ORDER BY index',
          [jobId],
        )
      ).rows;
    } finally {
      await db.end();
    }
  };
  let key: string;
  let workspaceId: string;

  it('signs up, renders a chunked mp4 across both workers, and serves it with the frames drawn', async () => {
    ({ key, workspaceId } = await signupVerified(api));
    const seconds = 3;
    const submitted = await api.http.post('/v1/renders').set(bearer(key)).send(gliding(seconds)).expect(202);
    const job = await finished(key, submitted.body.id);
    expect({ status: job.status, error: job.error }).toEqual({ status: 'completed', error: null });

    const link = await api.http.get(`/v1/renders/${job.id}/download`).set(bearer(key)).expect(200);
    const response = await fetch(link.body.url);
    expect(response.status).toBe(200);
    const file = path.join(outputs, 'render.mp4');
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    const facts = await probe(file);
    const video = facts.streams.find((s) => s.codec_type === 'video')!;
    expect({ width: video.width, height: video.height, codec: video.codec_name }).toEqual({ width: 320, height: 180, codec: 'h264' });
    const frames = await decodeFrames(file, 320, 180);
    expect(frames).toHaveLength(seconds * 30);
    // The box (centred on x, y = 60) starts at the left edge and ends centred on x = 270; the
    // background stays where it is not.
    const [yellow, background]: [number, number, number][] = [[0xff, 0xcc, 0x00], [0x10, 0x20, 0x30]];
    const last = frames[frames.length - 1];
    expect([pixel(frames[0], 320, 10, 60), pixel(frames[0], 320, 270, 60)].map((p, i) => near(p, [yellow, background][i]))).toEqual([true, true]);
    expect([pixel(last, 320, 270, 60), pixel(last, 320, 10, 60)].map((p, i) => near(p, [yellow, background][i]))).toEqual([true, true]);
    // Frames on either side of each chunk boundary: the box keeps moving right, never jumps back.
    const boxLeft = (frame: Buffer) => [...Array(320).keys()].find((x) => near(pixel(frame, 320, x, 60), yellow))!;
    for (const boundary of [CHUNK_FRAMES, 2 * CHUNK_FRAMES]) {
      expect(boxLeft(frames[boundary])).toBeGreaterThan(boxLeft(frames[boundary - 1]));
    }

    // Three chunks, all done. Each worker takes one chunk at a time (RENDER_CONCURRENCY=1), so
    // chunks that ran at overlapping times ran in different containers.
    const rows = await chunkRows(job.id);
    expect(rows.map((row) => [row.index, row.state])).toEqual([
      [0, 'done'],
      [1, 'done'],
      [2, 'done'],
    ]);
    const overlapping = rows.some((a) => rows.some((b) => a !== b && a.started_at < b.finished_at && b.started_at < a.finished_at));
    expect(overlapping).toBe(true);
    // Each chunk records the worker that drew it: both containers took chunks.
    expect(new Set(rows.map((row) => row.worker_id)).size).toBe(2);
    expect(rows.every((row) => typeof row.worker_id === 'string')).toBe(true);
  });

  it('completes a render once when a worker is stopped mid-chunk (SIGTERM, SIGKILL a second later)', async () => {
    const seconds = 8;
    const submitted = await api.http.post('/v1/renders').set(bearer(key)).send(gliding(seconds)).expect(202);
    // Both workers are drawing a chunk: one of them is worker B's.
    await waitFor(() => chunkRows(submitted.body.id), (rows) => rows.filter((row) => row.state === 'processing').length === 2, 120_000, 100);
    await engine(['stop', '-t', '1', names.workerB]);

    const job = await finished(key, submitted.body.id);
    expect({ status: job.status, error: job.error }).toEqual({ status: 'completed', error: null });
    const rows = await chunkRows(job.id);
    expect(rows.map((row) => row.state)).toEqual(Array(8).fill('done'));
    // The chunk worker B held was drawn again by worker A.
    expect(rows.some((row) => row.attempts > 1)).toBe(true);
    // One output file, with every frame.
    expect(readdirSync(path.join(dataDir, 'storage', workspaceId, 'renders')).filter((name) => name.startsWith(job.id))).toEqual([`${job.id}.mp4`]);
    const link = await api.http.get(`/v1/renders/${job.id}/download`).set(bearer(key)).expect(200);
    const file = path.join(outputs, 'after-stop.mp4');
    writeFileSync(file, Buffer.from(await (await fetch(link.body.url)).arrayBuffer()));
    expect(await decodeFrames(file, 320, 180)).toHaveLength(seconds * 30);
  });
});

import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { PROJECT_ROOT } from '../src/config/paths';
import { probe, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

/**
 * A worker process killed in the middle of a chunk of a split render loses nothing: another worker
 * takes over the parent (its done chunks are kept) and the chunk the dead worker was drawing (once
 * its heartbeat is stale), and the joined render has every frame. The doomed worker is the built
 * service (`node dist/src/main.js worker`), killed with SIGKILL.
 */
describe('a worker killed mid-chunk', () => {
  let api: TestApp;
  let rescuer: TestApp | null = null;
  let doomed: ChildProcess | null = null;
  const env = {
    JOB_HEARTBEAT_SECONDS: '10',
    JOB_SUPERVISE_SECONDS: '1',
    ALLOW_PRIVATE_NETWORK: 'true',
    RENDER_CHUNK_FRAMES: '10',
  };

  beforeAll(async () => {
    api = await startTestApp({ role: 'api', env });
  });
  afterAll(async () => {
    doomed?.kill('SIGKILL');
    await rescuer?.close();
    await api.close();
  });

  it('hands the parent and the unfinished chunk to another worker, and the join has every frame', async () => {
    const { key } = await signupVerified(api);
    const db = api.running.app.get(DataSource);
    const downloads = mkdtempSync(path.join(tmpdir(), 'vrs-doomed-chunks-'));
    // The three processes share one storage folder, as Cloud Run instances share a bucket: a chunk
    // file one worker stored is there for the worker that joins.
    doomed = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'src', 'main.js'), 'worker'], {
      env: { ...process.env, ...env, DATABASE_URL: api.databaseUrl, DATA_DIR: api.dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    try {
      // A box moving on every frame: every frame goes through the browser, 30 frames in 3 chunks.
      const res = await api.http
        .post('/v1/renders')
        .set(bearer(key))
        .send({
          width: 160,
          height: 90,
          duration: 3,
          frame_rate: 10,
          background_color: '#102030',
          custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0, x: 0 }, { offset: 1, x: 130 }] }] },
          elements: [{ type: 'shape', fill_color: '#ffcc00', x: 0, y: 30, width: 30, height: 30, motion: [{ custom: 'glide', time: 0, duration: 3, easing: 'linear' }] }],
        });
      expect(res.status).toBe(202);
      const id = res.body.id as string;
      const chunkStates = async () =>
        (await db.query(`SELECT index, state, attempts FROM render_chunks WHERE job_id = $1 ORDER BY index`, [id])) as { index: number; state: string; attempts: number }[];
      // Killed while drawing a chunk, after at least one is done.
      const atKill = await waitFor(
        chunkStates,
        (rows) => rows.some((row) => row.state === 'done') && rows.some((row) => row.state === 'processing'),
        180_000,
        50,
      );
      doomed.kill('SIGKILL');
      await new Promise((resolve) => doomed!.once('exit', resolve));
      doomed = null;
      const killedMidChunk = atKill.find((row) => row.state === 'processing')!.index;
      const doneBefore = atKill.filter((row) => row.state === 'done').map((row) => row.index);

      rescuer = await startTestApp({ role: 'worker', env, databaseUrl: api.databaseUrl, dataDir: api.dataDir });
      const job = await waitFor(
        async () => (await api.http.get(`/v1/renders/${id}`).set(bearer(key))).body,
        (body) => ['completed', 'failed', 'cancelled'].includes(body.status),
        240_000,
        250,
      );
      expect({ status: job.status, error: job.error }).toEqual({ status: 'completed', error: null });
      expect((await db.query(`SELECT attempts FROM jobs WHERE id = $1`, [id]))[0].attempts).toBe(2);
      const rows = await chunkStates();
      expect(rows.map((row) => row.state)).toEqual(['done', 'done', 'done']);
      // The chunk being drawn when the worker died was drawn again; the ones done before were not.
      expect(rows[killedMidChunk].attempts).toBe(2);
      for (const index of doneBefore) expect(rows[index].attempts).toBe(1);

      const link = await api.http.get(`/v1/renders/${id}/download`).set(bearer(key)).expect(200);
      const file = path.join(downloads, 'joined.mp4');
      writeFileSync(file, Buffer.from(await (await fetch(link.body.url)).arrayBuffer()));
      const video = (await probe(file)).streams.find((stream) => stream.codec_type === 'video')!;
      expect(video.nb_read_frames).toBe('30');
      expect({ width: video.width, height: video.height }).toEqual({ width: 160, height: 90 });
    } finally {
      rmSync(downloads, { recursive: true, force: true });
    }
    // Two workers boot and a chunk waits for its heartbeat to go stale: minutes on a busy machine.
  }, 420_000);
});

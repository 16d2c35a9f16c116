import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { WorkerPresenceService } from '../src/renders/chunks/worker-presence.service';
import { probe } from './helpers/media';
import { renderThroughApi } from './helpers/render-through-api';
import { signupVerified, startTestApp, TestApp } from './helpers/test-app';

const run = promisify(execFile);

/** The checksum of every decoded video frame, in order (ffmpeg's framemd5). */
async function frameChecksums(file: string): Promise<string[]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:v', '-f', 'framemd5', '-']);
  return stdout.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => line.split(',').at(-1)!.trim());
}

/**
 * Scale-out by default (RENDER_CHUNK_FRAMES unset): an API process and two worker processes on one
 * database and one storage folder. Each worker beats into `workers`, so the planner sees two and
 * splits a render longer than one cell of the chunk grid; both workers take chunks (each chunk
 * names its worker), and the joined file has the same decoded frames as the request drawn whole.
 */
describe('two worker processes share a split render', () => {
  let api: TestApp;
  const workers: TestApp[] = [];
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-scale-out-'));
  const env = { ALLOW_PRIVATE_NETWORK: 'true', JOB_HEARTBEAT_SECONDS: '10', JOB_SUPERVISE_SECONDS: '1' };

  beforeAll(async () => {
    api = await startTestApp({ role: 'api', env });
    for (let i = 0; i < 2; i++) workers.push(await startTestApp({ role: 'worker', env, databaseUrl: api.databaseUrl, dataDir: api.dataDir }));
  }, 240_000);

  afterAll(async () => {
    for (const worker of workers) await worker.close();
    await api?.close();
    rmSync(outputs, { recursive: true, force: true });
  });

  it('with two live workers splits a long render over both; with one, draws it whole with the same frames', async () => {
    const db = api.running.app.get(DataSource);
    const ids = workers.map((worker) => worker.running.app.get(WorkerPresenceService).id);
    expect(new Set(ids).size).toBe(2);
    const live = (await db.query(`SELECT id FROM workers ORDER BY id`)) as { id: string }[];
    expect(live.map((row) => row.id)).toEqual([...ids].sort()); // the API process takes no jobs: not a worker

    const { key } = await signupVerified(api);
    // A box moving on every frame (every frame goes through the browser), 60 s at 1 fps: the grid's
    // cells are 30 s at this size, so 60 frames in 2 full chunks (at 1 fps a shorter second chunk
    // would not repay its start, and the planner would draw the render whole).
    const body = {
      width: 160,
      height: 90,
      duration: 60,
      frame_rate: 1,
      background_color: '#102030',
      custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0, x: 0 }, { offset: 1, x: 120 }] }] },
      elements: [{ type: 'shape', fill_color: '#ffcc00', x: 0, y: 30, width: 40, height: 40, motion: [{ custom: 'glide', time: 0, duration: 60, easing: 'linear' }] }],
    };
    const chunked = await renderThroughApi(api, key, outputs, 'chunked', body, 300_000);
    const report = (await db.query(`SELECT diagnostics FROM jobs WHERE id = $1`, [chunked.job.id]))[0].diagnostics;
    expect(report).toMatchObject({ render_path: 'chunks', chunks: 2, frames_total: 60 });
    expect(report.plan).toMatchObject({ workers: 2, chunks: [[0, 29], [30, 59]] });
    const rows = (await db.query(`SELECT index, state, worker_id FROM render_chunks WHERE job_id = $1 ORDER BY index`, [chunked.job.id])) as { index: number; state: string; worker_id: string }[];
    expect(rows.map((row) => row.state)).toEqual(['done', 'done']);
    // Both workers drew chunks, and the diagnostics name who drew which.
    expect(new Set(rows.map((row) => row.worker_id))).toEqual(new Set(ids));
    expect(report.chunk_workers).toEqual(rows.map((row) => row.worker_id));

    // One worker stops (its row goes with it): the same request is drawn whole, on the same grid, with the same frames.
    await workers.pop()!.close();
    expect((await db.query(`SELECT id FROM workers`)).map((row: { id: string }) => row.id)).toEqual([ids[0]]);
    const whole = await renderThroughApi(api, key, outputs, 'whole', body, 300_000);
    const wholeReport = (await db.query(`SELECT diagnostics FROM jobs WHERE id = $1`, [whole.job.id]))[0].diagnostics;
    expect(wholeReport).toMatchObject({ render_path: 'browser', segments: 2 });
    expect(wholeReport.plan).toMatchObject({ workers: 1, chunks: null, segments: [[0, 29], [30, 59]] });
    const video = (await probe(chunked.file)).streams.find((stream) => stream.codec_type === 'video')!;
    expect({ frames: video.nb_read_frames, width: video.width, height: video.height }).toEqual({ frames: '60', width: 160, height: 90 });
    const frames = await frameChecksums(chunked.file);
    expect(new Set(frames).size).toBe(60); // the box moves two pixels a frame
    expect(await frameChecksums(whole.file)).toEqual(frames);
  }, 600_000);
});

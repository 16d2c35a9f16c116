import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../src/config/config.module';
import { QueueService } from '../src/infra/queue/queue.service';
import { RENDER_DEAD_LETTER_QUEUE } from '../src/renders/render-queue';
import type { AppConfig } from '../src/config/app-config';
import { audioSamples, probe, soundSpans, volumeDb, waitFor } from './helpers/media';
import { RenderResult, withRenderApp } from './helpers/render-app';

const run = promisify(execFile);
const CHUNK_FRAMES = 10;
/** Frames a second of every render here: 2 s make three chunks. */
const FPS = 15;

/** The checksum of every decoded video frame, in order (ffmpeg's framemd5). */
async function frameChecksums(file: string): Promise<string[]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:v', '-f', 'framemd5', '-']);
  return stdout.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => line.split(',').at(-1)!.trim());
}

/** Presentation times of every decoded video frame, in seconds. */
async function frameTimes(file: string): Promise<number[]> {
  // JSON: a keyframe's side data would add fields to a CSV line.
  const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=best_effort_timestamp_time', '-of', 'json', file]);
  return (JSON.parse(stdout) as { frames: { best_effort_timestamp_time: string }[] }).frames.map((frame) => Number(frame.best_effort_timestamp_time));
}

/**
 * A render longer than RENDER_CHUNK_FRAMES is split into chunks rendered as separate queue jobs,
 * joined without re-encoding, its sound mixed once. Checked against the same request rendered whole.
 */
describe('chunked renders (through the REST API)', () => {
  const house = withRenderApp({
    name: 'chunks',
    // BeginFrame capture (off by default) is drawn here, where chunked must equal whole frame for frame.
    env: { RENDER_CHUNK_FRAMES: String(CHUNK_FRAMES), RENDER_BEGIN_FRAME: 'true', JOB_HEARTBEAT_SECONDS: '10', JOB_SUPERVISE_SECONDS: '1' },
    database: true,
    fixtures: async (dir) => {
      await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=6', path.join(dir, 'tone.wav')]);
    },
  });

  /** A box gliding across the frame (it moves on every frame, so every frame goes through the browser) over a steady tone. */
  const movingWithTone = (seconds: number) => ({
    width: 320,
    height: 180,
    duration: seconds,
    frame_rate: FPS,
    background_color: '#102030',
    custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0, x: 0 }, { offset: 1, x: 270 }] }] },
    elements: [
      { type: 'shape', fill_color: '#ffcc00', x: 0, y: 60, width: 40, height: 40, motion: [{ custom: 'glide', time: 0, duration: seconds, easing: 'linear' }] },
      { type: 'audio', source_url: house.mediaUrl('tone.wav') },
    ],
  });

  const diagnostics = async (id: string) => (await house.db.query('SELECT diagnostics FROM jobs WHERE id = $1', [id])).rows[0].diagnostics;
  const chunkRows = async (id: string) =>
    (await house.db.query('SELECT index, first_frame, last_frame, state, attempts, output_key, error FROM render_chunks WHERE job_id = $1 ORDER BY index', [id])).rows;
  const chunkFolder = (id: string) => path.join(house.app.dataDir, 'storage', house.workspaceId, 'chunks', id);
  // The first chunked render of the file, rendered once: the retry test's output must match it frame
  // for frame (run after run, and through a retried chunk), without a render of its own for that.
  let firstChunked: Promise<RenderResult> | undefined;
  const chunkedOnce = () => (firstChunked ??= house.render('chunked', movingWithTone(2), 180_000));

  it('joins the chunks into the same decoded frames, timestamps and continuous sound as the whole render', async () => {
    const body = movingWithTone(2);
    const chunked = await chunkedOnce();
    const report = await diagnostics(chunked.job.id);
    expect(report).toMatchObject({ render_path: 'chunks', frames_total: 30, frames_drawn: 30, chunks: 3, sound_path: 'ffmpeg' });
    expect(report.chunk_seconds).toHaveLength(3);
    expect(report.chunk_seconds.every((seconds: number) => seconds > 0)).toBe(true);
    // One worker process here: it took every chunk, and the chunks say so.
    expect(new Set(report.chunk_workers).size).toBe(1);
    expect(report.chunk_workers[0]).toMatch(/-\d+-[0-9a-f]{6}$/);
    // RENDER_CHUNK_FRAMES splits whatever the workers: one is live here (this process).
    expect(report.plan).toMatchObject({ workers: 1, segments: report.plan.chunks, chunks: [[0, 9], [10, 19], [20, 29]] });
    const rows = await chunkRows(chunked.job.id);
    expect(rows.map((row) => [row.first_frame, row.last_frame, row.state, row.attempts, row.output_key])).toEqual([
      [0, 9, 'done', 1, null],
      [10, 19, 'done', 1, null],
      [20, 29, 'done', 1, null],
    ]);
    expect(existsSync(chunkFolder(chunked.job.id))).toBe(false); // chunk files deleted after the join

    // The same request drawn whole on the same grid (never split, as with one live worker), in this process for one render.
    const config = house.app.running.app.get<AppConfig>(APP_CONFIG);
    config.render.chunkSplit = 'never';
    let whole: RenderResult;
    try {
      whole = await house.render('whole', body, 180_000);
    } finally {
      config.render.chunkSplit = 'always';
    }
    const wholeReport = await diagnostics(whole.job.id);
    expect(wholeReport).toMatchObject({ render_path: 'browser', frames_total: 30, frames_drawn: 30, segments: 3, sound_path: 'ffmpeg' });
    expect(wholeReport.plan).toMatchObject({ segments: [[0, 9], [10, 19], [20, 29]], chunks: null });

    // Exact: frame count (decoded, not from the header) and every frame's timestamp.
    const [chunkedProbe, wholeProbe] = [await probe(chunked.file), await probe(whole.file)];
    const videoOf = (p: typeof chunkedProbe) => p.streams.find((stream) => stream.codec_type === 'video')!;
    expect({ frames: videoOf(chunkedProbe).nb_read_frames, rate: videoOf(chunkedProbe).r_frame_rate, pix: videoOf(chunkedProbe).pix_fmt }).toEqual({
      frames: videoOf(wholeProbe).nb_read_frames,
      rate: `${FPS}/1`,
      pix: videoOf(wholeProbe).pix_fmt,
    });
    expect(videoOf(chunkedProbe).nb_read_frames).toBe('30');
    const times = await frameTimes(chunked.file);
    expect(times.map((t) => Math.round(t * FPS))).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(times).toEqual(await frameTimes(whole.file));

    // Pixels: each segment of the grid is encoded by a fresh encoder whether a chunk or a segment of
    // the whole render, so every decoded frame is the same, bit for bit (and run after run: the
    // retry test's render has these frames too).
    const chunkedFrames = await frameChecksums(chunked.file);
    expect(chunkedFrames).toHaveLength(30);
    expect(new Set(chunkedFrames).size).toBe(30); // the box moves on every frame
    const wholeFrames = await frameChecksums(whole.file);
    expect(wholeFrames.map((sum, frame) => ({ frame, same: sum === chunkedFrames[frame] })).filter((row) => !row.same)).toEqual([]);

    // Sound: mixed once, so as long as the whole render's, one span without a gap, and as loud at
    // every chunk boundary as elsewhere.
    const audioOf = (p: typeof chunkedProbe) => p.streams.find((stream) => stream.codec_type === 'audio')!;
    expect(audioOf(chunkedProbe).codec_name).toBe('aac');
    expect(Number(audioOf(chunkedProbe).duration)).toBeCloseTo(Number(audioOf(wholeProbe).duration), 2);
    const spans = soundSpans(await audioSamples(chunked.file), 48000);
    expect(spans).toHaveLength(1);
    expect(spans[0].start).toBeLessThan(0.02);
    expect(spans[0].end).toBeGreaterThan(1.98);
    const overall = (await volumeDb(chunked.file, 0.1, 1.9)).mean;
    for (const frame of [10, 20]) {
      const at = frame / FPS;
      const level = (await volumeDb(chunked.file, at - 0.05, at + 0.05)).mean;
      expect({ frame, within1Db: Math.abs(level - overall) <= 1 }).toEqual({ frame, within1Db: true });
    }
    expect(Math.abs(overall - (await volumeDb(whole.file, 0.1, 1.9)).mean)).toBeLessThanOrEqual(0.5);
  }, 400_000);

  it('retries a failing chunk alone, and re-runs a chunk a dead worker left processing: the same frames as a render run before', async () => {
    const submitted = await house.api().post('/v1/renders').send(movingWithTone(2));
    expect(submitted.status).toBe(202);
    const id = submitted.body.id as string;
    // Chunk 1's file cannot be stored while a folder stands where it goes: its first attempt fails.
    const blocker = path.join(chunkFolder(id), '1.mp4');
    mkdirSync(blocker, { recursive: true });
    writeFileSync(path.join(blocker, 'in-the-way'), '');
    // Chunk 2 looks claimed by a worker that died a minute ago (never beat since).
    await waitFor(async () => (await chunkRows(id)).length, (count) => count === 3, 60_000, 50);
    const stale = await house.db.query(
      `UPDATE render_chunks SET state = 'processing', attempts = 1, started_at = now() - interval '1 minute', heartbeat_at = now() - interval '1 minute'
       WHERE job_id = $1 AND index = 2 AND state = 'pending'`,
      [id],
    );
    expect(stale.rowCount).toBe(1);
    await waitFor(async () => (await chunkRows(id))[1], (row) => row.error !== null, 120_000, 100);
    rmSync(blocker, { recursive: true, force: true });
    const job = await waitFor(
      async () => (await house.api().get(`/v1/renders/${id}`).expect(200)).body,
      (current) => ['completed', 'failed', 'cancelled'].includes(current.status),
      180_000,
      200,
    );
    expect({ status: job.status, error: job.error }).toEqual({ status: 'completed', error: null });
    const rows = await chunkRows(id);
    expect(rows.map((row) => [row.index, row.state, row.attempts])).toEqual([
      [0, 'done', 1],
      [1, 'done', 2],
      [2, 'done', 2],
    ]);
    expect(await diagnostics(id)).toMatchObject({ render_path: 'chunks', chunks: 3 });
    const link = await house.api().get(`/v1/renders/${id}/download`).expect(200);
    const file = path.join(house.outputs, 'retried.mp4');
    writeFileSync(file, Buffer.from(await (await fetch(link.body.url)).arrayBuffer()));
    expect((await probe(file)).streams.find((stream) => stream.codec_type === 'video')!.nb_read_frames).toBe('30');
    // The chunks drawn again give the same frames as a render whose chunks each took one attempt.
    expect(await frameChecksums(file)).toEqual(await frameChecksums((await chunkedOnce()).file));
  }, 300_000);

  it('a retried parent joins the chunks already done without drawing them again', async () => {
    const submitted = await house.api().post('/v1/renders').send(movingWithTone(2));
    expect(submitted.status).toBe(202);
    const id = submitted.body.id as string;
    // The joined render cannot be stored while a folder stands where it goes: the parent's first
    // attempt fails after every chunk is done, and the queue retries it.
    const blocker = path.join(house.app.dataDir, 'storage', house.workspaceId, 'renders', `${id}.mp4`);
    mkdirSync(blocker, { recursive: true });
    writeFileSync(path.join(blocker, 'in-the-way'), '');
    await waitFor(
      async () => (await house.db.query(`SELECT retry_count FROM pgboss.job WHERE id = (SELECT queue_entry_id FROM jobs WHERE id = $1)`, [id])).rows[0]?.retry_count ?? 0,
      (retries) => retries >= 1,
      120_000,
      100,
    );
    rmSync(blocker, { recursive: true, force: true });
    const job = await waitFor(
      async () => (await house.api().get(`/v1/renders/${id}`).expect(200)).body,
      (current) => ['completed', 'failed', 'cancelled'].includes(current.status),
      120_000,
      200,
    );
    expect({ status: job.status, error: job.error }).toEqual({ status: 'completed', error: null });
    expect((await house.db.query('SELECT attempts FROM jobs WHERE id = $1', [id])).rows[0].attempts).toBe(2);
    expect((await chunkRows(id)).map((row) => [row.state, row.attempts])).toEqual(Array.from({ length: 3 }, () => ['done', 1]));
    expect(existsSync(chunkFolder(id))).toBe(false);
  }, 300_000);

  it('a parent whose every attempt died leaves no chunk files', async () => {
    const submitted = await house.api().post('/v1/renders').send(movingWithTone(2));
    expect(submitted.status).toBe(202);
    const id = submitted.body.id as string;
    // The first attempt fails after every chunk is done (its output cannot be stored), keeping the
    // chunk files for the next attempt; then pg-boss dead-letters the job as it does when each
    // attempt's worker was killed (no error handler ran).
    const blocker = path.join(house.app.dataDir, 'storage', house.workspaceId, 'renders', `${id}.mp4`);
    mkdirSync(blocker, { recursive: true });
    writeFileSync(path.join(blocker, 'in-the-way'), '');
    try {
      await waitFor(
        async () => (await house.db.query(`SELECT retry_count FROM pgboss.job WHERE id = (SELECT queue_entry_id FROM jobs WHERE id = $1)`, [id])).rows[0]?.retry_count ?? 0,
        (retries) => retries >= 1,
        120_000,
        100,
      );
      expect((await chunkRows(id)).map((row) => row.state)).toEqual(Array.from({ length: 3 }, () => 'done'));
      expect(existsSync(chunkFolder(id))).toBe(true);
      const queue = house.app.running.app.get(QueueService);
      await house.app.running.app.get(DataSource).transaction((tx) => queue.sendInTransaction(tx, RENDER_DEAD_LETTER_QUEUE, { job_id: id }));
      const job = await waitFor(
        async () => (await house.api().get(`/v1/renders/${id}`).expect(200)).body,
        (current) => ['completed', 'failed', 'cancelled'].includes(current.status),
        60_000,
        200,
      );
      expect({ status: job.status, code: job.error?.code }).toEqual({ status: 'failed', code: 'internal' });
      // The files go first, then the rows forget them (abandon): wait for both.
      const gone = await waitFor(
        async () => ({ folder: existsSync(chunkFolder(id)), keys: (await chunkRows(id)).filter((row) => row.output_key !== null).length }),
        (state) => !state.folder && state.keys === 0,
        30_000,
        100,
      );
      expect(gone).toEqual({ folder: false, keys: 0 });
    } finally {
      rmSync(blocker, { recursive: true, force: true });
    }
  }, 300_000);

  it('cancels a chunked render: progress counts the chunks done, pending chunks stop, chunk files go', async () => {
    const submitted = await house.api().post('/v1/renders').send(movingWithTone(4));
    expect(submitted.status).toBe(202);
    const id = submitted.body.id as string;
    // 60 frames in 6 chunks: progress moves as chunks finish, and never ahead of the frames done
    // (the render stage spans 10 % → 95 %, the chunks 90 % of it).
    const running = await waitFor(
      async () => (await house.api().get(`/v1/renders/${id}`).expect(200)).body,
      (job) => ['completed', 'failed', 'cancelled'].includes(job.status) || (job.status === 'processing' && job.progress_percent > 10),
      180_000,
      100,
    );
    expect(running.status).toBe('processing');
    const rowsSeen = await chunkRows(id);
    expect(rowsSeen).toHaveLength(6);
    const framesDone = rowsSeen.filter((row) => row.state === 'done').reduce((sum, row) => sum + row.last_frame - row.first_frame + 1, 0);
    expect(framesDone).toBeGreaterThan(0);
    expect(running.progress_percent).toBeLessThanOrEqual(Math.round(10 + 85 * 0.9 * (framesDone / 60)));
    await waitFor(async () => (await chunkRows(id)).filter((row) => row.state === 'done').length, (done) => done >= 2, 120_000, 100);
    const cancelled = await house.api().post(`/v1/renders/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    const doneAtCancel = (await chunkRows(id)).filter((row) => row.state === 'done').length;
    const settled = await waitFor(
      async () => chunkRows(id),
      (rows) => rows.every((row) => row.state === 'done' || row.state === 'cancelled') && !existsSync(chunkFolder(id)),
      30_000,
      200,
    );
    const states = settled.map((row) => row.state);
    expect(states.filter((state) => state === 'cancelled').length).toBeGreaterThan(0);
    expect(states.filter((state) => state === 'done').length).toBeLessThanOrEqual(doneAtCancel + 1); // at most the one running finished
    expect(settled.every((row) => row.output_key === null || row.state === 'done')).toBe(true);
    // No chunk is taken after the cancel.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await chunkRows(id)).map((row) => row.state)).toEqual(states);
    expect((await house.api().get(`/v1/renders/${id}`).expect(200)).body.status).toBe('cancelled');
  }, 300_000);
});

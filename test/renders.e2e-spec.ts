import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { framesOf, makeImage, makeVideo, meanVolumeDb, near, pixelAt, probe, waitFor } from './helpers/media';
import { withRenderApp } from './helpers/render-app';
import { signupVerified } from './helpers/test-app';

const BLUE = [0, 0, 255];
const RED = [255, 0, 0];
const GREEN = [0, 128, 0];

/**
 * Renders end to end against real PostgreSQL, Chromium and ffmpeg. Outputs are tiny (≤ 320x180,
 * ≤ 2 s) so the suite stays fast; each one is decoded and checked pixel by pixel.
 */
describe('renders', () => {
  const house = withRenderApp({
    name: 'renders',
    fixtures: async (dir) => {
      await makeVideo(path.join(dir, 'clip.mp4'), { width: 320, height: 180, seconds: 3, fps: 25 });
      await makeImage(path.join(dir, 'green.png'), 'green', 64, 64);
      writeFileSync(path.join(dir, 'garbage.mp4'), 'this is not a video');
    },
  });

  async function submit(body: object, headers: Record<string, string> = {}) {
    return house.api().post('/v1/renders').set(headers).send(body);
  }

  /** Polls until the job ends; returns the job and every (status, stage, percent) seen. */
  async function finish(id: string) {
    const seen: { status: string; stage: string | null; percent: number }[] = [];
    const job = await waitFor(
      async () => {
        const res = await house.api().get(`/v1/renders/${id}`).expect(200);
        seen.push({ status: res.body.status, stage: res.body.progress_stage, percent: res.body.progress_percent });
        return res.body;
      },
      (body) => ['completed', 'failed', 'cancelled'].includes(body.status),
      180_000,
      100,
    );
    return { job, seen };
  }

  async function download(id: string, name: string): Promise<string> {
    const res = await house.api().get(`/v1/renders/${id}/download`).expect(200);
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    const file = await fetch(res.body.url);
    expect(file.status).toBe(200);
    const target = path.join(house.outputs, name);
    writeFileSync(target, Buffer.from(await file.arrayBuffer()));
    return target;
  }

  const redBox = { type: 'shape', shape: 'rectangle', x: '25%', y: '50%', width: '20%', height: '20%', x_anchor: '50%', y_anchor: '50%', fill_color: '#ff0000', time: 0.5 };

  it('renders an mp4 (H.264 + AAC, tv range) with shapes, text, an image and a video clip, pixel-exact in place and time', async () => {
    const res = await submit({
      width: 320,
      height: 180,
      duration: 2,
      frame_rate: 24,
      background_color: '#0000ff',
      metadata: { order: 42 },
      elements: [
        { type: 'video', source_url: `${house.media.url}/clip.mp4`, x: '85%', y: '80%', width: '25%', height: '25%', volume: 1, out_point: 2 },
        redBox,
        { type: 'image', source_url: `${house.media.url}/green.png`, x: '75%', y: '25%', width: 40, height: 40, fit: 'cover' },
        { type: 'text', text: 'Hello', x: '50%', y: '85%', width: '40%', height: '20%', font_size: 20, fill_color: '#ffffff' },
      ],
    });
    expect(res.status).toBe(202);
    // External files are copied into storage first (ingest_external defaults to true).
    expect(res.body).toMatchObject({ kind: 'render', status: 'ingesting', progress_percent: 0, metadata: { order: 42 }, ok: true, violations: [] });
    expect(res.body.id).toMatch(/^render_/);

    const { job, seen } = await finish(res.body.id);
    expect(job.error).toBeNull();
    expect(job.status).toBe('completed');
    expect(job.output).toMatchObject({ width: 320, height: 180, duration: 2 });
    expect(job.output.size_bytes).toBeGreaterThan(1000);
    expect(job.completed_at).not.toBeNull();
    const stages = seen.map((s) => s.stage).filter(Boolean);
    expect(stages.length).toBeGreaterThan(0);
    const percents = seen.map((s) => s.percent);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents); // never goes back

    const file = await download(job.id, 'mp4.mp4');
    const info = await probe(file);
    const video = info.streams.find((s) => s.codec_type === 'video')!;
    const audio = info.streams.find((s) => s.codec_type === 'audio');
    expect(video).toMatchObject({ codec_name: 'h264', width: 320, height: 180, pix_fmt: 'yuv420p', color_range: 'tv', r_frame_rate: '24/1' });
    expect(Number(video.nb_read_frames)).toBe(48);
    expect(Number(info.format.duration)).toBeCloseTo(2, 1);
    expect(audio?.codec_name).toBe('aac');
    expect(await meanVolumeDb(file)).toBeGreaterThan(-40); // the clip's tone is mixed in

    expect(near(await pixelAt(file, 1, 80, 90), RED)).toBe(true); // the box, at x=25% y=50%, at t=1 s
    expect(near(await pixelAt(file, 0.2, 80, 90), BLUE)).toBe(true); // not yet there at t=0.2 s
    expect(near(await pixelAt(file, 1, 160, 20), BLUE)).toBe(true); // background elsewhere
    expect(near(await pixelAt(file, 1, 240, 45), GREEN)).toBe(true); // the image at x=75% y=25%
  });

  it('renders stills: png and jpg take one frame', async () => {
    // Both submitted at once: the second waits in the queue, not on the first one's decoding here.
    const submitted = [];
    for (const format of ['png', 'jpg'] as const) submitted.push({ format, res: await submit({ width: 160, height: 90, output_format: format, background_color: '#0000ff', elements: [{ ...redBox, time: 0 }] }) });
    for (const { format, res } of submitted) {
      expect(res.status).toBe(202);
      const { job } = await finish(res.body.id);
      expect(job.status).toBe('completed');
      const file = await download(job.id, `still.${format}`);
      const info = await probe(file);
      expect(info.streams[0]).toMatchObject({ codec_name: format === 'png' ? 'png' : 'mjpeg', width: 160, height: 90 });
      expect(near(await pixelAt(file, 0, 40, 45), RED)).toBe(true);
      expect(near(await pixelAt(file, 0, 120, 20), BLUE)).toBe(true);
    }
  });

  it('renders webm with a real alpha channel, ProRes 4444 mov with alpha, and gif', async () => {
    const body = { width: 64, height: 36, duration: 0.5, frame_rate: 10, background_color: '#00000000', elements: [{ ...redBox, time: 0 }] };
    const webm = await submit({ ...body, output_format: 'webm', alpha: true });
    const mov = await submit({ ...body, output_format: 'mov', alpha: true });
    const gif = await submit({ ...body, output_format: 'gif', background_color: '#0000ff' });
    for (const res of [webm, mov, gif]) expect(res.status).toBe(202);

    const webmFile = await download((await finish(webm.body.id)).job.id, 'alpha.webm');
    const webmVideo = (await probe(webmFile)).streams.find((s) => s.codec_type === 'video')!;
    expect(webmVideo.codec_name).toBe('vp9');
    expect(webmVideo.tags?.alpha_mode ?? webmVideo.tags?.ALPHA_MODE).toBe('1');
    expect((await pixelAt(webmFile, 0.2, 50, 5, { vp9Alpha: true }))[3]).toBeLessThan(30); // transparent
    const inside = await pixelAt(webmFile, 0.2, 16, 18, { vp9Alpha: true });
    expect(inside[3]).toBeGreaterThan(220);
    expect(near(inside, RED)).toBe(true);

    const movFile = await download((await finish(mov.body.id)).job.id, 'alpha.mov');
    const movVideo = (await probe(movFile)).streams.find((s) => s.codec_type === 'video')!;
    expect(movVideo.codec_name).toBe('prores');
    expect(movVideo.pix_fmt).toMatch(/^yuva444p/);
    expect((await pixelAt(movFile, 0.2, 50, 5))[3]).toBeLessThan(30); // transparent
    const movInside = await pixelAt(movFile, 0.2, 16, 18);
    expect(movInside[3]).toBeGreaterThan(220);
    expect(near(movInside, RED)).toBe(true);

    const gifFile = await download((await finish(gif.body.id)).job.id, 'anim.gif');
    const gifVideo = (await probe(gifFile)).streams[0];
    expect(gifVideo).toMatchObject({ codec_name: 'gif', width: 64, height: 36 });
    expect(near(await pixelAt(gifFile, 0.2, 16, 18), RED, 60)).toBe(true);
    // Every frame asked for (0.5 s at 10 fps), each with the box red on the blue background.
    expect(gifVideo.nb_read_frames).toBe('5');
    const gifFrames = await framesOf(gifFile);
    expect(gifFrames.length).toBeGreaterThanOrEqual(5);
    for (const frame of gifFrames) {
      expect(near(frame.at(16, 18), RED, 60)).toBe(true);
      expect(near(frame.at(50, 5), BLUE, 60)).toBe(true);
    }
  });

  it('takes the canvas size from the first visual element when width/height are omitted', async () => {
    const res = await submit({ duration: 0.5, frame_rate: 10, elements: [{ type: 'video', source_url: `${house.media.url}/clip.mp4`, out_point: 0.5 }] });
    const { job } = await finish(res.body.id);
    expect(job.output).toMatchObject({ width: 320, height: 180 });
  });

  it('refuses unreachable and missing sources at submit, and fails the job on an undecodable one', async () => {
    const refused = [
      [`${house.media.url}/missing.mp4`, 'source_not_found'],
      ['http://127.0.0.1:1/unreachable.mp4', 'invalid_source'],
    ] as const;
    for (const [url, code] of refused) {
      const res = await submit({ width: 64, height: 36, duration: 0.5, elements: [{ type: 'video', source_url: url, out_point: 0.5 }] });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code, details: { pointer: '/elements/0/source_url' } });
      expect(res.body.error.message.length).toBeGreaterThan(10);
    }
    // Found only by the probe, with the job under way (with and without ingest).
    for (const ingest_external of [true, false]) {
      const res = await submit({
        width: 64, height: 36, duration: 0.5, ingest_external,
        elements: [{ type: 'video', source_url: `${house.media.url}/garbage.mp4`, out_point: 0.5 }],
      });
      expect(res.status).toBe(202);
      const { job } = await finish(res.body.id);
      expect(job.status).toBe('failed');
      expect(job.error.code).toBe('codec_unsupported');
      expect(job.error.message.length).toBeGreaterThan(10);
    }
  });

  it('rejects invalid requests with 422 and suggestions', async () => {
    const typo = await submit({ elements: [{ type: 'video', source_url: `${house.media.url}/clip.mp4`, volumee: 1 }] });
    expect(typo.status).toBe(422);
    expect(typo.body.error.details.errors[0]).toMatchObject({
      type: 'extra_forbidden',
      loc: ['body', 'elements', 0, 'video', 'volumee'],
      pointer: '/elements/0/volumee',
      suggestion: 'volume',
    });
    const misplaced = await submit({ elements: [{ type: 'video', source_url: `${house.media.url}/clip.mp4`, duration: 3 }] });
    expect(misplaced.status).toBe(422);
    expect(misplaced.body.error.details.errors[0].msg).toMatch(/out_point/);
    expect(misplaced.body.error.details.errors[0]).not.toHaveProperty('suggestion');
    const alpha = await submit({ output_format: 'mp4', alpha: true, elements: [] });
    expect(alpha.status).toBe(422);
    expect(alpha.body.error.details.errors[0].pointer).toBe('/alpha');
    // Every field the schema accepts is drawn now; what is left to refuse is contradictory input.
    const easing = await submit({ elements: [{ type: 'video', source_url: `${house.media.url}/clip.mp4`, out_point: 1, motion: [{ type: 'fade', easing: 'cubic_in', back: 2 }] }] });
    expect(easing.status).toBe(422);
    expect(easing.body.error.code).toBe('invalid_request');
    expect(easing.body.error.details.errors[0]).toMatchObject({ pointer: '/elements/0/motion/0/easing', msg: expect.stringContaining('"back" applies to easing') });
  });

  it('reports cross-element violations but still accepts the render', async () => {
    const res = await submit({
      width: 64,
      height: 36,
      duration: 0.5,
      elements: [{ ...redBox, id: 'a', time: 0 }, { ...redBox, id: 'b', time: 0, x: 500 }],
      transitions: [],
    });
    expect(res.status).toBe(202);
    expect(res.body.ok).toBe(false);
    expect(res.body.violations[0]).toMatchObject({ severity: 'error', element_ids: ['b'] });
    expect(res.body.violations[0].pointer).toMatch(/^\/elements\/1/);
  });

  it('replays an Idempotency-Key, refuses it with another body, and makes one job under concurrent duplicates', async () => {
    const body = { width: 64, height: 36, duration: 0.5, elements: [{ ...redBox, time: 0 }] };
    const first = await submit(body, { 'Idempotency-Key': 'idem-1' });
    expect(first.status).toBe(202);
    const replay = await submit(body, { 'Idempotency-Key': 'idem-1' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    const other = await submit({ ...body, duration: 1 }, { 'Idempotency-Key': 'idem-1' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('conflict');

    const concurrent = await Promise.all(Array.from({ length: 6 }, () => submit(body, { 'Idempotency-Key': 'idem-race' })));
    const ids = new Set(concurrent.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(concurrent.filter((r) => r.status === 202)).toHaveLength(1);
    const rows = await house.app.running.app.get(DataSource).query(
      `SELECT count(*)::int AS n FROM jobs WHERE id = $1`, [[...ids][0]],
    );
    expect(rows[0].n).toBe(1);
  });

  it('lists renders newest first with status filter and cursor, and hides other workspaces', async () => {
    // Its own workspace: three cheap renders, the last cancelled at once.
    const mine = await signupVerified(house.app);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await house.api(mine.key).post('/v1/renders').send({ width: 32, height: 32, output_format: 'png' }).expect(202);
      ids.push(res.body.id);
    }
    await house.api(mine.key).post(`/v1/renders/${ids[2]}/cancel`);
    const page = await house.api(mine.key).get('/v1/renders?limit=2').expect(200);
    expect(page.body.data.map((j: { id: string }) => j.id)).toEqual([ids[2], ids[1]]);
    expect(page.body.has_more).toBe(true);
    const next = await house.api(mine.key).get(`/v1/renders?limit=2&cursor=${page.body.next_cursor}`).expect(200);
    expect(next.body.data.map((j: { id: string }) => j.id)).toEqual([ids[0]]);
    expect(next.body.has_more).toBe(false);
    const cancelled = await house.api(mine.key).get('/v1/renders?status=cancelled&limit=200').expect(200);
    expect(cancelled.body.data.map((j: { id: string }) => j.id)).toEqual([ids[2]]);
    const badStatus = await house.api(mine.key).get('/v1/renders?status=done');
    expect(badStatus.status).toBe(422);

    const other = await signupVerified(house.app);
    const someId = ids[0];
    for (const route of [`/v1/renders/${someId}`, `/v1/renders/${someId}/download`]) {
      const res = await house.api(other.key).get(route);
      expect(res.status).toBe(404);
    }
    expect((await house.api(other.key).post(`/v1/renders/${someId}/cancel`)).status).toBe(404);
    const theirs = await house.api(other.key).get('/v1/renders').expect(200);
    expect(theirs.body.data).toEqual([]);
  });

  it('cancels a running render (the work stops) and refuses to cancel a finished one', async () => {
    // The box wiggles on every frame, so every frame goes through the browser: a still scene would
    // be drawn once and held, and could finish before the test sees it running.
    const res = await submit({ width: 160, height: 90, duration: 30, frame_rate: 30, background_color: '#0000ff', elements: [{ ...redBox, motion: [{ type: 'wiggle', loop: true }] }] });
    await waitFor(
      async () => (await house.api().get(`/v1/renders/${res.body.id}`)).body,
      (job) => job.status === 'processing' && job.progress_percent > 10,
      120_000,
    );
    const cancelled = await house.api().post(`/v1/renders/${res.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    // The worker notices and frees itself: a following render completes promptly.
    const next = await submit({ width: 64, height: 36, output_format: 'png', elements: [{ ...redBox, time: 0 }] });
    const { job } = await finish(next.body.id);
    expect(job.status).toBe('completed');
    const still = await house.api().get(`/v1/renders/${res.body.id}`).expect(200);
    expect(still.body.status).toBe('cancelled');
    expect(still.body.output).toBeNull();
    const again = await house.api().post(`/v1/renders/${next.body.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
  });

  it('refuses renders past the free plan minutes with 402 and counts usage', async () => {
    const mine = await signupVerified(house.app);
    const made = await house.api(mine.key).post('/v1/renders').send({ width: 64, height: 36, duration: 1, frame_rate: 10 }).expect(202);
    await waitFor(async () => (await house.api(mine.key).get(`/v1/renders/${made.body.id}`)).body.status, (status) => status === 'completed', 120_000);
    const usage = await house.api(mine.key).get('/v1/workspace/usage').expect(200);
    expect(usage.body.render_count).toBe(1);
    expect(usage.body.render_minutes).toBeCloseTo(1 / 60, 2);
    await house.app.running.app.get(DataSource).query(
      `INSERT INTO jobs (id, workspace_id, kind, status, request, output_seconds, completed_at) VALUES ('render_QUOTA', $1, 'render', 'completed', '{}', 3600, now())`,
      [mine.workspaceId],
    );
    const res = await house.api(mine.key).post('/v1/renders').send({ width: 64, height: 36, duration: 1, elements: [] });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('quota_exceeded');
    expect(res.body.error.details.render_minutes_limit).toBe(60);
  });

  it('deletes every stored file of a workspace with the workspace', async () => {
    const mine = await signupVerified(house.app);
    const made = await house.api(mine.key).post('/v1/renders').send({ width: 32, height: 32, output_format: 'png' }).expect(202);
    await waitFor(async () => (await house.api(mine.key).get(`/v1/renders/${made.body.id}`)).body.status, (status) => status === 'completed', 120_000);
    const folder = path.join(house.app.dataDir, 'storage', mine.workspaceId);
    expect(existsSync(path.join(folder, 'renders'))).toBe(true);
    await house.api(mine.key).delete('/v1/workspace').expect(204);
    expect(existsSync(folder)).toBe(false);
  });
});

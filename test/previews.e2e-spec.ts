import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { playerPropsFor } from '../composition/src/player-props';
import { validateRenderRequest } from '../composition/src/schema';
import { frameAt, makeImage, near, probe, serveFolder, volumeDb, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';
import { startWebhookReceiver } from './helpers/webhook-receiver';

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const YELLOW = [255, 255, 0];
/** The colour on screen during each second of `timeline`. */
const COLOURS_BY_SECOND = [RED, GREEN, BLUE, YELLOW];

/** 160x90, 4 s at 10 fps: a full-canvas rectangle that changes colour every second. */
const timeline = {
  width: 160,
  height: 90,
  frame_rate: 10,
  elements: ['#ff0000', '#00ff00', '#0000ff', '#ffff00'].map((fill_color, second) => ({
    type: 'shape',
    id: `second-${second}`,
    track: 1,
    duration: 1,
    fill_color,
  })),
};

/**
 * POST /v1/preview against the real app: dry runs answer at once and store nothing; frames, clips
 * and contact sheets are `is_preview` render jobs drawn by the same composition, decoded here.
 */
describe('previews', () => {
  let app: TestApp;
  let a: Awaited<ReturnType<typeof signupVerified>>;
  let b: Awaited<ReturnType<typeof signupVerified>>;
  let media: Awaited<ReturnType<typeof serveFolder>>;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-fixtures-'));
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-outputs-'));

  beforeAll(async () => {
    await makeImage(path.join(fixtures, 'slow.png'), 'white', 32, 32);
    await makeImage(path.join(fixtures, 'picture.png'), 'white', 48, 24);
    for (const name of ['voice.wav', 'voice-2.wav']) {
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=330:sample_rate=48000:duration=2.6', path.join(fixtures, name)]);
    }
    // A tone from 2 s to 3 s of a 4 s file: heard in the second half of a 1 s → 3 s clip only.
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=4',
      '-af', "volume='between(t,2,3)':eval=frame", path.join(fixtures, 'tone.wav')]);
    media = await serveFolder(fixtures);
    receiver = await startWebhookReceiver();
    app = await startTestApp({ env: { TRUST_PROXY: 'true', ALLOW_PRIVATE_NETWORK: 'true', ALLOW_HTTP_WEBHOOKS: 'true' } });
    a = await signupVerified(app);
    b = await signupVerified(app);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await media?.close();
    await receiver?.close();
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(outputs, { recursive: true, force: true });
  });

  const db = () => app.running.app.get(DataSource);
  const preview = (key: string, body: object) => app.http.post('/v1/preview').set(bearer(key)).send(body);
  const jobCount = async (workspaceId: string) =>
    Number((await db().query(`SELECT count(*)::int AS n FROM jobs WHERE workspace_id = $1`, [workspaceId]))[0].n);

  async function finished(key: string, id: string) {
    return waitFor(
      async () => (await app.http.get(`/v1/renders/${id}`).set(bearer(key)).expect(200)).body,
      (job) => ['completed', 'failed', 'cancelled'].includes(job.status),
      120_000,
      100,
    );
  }

  async function downloaded(job: { id: string; output: { url: string } }, extension: string): Promise<string> {
    const res = await fetch(job.output.url);
    expect(res.status).toBe(200);
    const file = path.join(outputs, `${job.id}.${extension}`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    return file;
  }

  describe('dry run', () => {
    it('answers with every violation, the timeline, the estimate, and stores nothing', async () => {
      // 60 elements entirely off the canvas: a submit lists 40 and a marker; the dry run lists all.
      const offCanvas = Array.from({ length: 60 }, (_, i) => ({ type: 'shape', id: `off-${i}`, x: -500, width: 10, height: 10, time: 0, duration: 1 }));
      const res = await preview(a.key, { ...timeline, elements: [...timeline.elements, ...offCanvas], preview: { mode: 'dry_run' } }).expect(200);
      expect(res.body.ok).toBe(false);
      expect(res.body.submit_error).toBeNull();
      expect(res.body.violations).toHaveLength(60);
      expect(new Set(res.body.violations.map((v: { code: string }) => v.code))).toEqual(new Set(['ELEMENT_OFF_CANVAS']));
      expect(res.body.violations.map((v: { element_ids: string[] }) => v.element_ids[0])).toEqual(offCanvas.map((e) => e.id));

      expect(res.body.timeline).toMatchObject({ width: 160, height: 90, frame_rate: 10, duration: 4, frame_count: 40 });
      expect(res.body.timeline.elements.slice(0, 4).map((e: { id: string; start: number; end: number }) => [e.id, e.start, e.end])).toEqual([
        ['second-0', 0, 1],
        ['second-1', 1, 2],
        ['second-2', 2, 3],
        ['second-3', 3, 4],
      ]);
      expect(res.body.estimate).toEqual({ render_minutes: 0.067, frames: 40, pixels_per_frame: 14400, pixel_frames: 576000, media_seconds: 0 });
      expect(await jobCount(a.workspaceId)).toBe(0);
    });

    it('checks sources by default as a submit does: an unreachable video is the same 422, and every source is listed', async () => {
      const unreachable = 'http://127.0.0.1:1/clip.mp4'; // nothing listens on port 1
      const picture = `${media.url}/picture.png`;
      const body = { ...timeline, elements: [{ type: 'video', source_url: unreachable, out_point: 2 }, { type: 'image', source_url: picture, duration: 2 }] };
      const submitted = await app.http.post('/v1/renders').set(bearer(a.key)).send(body).expect(422);
      expect(submitted.body.error.code).toBe('invalid_source');

      // Checked within the dry run's budget, or (on a busy machine) by the next dry run, which finds the checks kept.
      const dry = { body: await waitFor(async () => (await preview(a.key, { ...body, preview: { mode: 'dry_run' } }).expect(200)).body, (answer) => answer.sources.every((s: { measured: boolean; status: string }) => s.measured || s.status === 'failed'), 30_000, 500) };
      expect(dry.body).toMatchObject({ ok: false, sources_checked: 'all' });
      expect(dry.body.submit_error).toEqual({ status: 422, ...submitted.body.error });
      expect(dry.body.sources).toEqual([
        { pointer: '/elements/0/source_url', url: unreachable, kind: 'video', status: 'failed', error: { code: 'invalid_source', message: submitted.body.error.message }, measured: false, note: null },
        { pointer: '/elements/1/source_url', url: picture, kind: 'image', status: 'ok', error: null, measured: true, note: null },
      ]);
      expect(dry.body.media).toEqual({ [picture]: { width: 48, height: 24, has_video: true, has_audio: false } });
      expect(await jobCount(a.workspaceId)).toBe(0);
    });

    it('reads no source with check_sources: false and says so; with true reports what a submit would', async () => {
      const missing = `${media.url}/missing.png`;
      const body = { ...timeline, elements: [{ type: 'image', source_url: missing, duration: 2 }] };
      const quiet = await preview(a.key, { ...body, preview: { mode: 'dry_run', check_sources: false } }).expect(200);
      expect(quiet.body).toMatchObject({ ok: true, submit_error: null, sources_checked: 'none', media: {} });
      expect(quiet.body.sources).toEqual([expect.objectContaining({ pointer: '/elements/0/source_url', status: 'not_checked', note: 'Not checked: check_sources is false' })]);
      expect(media.requests.filter((r) => r.endsWith('/missing.png'))).toEqual([]);

      const checked = await preview(a.key, { ...body, preview: { mode: 'dry_run', check_sources: true } }).expect(200);
      const submitted = await app.http.post('/v1/renders').set(bearer(a.key)).send(body).expect(422);
      expect(checked.body).toMatchObject({ ok: false, sources_checked: 'all' });
      expect(checked.body.submit_error).toEqual({ status: 422, ...submitted.body.error });
      expect(checked.body.submit_error.code).toBe('source_not_found');
      expect(media.requests.filter((r) => r.endsWith('/missing.png')).length).toBeGreaterThan(0);
      expect(await jobCount(a.workspaceId)).toBe(0);
    });

    it('reports the sources it could not check within its budget, and keeps checking them for the next dry run', async () => {
      // A host that answers nothing until released, and a file whose body is held (its HEAD answers at once).
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const stalled: string[] = [];
      const stall = createServer((req, res) => {
        stalled.push(`${req.method} ${req.url}`);
        void released.then(() => res.writeHead(404).end());
      });
      await new Promise<void>((resolve) => stall.listen(0, '127.0.0.1', resolve));
      const stalledUrl = `http://127.0.0.1:${(stall.address() as AddressInfo).port}/stalled.mp4`;
      const voice = `${media.url}/voice.wav`;
      const releaseVoice = media.hold('voice.wav');
      try {
        const body = { ...timeline, elements: [{ type: 'video', source_url: stalledUrl, out_point: 1 }, { type: 'audio', source_url: voice }] };
        const first = await preview(b.key, { ...body, preview: { mode: 'dry_run' } }).expect(200);
        // Nothing found wrong, and the answer says what was not looked at.
        expect(first.body).toMatchObject({ ok: true, submit_error: null, media: {} });
        expect(first.body.sources_checked).not.toBe('all');
        expect(first.body.sources).toEqual([
          expect.objectContaining({ pointer: '/elements/0/source_url', status: 'not_checked', measured: false, note: expect.stringMatching(/^Not checked within the dry run's 3 s/) }),
          expect.objectContaining({ pointer: '/elements/1/source_url', measured: false, note: expect.stringMatching(/^Not (checked|measured) within the dry run's 3 s/) }),
        ]);
        expect(first.body.timeline.elements[1].length_estimated).toBe(true);

        release();
        releaseVoice();
        const second = await waitFor(
          async () => (await preview(b.key, { ...body, preview: { mode: 'dry_run' } }).expect(200)).body,
          (answer) => answer.sources_checked === 'all' && answer.sources[1].measured,
          30_000,
          500,
        );
        expect(second).toMatchObject({ ok: false, submit_error: { status: 422, code: 'source_not_found' } });
        expect(second.sources[0]).toMatchObject({ status: 'failed', error: { code: 'source_not_found' } });
        expect(second.media[voice].duration).toBeCloseTo(2.6, 2);
        // The first dry run's checks were kept and reused: one HEAD reached the stalled host.
        expect(stalled).toEqual(['HEAD /stalled.mp4']);
      } finally {
        release();
        releaseVoice();
        await new Promise<void>((resolve) => stall.close(() => resolve()));
      }
    });

    it('gives the lengths the render measures: a Player given them lasts exactly as the render', async () => {
      const d = await signupVerified(app); // its render would count in A's jobs
      const voice = `${media.url}/voice-2.wav`;
      const request = {
        width: 160,
        height: 90,
        frame_rate: 10,
        elements: [
          { type: 'audio', id: 'vo', source_url: voice },
          // The audio alone decides the length: the bars are drawn over its first second.
          { type: 'waveform', source: 'vo', fill_color: '#facc15', height: '50%', y: '25%', duration: 1 },
        ],
      };
      // The first dry run may run out of its budget on a busy machine; the checks go on and the next one has them.
      const dry = { body: await waitFor(async () => (await preview(d.key, { ...request, preview: { mode: 'dry_run' } }).expect(200)).body, (answer) => answer.sources[0].measured, 30_000, 500) };
      expect(dry.body).toMatchObject({ ok: true, sources_checked: 'all' });
      expect(dry.body.media[voice]).toEqual({ duration: expect.closeTo(2.6, 2), has_video: false, has_audio: true });
      expect(dry.body.timeline).toMatchObject({ duration: 2.6, frame_count: 26 });
      expect(dry.body.timeline.elements[0].length_estimated).toBe(false);

      const parsed = validateRenderRequest(request);
      if (!parsed.ok) throw new Error('the request should be valid');
      expect(playerPropsFor(parsed.value).durationInFrames).toBe(50); // unmeasured: the schema's 5 s
      const player = playerPropsFor(parsed.value, dry.body.media);
      expect(player.durationInFrames).toBe(26);

      const submitted = await app.http.post('/v1/renders').set(bearer(d.key)).send(request).expect(202);
      const job = await finished(d.key, submitted.body.id);
      expect(job.status).toBe('completed');
      const video = (await probe(await downloaded(job, 'mp4'))).streams.find((stream) => stream.codec_type === 'video');
      expect(Number(video?.nb_read_frames)).toBe(player.durationInFrames);
    });

    it('gives the 422 a submit gives: as data in a dry run, as the answer of a preview job', async () => {
      const body = { ...timeline, backgound_color: '#ffffff', elements: [{ type: 'shape', fill_colour: '#ff0000' }] };
      const submitted = await app.http.post('/v1/renders').set(bearer(a.key)).send(body).expect(422);
      expect(submitted.body.error.details.errors.map((e: { suggestion?: string }) => e.suggestion).sort()).toEqual(['background_color', 'fill_color']);

      const dry = await preview(a.key, { ...body, preview: { mode: 'dry_run' } }).expect(200);
      expect(dry.body).toMatchObject({ ok: false, violations: [], timeline: null, estimate: null });
      expect(dry.body.submit_error).toEqual({ status: 422, ...submitted.body.error });

      const frame = await preview(a.key, { ...body, preview: { mode: 'frame', time: 1 } }).expect(422);
      expect(frame.body).toEqual(submitted.body);
      expect(await jobCount(a.workspaceId)).toBe(0);
    });

    it('reports the 402 a submit would get once the month is spent, while previews still run', async () => {
      const c = await signupVerified(app);
      // 59 min 58 s of the month are used: the 4 s timeline no longer fits.
      await db().query(
        `INSERT INTO jobs (id, workspace_id, kind, status, request, output_seconds, completed_at) VALUES ('render_PREVIEW_QUOTA', $1, 'render', 'completed', '{}', 3598, now())`,
        [c.workspaceId],
      );
      const submitted = await app.http.post('/v1/renders').set(bearer(c.key)).send(timeline).expect(402);
      const dry = await preview(c.key, { ...timeline, preview: { mode: 'dry_run' } }).expect(200);
      expect(dry.body).toMatchObject({ ok: false, violations: [], estimate: { render_minutes: 0.067 } });
      expect(dry.body.submit_error).toEqual({ status: 402, ...submitted.body.error });
      const frame = await preview(c.key, { ...timeline, preview: { mode: 'frame', time: 0, scale: 0.1 } }).expect(202);
      expect((await finished(c.key, frame.body.id)).status).toBe('completed');
    });

    it('validates the preview object strictly, with suggestions, its times against the timeline, and the plan caps', async () => {
      const typo = await preview(a.key, { ...timeline, preview: { mode: 'frame', time: 1, scal: 0.5 } }).expect(422);
      expect(typo.body.error.code).toBe('invalid_request');
      expect(typo.body.error.details.errors).toEqual([
        expect.objectContaining({ type: 'extra_forbidden', loc: ['body', 'preview', 'scal'], pointer: '/preview/scal', suggestion: 'scale' }),
      ]);
      const mode = await preview(a.key, { ...timeline, preview: { mode: 'frames', time: 1 } }).expect(422);
      expect(mode.body.error.details.errors).toEqual([expect.objectContaining({ type: 'union_tag_invalid', pointer: '/preview/mode', suggestion: 'frame' })]);
      const missing = await preview(a.key, { ...timeline, colour: 1 }).expect(422);
      expect(missing.body.error.details.errors.map((e: { type: string; pointer: string }) => [e.type, e.pointer])).toEqual([
        ['extra_forbidden', '/colour'],
        ['missing', '/preview'],
      ]);
      const limits = await preview(a.key, { ...timeline, preview: { mode: 'clip', start: 0, end: 31, scale: 2 } }).expect(422);
      expect(limits.body.error.details.errors.map((e: { type: string; pointer: string }) => [e.type, e.pointer])).toEqual([
        ['less_than_equal', '/preview/scale'],
        ['less_than_equal', '/preview/end'],
      ]);
      // The plan's per-render caps bound the whole request, previewed or not: 11 minutes is 6600 frames at 10 fps, 19 800 at 30.
      const long = await preview(a.key, { ...timeline, duration: 660, frame_rate: 30, preview: { mode: 'frame', time: 1 } }).expect(422);
      expect(long.body.error.details.errors).toEqual([expect.objectContaining({ type: 'plan_limit', pointer: '/duration' })]);
      const late = await preview(a.key, { ...timeline, preview: { mode: 'frame', time: 4 } }).expect(422);
      expect(late.body.error.details.errors).toEqual([expect.objectContaining({ pointer: '/preview/time', msg: expect.stringMatching(/end of the timeline \(4 s\)/) })]);
      expect(await jobCount(a.workspaceId)).toBe(0);
    });
  });

  it('is described in /v1/capabilities and the OpenAPI document, and rate limited per IP', async () => {
    const capabilities = (await app.http.get('/v1/capabilities').expect(200)).body;
    expect(Object.keys(capabilities.previews.modes)).toEqual(['dry_run', 'frame', 'clip', 'contact_sheet']);
    expect(capabilities.previews.limits).toMatchObject({ clip_seconds: 30, scale: { min: 0.1, max: 1 }, contact_sheet_count: { max: 48 } });
    expect(capabilities.previews.preview_schema.oneOf.map((mode: { properties: { mode: { const: string } } }) => mode.properties.mode.const)).toEqual([
      'dry_run',
      'frame',
      'clip',
      'contact_sheet',
    ]);
    expect(capabilities.rate_limits.preview).toEqual({ limit: 120, window_seconds: 60, per: 'ip' });
    const openapi = (await app.http.get('/v1/openapi.json').expect(200)).body;
    const bodyRef = openapi.paths['/v1/preview'].post.requestBody.content['application/json'].schema.$ref as string;
    const body = openapi.components.schemas[bodyRef.split('/').pop()!];
    expect(body.required).toContain('preview');
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['elements', 'width', 'preview']));

    // The limit counts in fixed one-minute windows: a burst that crossed a window's end is sent
    // again from a fresh address, rather than waiting for the start of a window.
    let statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const ip = `203.0.113.${77 + attempt}`;
      const send = async () => {
        const res = await app.http.post('/v1/preview').set(bearer(a.key)).set('X-Forwarded-For', ip).send({ ...timeline, preview: { mode: 'dry_run' } });
        if (res.status === 429) expect(res.body.error.code).toBe('rate_limited');
        return res.status;
      };
      const window = Math.floor(Date.now() / 60_000);
      statuses = [];
      // 120 allowed (sent 10 at a time), then the 121st refused.
      for (let i = 0; i < 12; i++) statuses.push(...(await Promise.all(Array.from({ length: 10 }, send))));
      statuses.push(await send());
      if (Math.floor(Date.now() / 60_000) === window) break;
    }
    expect(statuses.slice(0, 120).every((status) => status === 200)).toBe(true);
    expect(statuses[120]).toBe(429);
  });

  describe('preview jobs', () => {
    it('draws one frame at the asked time and scale, as an is_preview render job', async () => {
      const webhook_url = `${receiver.url}/frame-preview`;
      const res = await preview(a.key, { ...timeline, webhook_url, metadata: { shot: 7 }, preview: { mode: 'frame', time: 1.5, scale: 0.5 } }).expect(202);
      expect(res.body).toMatchObject({ kind: 'render', is_preview: true, status: 'queued', ok: true, violations: [], metadata: { shot: 7 } });
      expect(res.body.id).toMatch(/^render_/);
      // The JPEG is queued behind it at once: the two jobs wait on the worker, not on each other's checks.
      const jpeg = await preview(a.key, { ...timeline, preview: { mode: 'frame', time: 3.05, format: 'jpg' } }).expect(202);
      const job = await finished(a.key, res.body.id);
      expect(job).toMatchObject({ status: 'completed', is_preview: true, output: { width: 80, height: 45, duration: 0 } });
      const file = await downloaded(job, 'png');
      const frame = await frameAt(file);
      expect([frame.width, frame.height]).toEqual([80, 45]);
      expect(near(frame.at(40, 22), GREEN, 8)).toBe(true);
      // The job's own webhook hears of it as of any render.
      const event = await waitFor(
        async () => receiver.received.find((d) => d.path === '/frame-preview' && d.json.type === 'render.completed'),
        (found) => found !== undefined,
        30_000,
        50,
      );
      expect(event!.json.data).toMatchObject({ id: res.body.id, is_preview: true, status: 'completed', metadata: { shot: 7 } });

      const jpegJob = await finished(a.key, jpeg.body.id);
      expect(jpegJob.output).toMatchObject({ width: 160, height: 90 });
      const jpegFrame = await frameAt(await downloaded(jpegJob, 'jpg'));
      expect(near(jpegFrame.at(80, 45), YELLOW, 16)).toBe(true);
    });

    it('lays out a contact sheet: one tile per part of the timeline, each the colour on screen then, labelled with its time', async () => {
      const res = await preview(a.key, { ...timeline, preview: { mode: 'contact_sheet', count: 4, columns: 2, scale: 1 } }).expect(202);
      const job = await finished(a.key, res.body.id);
      expect(job).toMatchObject({ status: 'completed', output: { width: 320, height: 180, duration: 0 } });
      const sheet = await frameAt(await downloaded(job, 'png'));
      // Tiles at 0.5, 1.5, 2.5 and 3.5 s, row by row.
      const tiles = [[0, 0], [160, 0], [0, 90], [160, 90]];
      tiles.forEach(([x, y], i) => {
        expect({ tile: i, colour: near(sheet.at(x + 120, y + 30), COLOURS_BY_SECOND[i], 8) }).toEqual({ tile: i, colour: true });
        // The label: white text on a dark box in the bottom-left corner of the tile.
        let white = 0;
        let dark = 0;
        for (let ly = y + 70; ly < y + 90; ly += 1) {
          for (let lx = x; lx < x + 60; lx += 1) {
            const [r, g, bl] = sheet.at(lx, ly);
            if (r > 200 && g > 200 && bl > 200) white += 1;
            if (r + g + bl < 200) dark += 1;
          }
        }
        expect({ tile: i, labelled: white > 20 && dark > 100 }).toEqual({ tile: i, labelled: true });
      });
    });

    it('renders a clip between start and end at the reduced size and frame rate', async () => {
      const tone = { type: 'audio', source_url: `${media.url}/tone.wav`, time: 0 };
      const res = await preview(a.key, { ...timeline, elements: [...timeline.elements, tone], preview: { mode: 'clip', start: 1, end: 3, scale: 0.5, frame_rate: 5 } }).expect(202);
      const job = await finished(a.key, res.body.id);
      expect(job).toMatchObject({ status: 'completed', output: { width: 80, height: 44, duration: 2 } });
      const file = await downloaded(job, 'mp4');
      const probed = await probe(file);
      const video = probed.streams.find((s) => s.codec_type === 'video')!;
      expect(video).toMatchObject({ codec_name: 'h264', width: 80, height: 44, r_frame_rate: '5/1', nb_read_frames: '10' });
      expect(Number(probed.format.duration)).toBeCloseTo(2, 1);
      expect(near((await frameAt(file, 0.3)).at(40, 22), GREEN, 16)).toBe(true);
      expect(near((await frameAt(file, 1.5)).at(40, 22), BLUE, 16)).toBe(true);
      // The request's sound, cut to the clip: silent for its first second, the tone in its second.
      expect(probed.streams.find((s) => s.codec_type === 'audio')).toMatchObject({ codec_name: 'aac' });
      expect((await volumeDb(file, 0.1, 0.9)).max).toBeLessThan(-60);
      expect((await volumeDb(file, 1.1, 1.9)).mean).toBeGreaterThan(-30);
    });

    it('replays a preview job for the same Idempotency-Key and body, and refuses another body', async () => {
      const d = await signupVerified(app);
      const body = { ...timeline, preview: { mode: 'frame', time: 2.5, scale: 0.1 } };
      const first = await preview(d.key, body).set('Idempotency-Key', 'preview-replay-1').expect(202);
      const again = await preview(d.key, body).set('Idempotency-Key', 'preview-replay-1').expect(200);
      expect(again.body.id).toBe(first.body.id);
      const other = await preview(d.key, { ...body, preview: { mode: 'frame', time: 3.5, scale: 0.1 } }).set('Idempotency-Key', 'preview-replay-1').expect(409);
      expect(other.body.error.code).toBe('conflict');
      // The same key on a render submit is another scope: a render, not the preview.
      const render = await app.http.post('/v1/renders').set(bearer(d.key)).set('Idempotency-Key', 'preview-replay-1').send({ ...timeline, output_format: 'png' }).expect(202);
      expect(render.body.id).not.toBe(first.body.id);
      expect((await finished(d.key, render.body.id)).status).toBe('completed');
      expect((await finished(d.key, first.body.id)).status).toBe('completed');
    });

    it('never meters previews and never lists them; another workspace reads them as 404', async () => {
      // Its own workspace: two previews, run to the end.
      const e = await signupVerified(app);
      const ids: string[] = [];
      for (const time of [0.5, 2.5]) ids.push((await preview(e.key, { ...timeline, preview: { mode: 'frame', time, scale: 0.1 } }).expect(202)).body.id);
      for (const id of ids) expect((await finished(e.key, id)).status).toBe('completed');

      const usage = await app.http.get('/v1/workspace/usage').set(bearer(e.key)).expect(200);
      expect(usage.body).toMatchObject({ render_minutes: 0, render_count: 0, plan: { render_minutes_remaining: 60 } });
      const listed = await app.http.get('/v1/renders').set(bearer(e.key)).expect(200);
      expect(listed.body.data).toEqual([]);
      const [{ previews }] = await db().query(`SELECT count(*)::int AS previews FROM jobs WHERE workspace_id = $1 AND is_preview AND status = 'completed'`, [e.workspaceId]);
      expect(previews).toBe(2);

      const foreign = await app.http.get(`/v1/renders/${ids[0]}`).set(bearer(b.key)).expect(404);
      expect(foreign.body.error.code).toBe('not_found');
      await app.http.get(`/v1/renders/${ids[0]}/download`).set(bearer(b.key)).expect(404);
      await app.http.post(`/v1/renders/${ids[0]}/cancel`).set(bearer(b.key)).expect(404);
    });

    it('overtakes full renders already queued', async () => {
      // B's first render holds the one worker (its image is held), two more wait behind it.
      const release = media.hold('slow.png');
      const full = { ...timeline, ingest_external: false, elements: [{ type: 'image', source_url: `${media.url}/slow.png`, duration: 1 }] };
      const first = await app.http.post('/v1/renders').set(bearer(b.key)).send(full).expect(202);
      await waitFor(
        async () => (await app.http.get(`/v1/renders/${first.body.id}`).set(bearer(b.key))).body.status,
        (status) => status === 'processing',
      );
      const queued = [];
      for (let i = 0; i < 2; i++) queued.push((await app.http.post('/v1/renders').set(bearer(b.key)).send({ ...timeline, output_format: 'png' }).expect(202)).body.id);
      const late = await preview(a.key, { ...timeline, preview: { mode: 'frame', time: 0.5, scale: 0.25 } }).expect(202);
      release();

      const done = await finished(a.key, late.body.id);
      expect(done.status).toBe('completed');
      for (const id of [first.body.id, ...queued]) expect((await finished(b.key, id)).status).toBe('completed');
      const started: { id: string; started_at: Date }[] = await db().query(`SELECT id, started_at FROM jobs WHERE id = ANY($1) ORDER BY started_at`, [
        [first.body.id, ...queued, late.body.id],
      ]);
      expect(started.map((row) => row.id)).toEqual([first.body.id, late.body.id, ...queued]);
    });
  });
});

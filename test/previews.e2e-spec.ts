import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { frameAt, makeImage, near, probe, serveFolder, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

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
  const fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-fixtures-'));
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-outputs-'));

  beforeAll(async () => {
    await makeImage(path.join(fixtures, 'slow.png'), 'white', 32, 32);
    media = await serveFolder(fixtures);
    app = await startTestApp({ env: { TRUST_PROXY: 'true', ALLOW_PRIVATE_NETWORK: 'true' } });
    a = await signupVerified(app);
    b = await signupVerified(app);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await media?.close();
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

    it('reads no source unless check_sources is set, then reports what a submit would', async () => {
      const missing = `${media.url}/missing.png`;
      const body = { ...timeline, elements: [{ type: 'image', source_url: missing, duration: 2 }] };
      const quiet = await preview(a.key, { ...body, preview: { mode: 'dry_run' } }).expect(200);
      expect(quiet.body).toMatchObject({ ok: true, submit_error: null });
      expect(media.requests.filter((r) => r.endsWith('/missing.png'))).toEqual([]);

      const checked = await preview(a.key, { ...body, preview: { mode: 'dry_run', check_sources: true } }).expect(200);
      const submitted = await app.http.post('/v1/renders').set(bearer(a.key)).send(body).expect(422);
      expect(checked.body.ok).toBe(false);
      expect(checked.body.submit_error).toEqual({ status: 422, ...submitted.body.error });
      expect(checked.body.submit_error.code).toBe('source_not_found');
      expect(media.requests.filter((r) => r.endsWith('/missing.png')).length).toBeGreaterThan(0);
      expect(await jobCount(a.workspaceId)).toBe(0);
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

    it('validates the preview object strictly, with suggestions, and its times against the timeline', async () => {
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
      const late = await preview(a.key, { ...timeline, preview: { mode: 'frame', time: 4 } }).expect(422);
      expect(late.body.error.details.errors).toEqual([expect.objectContaining({ pointer: '/preview/time', msg: expect.stringMatching(/end of the timeline \(4 s\)/) })]);
      expect(await jobCount(a.workspaceId)).toBe(0);
    });
  });
});

export { COLOURS_BY_SECOND, frameAt, near, probe };

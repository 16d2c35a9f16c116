import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { audioSamples, probe, serveFolder } from './helpers/media';
import { renderThroughApi } from './helpers/render-through-api';
import { signupVerified, startTestApp, TestApp } from './helpers/test-app';

const run = promisify(execFile);

const WIDTH = 320;
const HEIGHT = 180;

/** Every frame of a video as rgb24. */
async function framesOf(file: string): Promise<Buffer[]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 });
  const bytes = stdout as unknown as Buffer;
  const size = WIDTH * HEIGHT * 3;
  return Array.from({ length: bytes.length / size }, (_, index) => bytes.subarray(index * size, (index + 1) * size));
}

/** Share of pixels where some channel differs by more than `tolerance` (of 255). */
function differingShare(a: Buffer, b: Buffer, tolerance: number): number {
  let differing = 0;
  for (let offset = 0; offset < a.length; offset += 3) {
    if (Math.abs(a[offset] - b[offset]) > tolerance || Math.abs(a[offset + 1] - b[offset + 1]) > tolerance || Math.abs(a[offset + 2] - b[offset + 2]) > tolerance) differing++;
  }
  return differing / (a.length / 3);
}

/**
 * The media-composite path (RENDER_COMPOSITE_MEDIA): ffmpeg decodes, scales, fades and places the
 * video clip, the browser draws only the shape below and the title above it. The same request
 * through the browser path (a second app with the setting off) is the reference: same frame count,
 * duration and format, every frame pair close and the sound close (bounds below).
 */
describe('media composite render path (through the REST API)', () => {
  let composite: TestApp;
  let browser: TestApp;
  let compositeKey: string;
  let browserKey: string;
  const databases: Client[] = [];
  let media: Awaited<ReturnType<typeof serveFolder>>;
  const fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-composite-fixtures-'));
  const outputs = mkdtempSync(path.join(tmpdir(), 'vrs-composite-outputs-'));
  const url = (name: string) => `${media.url}/${name}`;

  beforeAll(async () => {
    // 4:3 colour bars with a tone: in a 16:9 box of half its width, `cover` crops the top and bottom
    // and halves the rest.
    await run('ffmpeg', [
      '-v', 'error', '-y',
      '-f', 'lavfi', '-i', 'smptebars=size=320x240:rate=30:duration=3',
      '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=3',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest',
      path.join(fixtures, 'clip.mp4'),
    ]);
    media = await serveFolder(fixtures);
    const env = { TRUST_PROXY: 'true', ALLOW_PRIVATE_NETWORK: 'true' };
    [composite, browser] = await Promise.all([
      startTestApp({ env: { ...env, RENDER_COMPOSITE_MEDIA: 'true' } }),
      startTestApp({ env: { ...env, RENDER_COMPOSITE_MEDIA: 'false' } }),
    ]);
    ({ key: compositeKey } = await signupVerified(composite));
    ({ key: browserKey } = await signupVerified(browser));
    for (const app of [composite, browser]) {
      const db = new Client({ connectionString: app.databaseUrl });
      await db.connect();
      databases.push(db);
    }
  }, 240_000);

  afterAll(async () => {
    await Promise.all(databases.map((db) => db.end()));
    await composite?.close();
    await browser?.close();
    await media?.close();
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(outputs, { recursive: true, force: true });
  });

  const diagnostics = async (db: Client, id: string) => (await db.query('SELECT diagnostics FROM jobs WHERE id = $1', [id])).rows[0].diagnostics;

  const scene = (): { duration: number; elements: Record<string, unknown>[] } & Record<string, unknown> => ({
    width: WIDTH,
    height: HEIGHT,
    duration: 2,
    background_color: '#203040',
    elements: [
      { type: 'shape', fill_color: '#e0a020', x: 20, y: 20, width: 120, height: 80, x_anchor: 0, y_anchor: 0 },
      {
        type: 'video', source_url: url('clip.mp4'), x: 40, y: 40, width: 160, height: 90, x_anchor: 0, y_anchor: 0,
        in_point: 0.5, out_point: 2.5, fade_in_duration: 0.5, volume: 0.8,
      },
      { type: 'text', text: 'Title', x: 100, y: 110, font_size: 28, fill_color: '#ffffff', fade_in_duration: 0.5 },
    ],
  });

  it('draws the clip with ffmpeg close to the browser path (bounds as measured), with the same frames and sound', async () => {
    const [fast, reference] = await Promise.all([
      renderThroughApi(composite, compositeKey, outputs, 'composite', scene(), 180_000),
      renderThroughApi(browser, browserKey, outputs, 'browser', scene(), 180_000),
    ]);
    const fastReport = await diagnostics(databases[0], fast.job.id);
    expect(fastReport).toMatchObject({ render_path: 'media_composite', frames_total: 60, sound_path: 'ffmpeg' });
    // Below: one still frame; above: the title's fade (16 frames) and the frame after it.
    expect(fastReport.frames_drawn).toBeLessThan(20);
    expect(await diagnostics(databases[1], reference.job.id)).toMatchObject({ render_path: 'browser', frames_total: 60, frames_drawn: 60 });

    for (const file of [fast.file, reference.file]) {
      const probed = await probe(file);
      const video = probed.streams.find((stream) => stream.codec_type === 'video')!;
      expect({ frames: video.nb_read_frames, rate: video.r_frame_rate, pix: video.pix_fmt, range: video.color_range, codec: video.codec_name }).toEqual({
        frames: '60', rate: '30/1', pix: 'yuv420p', range: 'tv', codec: 'h264',
      });
      expect(Number(probed.format.duration)).toBeCloseTo(2, 1);
      expect(probed.streams.some((stream) => stream.codec_type === 'audio' && stream.codec_name === 'aac')).toBe(true);
    }

    const [fastFrames, referenceFrames] = await Promise.all([framesOf(fast.file), framesOf(reference.file)]);
    expect(fastFrames.length).toBe(60);
    expect(referenceFrames.length).toBe(60);
    // Measured: at most 2.7% of a frame's pixels off by more than 8/255 (mid-fade), 1.3% once the
    // fades are over (frame 16 on; 1.1% before the merge that fixed the held frame list's frame rate, which
    // changes the first frames and so, probably, how x264 codes the still frames after them; not proven),
    // 0.23% by more than 16/255, 0.007% by more than 32/255: the
    // colour edges of the bars, the shape and the title, where the browser path's JPEG capture
    // rings. The bar (1% by more than 8/255) is not met yet, which is why
    // RENDER_COMPOSITE_MEDIA is off by default (docs/decisions.md); these bounds keep what is
    // reached from getting worse.
    const shares = (tolerance: number) => fastFrames.map((frame, index) => differingShare(frame, referenceFrames[index], tolerance));
    const worst = (tolerance: number, from = 0) => Math.max(...shares(tolerance).slice(from));
    expect({ over8: worst(8) <= 0.03, over8AfterFades: worst(8, 16) <= 0.0135, over32: worst(32) <= 0.002 }).toEqual({ over8: true, over8AfterFades: true, over32: true });
    const meanDifference = Math.max(...fastFrames.map((frame, index) => frame.reduce((sum, value, offset) => sum + Math.abs(value - referenceFrames[index][offset]), 0) / frame.length));
    expect(meanDifference).toBeLessThan(0.85);
    // The picture is really there: the clip differs from the shape and background it covers.
    const middle = fastFrames[45];
    const at = (x: number, y: number) => [...middle.subarray((y * WIDTH + x) * 3, (y * WIDTH + x) * 3 + 3)];
    expect(at(30, 30)).not.toEqual(at(100, 80));

    const [fastSound, referenceSound] = await Promise.all([audioSamples(fast.file), audioSamples(reference.file)]);
    expect(Math.abs(fastSound.length - referenceSound.length)).toBeLessThan(2048);
    const length = Math.min(fastSound.length, referenceSound.length);
    let signal = 0;
    let difference = 0;
    for (let index = 0; index < length; index++) {
      signal += referenceSound[index] ** 2;
      difference += (fastSound[index] - referenceSound[index]) ** 2;
    }
    expect(signal).toBeGreaterThan(0);
    const differenceDb = difference === 0 ? -Infinity : 10 * Math.log10(difference / signal);
    // Measured −49 dB: the ffmpeg mix (RemotionRenderer.soundTrack) against the sound of a whole
    // browser render of an AAC clip with a trim and a fade; the issue asks −60 dB (docs/decisions.md).
    expect(differenceDb).toBeLessThanOrEqual(-45);
  }, 300_000);

  it('leaves a clip the fast path cannot draw exactly to the browser, saying why', async () => {
    const request = scene();
    request.duration = 1;
    request.elements[1] = { ...request.elements[1], z_rotation: 5 };
    const { job, file } = await renderThroughApi(composite, compositeKey, outputs, 'rotated', request, 180_000);
    expect(await diagnostics(databases[0], job.id)).toMatchObject({
      render_path: 'browser', frames_total: 30, frames_drawn: 30, media_fallback: 'video element 1 is rotated',
    });
    const video = (await probe(file)).streams.find((stream) => stream.codec_type === 'video')!;
    expect(video.nb_read_frames).toBe('30');
  }, 180_000);
});

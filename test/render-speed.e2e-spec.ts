import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { ffmpeg, Frame, frameAt, framesOf, lavfiImage, near, probe, volumeDb } from './helpers/media';
import { withRenderApp } from './helpers/render-app';

/** The left edge of the white bar on a 320-wide black frame, on its middle row; -1 without it. */
const barAt = (frame: Frame) => Array.from({ length: 320 }, (_, x) => x).find((x) => frame.at(x, 90)[0] > 128) ?? -1;

/** A 320x180 request: a white bar 10 px wide gliding from x 0 to 290 in its first `glide` seconds. */
const glidingBar = (duration: number, { glide = 1, fps = 30 } = {}) => ({
  width: 320,
  height: 180,
  duration,
  frame_rate: fps,
  background_color: '#000000',
  custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0, x: 0 }, { offset: 1, x: 290 }] }] },
  elements: [{ type: 'shape', fill_color: '#ffffff', x: 5, y: '50%', width: 10, height: 180, motion: [{ custom: 'glide', time: 0, duration: glide, easing: 'linear' }] }],
});

/** The bar's first `count` frames: from the left edge, each `step` px (± 3) right of the one before (drawn in order). */
function expectGlidingForward(edges: number[], count = 30, step = 10): void {
  expect(edges[0]).toBeLessThanOrEqual(2);
  for (let index = 1; index < count; index++) {
    const moved = edges[index] - edges[index - 1];
    expect({ index, forward: moved >= Math.max(1, step - 3) && moved <= step + 3 }).toEqual({ index, forward: true });
  }
}

/**
 * Render paths chosen from the resolved timeline: a mostly still timeline is drawn once per
 * distinct frame and held by the encoder; a moving one goes through the browser frame by frame.
 * Both must give the same frame count, duration, pixels and sound as the request asks for.
 */
describe('render paths (through the REST API)', () => {
  const house = withRenderApp({
    name: 'speed',
    database: true,
    fixtures: async (dir) => {
      await lavfiImage(path.join(dir, 'red.png'), 'color=c=0xff0000:s=64x36');
      await lavfiImage(path.join(dir, 'green.png'), 'color=c=0x00ff00:s=64x36');
      await ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=3', path.join(dir, 'tone.wav'));
    },
  });
  const url = house.mediaUrl;

  const diagnostics = async (id: string) => (await house.db.query('SELECT diagnostics FROM jobs WHERE id = $1', [id])).rows[0].diagnostics;

  it('draws a slideshow once per distinct frame and holds it: exact frame count, pixels at probe times, continuous sound', async () => {
    const { job, file } = await house.render('slideshow', {
      width: 320,
      height: 180,
      elements: [
        { type: 'image', id: 'a', source_url: url('red.png'), track: 1, duration: 1.5 },
        { type: 'image', id: 'b', source_url: url('green.png'), track: 1, duration: 2 },
        { type: 'shape', fill_color: '#ffffff', x: 40, y: 20, width: 40, height: 20, time: 0.5, duration: 2 },
        { type: 'audio', source_url: url('tone.wav') },
      ],
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b', duration: 0.5 }],
    }, 120_000);
    // b starts 0.5 s before a ends: 3 s in all; the dissolve runs from 1.0 s to 1.5 s.
    const report = await diagnostics(job.id);
    // Its dissolve is mixed while x264 encodes: one tab draws (drawing_tabs).
    expect(report).toMatchObject({ render_path: 'held_frames', frames_total: 90, sound_path: 'ffmpeg', drawing_tabs: 1, stage_seconds: { draw: expect.any(Number), audio: expect.any(Number), encode: expect.any(Number) } });
    expect(report.frames_drawn).toBeLessThan(30);
    const probed = await probe(file);
    const video = probed.streams.find((stream) => stream.codec_type === 'video')!;
    expect({ frames: video.nb_read_frames, rate: video.r_frame_rate, pix: video.pix_fmt, range: video.color_range }).toEqual({
      frames: '90', rate: '30/1', pix: 'yuv420p', range: 'tv',
    });
    expect(Number(probed.format.duration)).toBeCloseTo(3, 1);
    const samples: [number, number[], number[]][] = [
      // seconds, background pixel, where the white box is (or is not)
      [0.2, [255, 0, 0], [255, 0, 0]],
      [0.8, [255, 0, 0], [255, 255, 255]],
      [2.0, [0, 255, 0], [255, 255, 255]],
      [2.8, [0, 255, 0], [0, 255, 0]],
    ];
    for (const [seconds, background, boxed] of samples) {
      const frame = await frameAt(file, seconds);
      expect({ seconds, background: near(frame.at(200, 120), background, 16), box: near(frame.at(40, 20), boxed, 16) }).toEqual({ seconds, background: true, box: true });
    }
    // Mid-dissolve (1.25 s): both pictures show through.
    const middle = (await frameAt(file, 1.25)).at(200, 120);
    expect(middle[0]).toBeGreaterThan(60);
    expect(middle[1]).toBeGreaterThan(60);
    // The tone plays from start to end without a gap.
    for (let second = 0; second < 3; second += 0.5) {
      expect({ second, loud: (await volumeDb(file, second + 0.05, second + 0.45)).mean > -30 }).toEqual({ second, loud: true });
    }
  }, 180_000);

  it('draws the moving part of a mostly still timeline in order, on one tab (a second would not repay its opening), and holds the rest', async () => {
    // The bar glides for the first second of two, then stays: 30-odd frames drawn, then held.
    const { job, file } = await house.render('moving-then-still', glidingBar(2), 120_000);
    const report = await diagnostics(job.id);
    expect(report).toMatchObject({ render_path: 'held_frames', frames_total: 60, drawing_tabs: 1 });
    expect(report.frames_drawn).toBeGreaterThanOrEqual(30);
    expect(report.frames_drawn).toBeLessThan(40);
    const edges = (await framesOf(file)).map(barAt);
    expect(edges).toHaveLength(60);
    expectGlidingForward(edges);
    expect(new Set(edges.slice(30))).toEqual(new Set([290]));
  }, 180_000);

  it('draws every frame in the browser when something moves all the time, in order with several tabs', async () => {
    // A white bar glides 2 px a frame for 150 frames (enough to repay a second tab): each frame
    // must show it right of where the frame before did, whichever tab drew it.
    const { job, file } = await house.render('moving', glidingBar(2.5, { glide: 2.5, fps: 60 }), 120_000);
    // Tabs as many as the machine's cores (RENDER_TABS' default), at most two here.
    expect(await diagnostics(job.id)).toMatchObject({ render_path: 'browser', frames_total: 150, frames_drawn: 150, drawing_tabs: Math.min(2, availableParallelism()) });
    const frames = await framesOf(file);
    expect(frames).toHaveLength(150);
    const edges = frames.map(barAt);
    expect(edges[149]).toBeGreaterThanOrEqual(280);
    expectGlidingForward(edges, 150, 2);
  }, 180_000);
});

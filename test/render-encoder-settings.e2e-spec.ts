import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { distinctPictureCrf } from '../src/renders/engine/strategies/held-frames/blended-frames-encoder';
import { pixelAt, probe } from './helpers/media';
import { withRenderApp } from './helpers/render-app';

const run = promisify(execFile);

/** The settings x264 wrote into the stream (its SEI: "x264 - core … options: ref=1 … crf=18.0 …"). */
function x264Settings(file: string): Record<string, string> {
  const text = readFileSync(file).toString('latin1');
  const options = /x264 - core \d+[^\0]*?options: ([^\0]*)/.exec(text)?.[1] ?? '';
  return Object.fromEntries(options.split(' ').map((pair) => pair.split('=') as [string, string]));
}

/**
 * RENDER_X264_PRESET and RENDER_X264_CRF reach x264 on every H.264 path: the browser's (Remotion's
 * encoder), held frames, blended fades and the media composite (the service's own ffmpeg calls).
 * `veryfast` is told apart from the default `medium` by the settings x264 records in the stream
 * (one reference frame, sub-pixel refinement 2, hexagon search), CRF 23 from the default 18; the
 * pictures are right.
 */
describe('x264 preset and CRF settings (through the REST API)', () => {
  const house = withRenderApp({
    name: 'preset',
    env: { RENDER_X264_PRESET: 'veryfast', RENDER_X264_CRF: '23', RENDER_COMPOSITE_MEDIA: 'true' },
    fixtures: async (dir) => {
      // Colour bars for the composite case: drawn by ffmpeg into a box of its own size.
      await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'smptebars=size=160x90:rate=30:duration=2', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', path.join(dir, 'bars.mp4')]);
    },
  });

  const base = { width: 320, height: 180, duration: 1, frame_rate: 30, background_color: '#102030' };
  const box = { type: 'shape', fill_color: '#ffcc00', x: 20, y: 60, width: 60, height: 60 };
  const bars = () => ({ type: 'video', source_url: `${house.media.url}/bars.mp4`, x: 160, y: 60, width: 160, height: 90, x_anchor: 0, y_anchor: 0 });
  const cases: [string, () => Record<string, unknown>, Record<string, unknown>][] = [
    ['browser', () => ({ ...base, custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0, x: 20 }, { offset: 1, x: 24 }] }] }, elements: [{ ...box, motion: [{ custom: 'glide', time: 0, duration: 1, easing: 'linear' }] }] }), { render_path: 'browser' }],
    ['held', () => ({ ...base, elements: [box] }), { render_path: 'held_frames' }],
    ['blended', () => ({ ...base, elements: [box, { type: 'text', text: 'Hi', x: 200, y: 60, width: 100, height: 60, font_size: 40, fill_color: '#ffffff', fade_in_duration: 0.5 }] }), { render_path: 'held_frames' }],
    ['composite', () => ({ ...base, elements: [box, bars()] }), { render_path: 'media_composite' }],
  ];

  it.each(cases)('%s path: veryfast settings and CRF 23 in the stream, the box where it belongs', async (name, request, path_) => {
    const { job, file } = await house.render(name, request());
    const [{ diagnostics }] = await house.app.running.app.get(DataSource).query('SELECT diagnostics FROM jobs WHERE id = $1', [job.id]);
    expect(diagnostics).toMatchObject(path_);
    if (name === 'blended') expect(diagnostics.frames_blended).toBeGreaterThan(0);
    const settings = x264Settings(file);
    // The blended path's x264 sees only distinct pictures and runs that many steps lower (blended-frames.ts).
    const crf = name === 'blended' ? distinctPictureCrf(23) : 23;
    expect({ ref: settings.ref, subme: settings.subme, me: settings.me, crf: settings.crf }).toEqual({ ref: '1', subme: '2', me: 'hex', crf: crf.toFixed(1) });
    const video = (await probe(file)).streams.find((stream) => stream.codec_type === 'video')!;
    expect({ frames: video.nb_read_frames, width: video.width, height: video.height }).toEqual({ frames: '30', width: 320, height: 180 });
    const [r, g, b] = await pixelAt(file, 0.5, 22, 60); // x and y place the box's centre
    expect(Math.abs(r - 0xff)).toBeLessThanOrEqual(12);
    expect(Math.abs(g - 0xcc)).toBeLessThanOrEqual(12);
    expect(b).toBeLessThanOrEqual(24);
    await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'null', '-']); // decodes cleanly
  }, 120_000);
});

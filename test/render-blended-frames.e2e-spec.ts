import * as path from 'node:path';
import type { Client } from 'pg';
import { compareFrames } from './corpus/compare';
import { ffmpeg, framesOf, probe } from './helpers/media';
import { withRenderApps } from './helpers/render-app';

/**
 * Held renders with RENDER_BLEND_FADES: the frames of a cross-dissolve and of a title's fades are
 * mixed from a few drawn corner frames, and (RENDER_SKIP_PICTURES) x264 encodes each distinct frame
 * once, the repeats written as skip pictures. The same request with both settings off (every fading
 * frame drawn by the browser, every frame encoded by x264 with the preset's own settings) is the
 * reference: same frames, duration and format, every frame pair close.
 */
describe('blended frames (through the REST API)', () => {
  const { files, apps } = withRenderApps({
    name: 'blend',
    fixtures: async (dir) => {
      // Two pictures like photographs (colour gradients, two boxes, softened edges); the second one
      // mirrored with its hues turned half way round.
      const picture = 'gradients=s=320x180:c0=0x2040a0:c1=0xe0c060:c2=0x30a050:n=3:seed=7:speed=0.05';
      const boxes = 'drawbox=x=40:y=30:w=80:h=60:color=0xd02020:t=fill,drawbox=x=200:y=50:w=60:h=90:color=0xf0f0f0:t=fill,gblur=sigma=2';
      for (const [name, turn] of [['a.png', 'null'], ['b.png', 'hue=h=180,hflip']] as const) {
        await ffmpeg('-f', 'lavfi', '-i', picture, '-vf', `${boxes},${turn},format=rgb24`, '-frames:v', '1', path.join(dir, name));
      }
    },
    // x264 at CRF 1 on both: the comparison measures the drawing and the mixing, not two encoder
    // configurations' noise (at CRF 18, the reference's B-frames and this path's P pictures alone
    // put 1.0 % of a fading frame's pixels more than 8/255 apart).
    apps: {
      blended: { env: { RENDER_X264_CRF: '1', RENDER_BLEND_FADES: 'true' }, database: true },
      drawn: { env: { RENDER_X264_CRF: '1', RENDER_BLEND_FADES: 'false', RENDER_SKIP_PICTURES: 'false' }, database: true },
    },
    timeoutMs: 240_000,
  });
  const url = files.mediaUrl;

  const diagnostics = async (db: Client, id: string) => (await db.query('SELECT diagnostics FROM jobs WHERE id = $1', [id])).rows[0].diagnostics;

  // a (1.2 s) dissolves into b over 0.4 s: 2 s in all, the dissolve from frame 24 to 36. The title
  // fades in from 0.6 s to 1.0 s, across the dissolve (two factors at once), and out from 1.4 s to
  // 1.8 s (frames 42 to 54) between two still pictures: a fade the decoder mixes.
  const request = () => ({
    width: 320,
    height: 180,
    elements: [
      { type: 'image', id: 'a', source_url: url('a.png'), track: 1, duration: 1.2 },
      { type: 'image', id: 'b', source_url: url('b.png'), track: 1, duration: 1.2 },
      {
        type: 'text', text: 'A fading title', time: 0.6, duration: 1.2, fade_in_duration: 0.4, fade_out_duration: 0.4,
        x: '50%', y: '85%', font_size: 14, fill_color: '#ffffff',
      },
    ],
    transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b', duration: 0.4 }],
  });

  it('mixes the fading frames from drawn corners, matching every frame drawn by the browser', async () => {
    const [fast, reference] = await Promise.all([
      apps.blended.render('blended', request(), 180_000),
      apps.drawn.render('drawn', request(), 180_000),
    ]);
    const fastReport = await diagnostics(apps.blended.db, fast.job.id);
    const referenceReport = await diagnostics(apps.drawn.db, reference.job.id);
    expect(fastReport).toMatchObject({ render_path: 'held_frames', frames_total: 60, frames_blended: expect.any(Number), frames_skipped: expect.any(Number) });
    expect(referenceReport).toMatchObject({ render_path: 'held_frames', frames_total: 60, frames_blended: 0, frames_skipped: 0 });
    // Still stretches before the fade-in (frames 0-17), between the dissolve and the fade-out (36-41)
    // and after it (54-59): x264 encodes one frame of each. The fade-out's frames are the decoder's.
    expect(fastReport.frames_skipped).toBeGreaterThanOrEqual(17 + 5 + 5);
    expect(fastReport.frames_faded).toBeGreaterThanOrEqual(11);
    // Dissolve and fade-in together (4 corners), the fade out (2), the still frames around them.
    expect(fastReport.frames_blended).toBeGreaterThanOrEqual(20);
    expect(fastReport.frames_drawn).toBeLessThan(12);
    expect(referenceReport.frames_drawn).toBeGreaterThan(25);

    for (const file of [fast.file, reference.file]) {
      const probed = await probe(file);
      const video = probed.streams.find((stream) => stream.codec_type === 'video')!;
      expect({ frames: video.nb_read_frames, rate: video.r_frame_rate, pix: video.pix_fmt, range: video.color_range, codec: video.codec_name }).toEqual({
        frames: '60', rate: '30/1', pix: 'yuv420p', range: 'tv', codec: 'h264',
      });
      expect(Number(probed.format.duration)).toBeCloseTo(2, 1);
    }

    const [fastFrames, referenceFrames] = await Promise.all([framesOf(fast.file), framesOf(reference.file)]);
    expect(fastFrames.length).toBe(60);
    expect(referenceFrames.length).toBe(60);
    // A skip picture is the frame before it again, bit for bit: the output changes only where x264 had a frame or a fade.
    const changes = fastFrames.filter((frame, index) => index === 0 || !frame.data.equals(fastFrames[index - 1].data)).length;
    expect(changes).toBeLessThanOrEqual(60 - fastReport.frames_skipped);
    const shares = fastFrames.map((frame, index) => compareFrames(frame, referenceFrames[index], 8).overShare);
    // The mixed frames differ from the drawn ones in at most 0.5 % of pixels by more than 8/255 (measured 0.43 %; the
    // JPEG capture of each drawn frame), and sit closer to the exact mix of the two pictures.
    expect(Math.max(...shares)).toBeLessThanOrEqual(0.01);

    // Mid-dissolve (frame 30, progress 0.5), above the title: half of a (frame 10) and half of b (frame 50).
    for (const frames of [fastFrames, referenceFrames]) {
      for (const [x, y] of [[40, 30], [160, 60], [280, 100]]) {
        const expected = frames[10].at(x, y).map((value, channel) => (value + frames[50].at(x, y)[channel]) / 2);
        const actual = frames[30].at(x, y);
        expect({ x, y, near: actual.every((value, channel) => Math.abs(value - expected[channel]) <= 10) }).toEqual({ x, y, near: true });
      }
    }
    // The two pictures differ where probed, so the mix is a real one.
    expect(fastFrames[10].at(160, 60)).not.toEqual(fastFrames[50].at(160, 60));
  }, 300_000);
});

import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Frame, lavfiImage, near } from './helpers/media';
import { withRenderApp } from './helpers/render-app';

const run = promisify(execFile);

/**
 * Stills drawn on the worker's warm tab (RENDER_WARM_STILLS, the default) against Remotion's
 * renderStill: the same pixels, the stage seconds recorded on the job, and no trace of an earlier
 * request on the reused tab.
 */
describe('stills on the warm tab (through the REST API)', () => {
  const house = withRenderApp({
    name: 'stills',
    database: true,
    fixtures: async (dir) => {
      await lavfiImage(path.join(dir, 'blue.png'), 'color=c=0x0000ff:s=64x36');
      await lavfiImage(path.join(dir, 'yellow.png'), 'color=c=0xffff00:s=64x36');
    },
  });
  const url = house.mediaUrl;

  const diagnostics = async (id: string) => (await house.db.query('SELECT diagnostics FROM jobs WHERE id = $1', [id])).rows[0].diagnostics;

  /** A small scene with every kind the tab must draw: background, shape, picture, text. */
  const scene = (format: 'png' | 'jpg', title: string) => ({
    width: 320,
    height: 180,
    output_format: format,
    background_color: '#204060',
    elements: [
      { type: 'shape', x: 240, y: 40, width: 60, height: 40, x_anchor: '0%', y_anchor: '0%', fill_color: '#ff0000' },
      { type: 'image', source_url: url('blue.png'), x: 20, y: 40, width: 80, height: 60, x_anchor: '0%', y_anchor: '0%' },
      { type: 'text', text: title, x: '50%', y: 150, font_size: 24, fill_color: '#ffffff', font_family: 'Roboto' },
    ],
  });

  /** The still's pixels (frameAt seeks, which a single JPEG does not survive). */
  const imageOf = async (file: string): Promise<Frame> => {
    const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 });
    const data = stdout as unknown as Buffer;
    expect(data.length).toBe(320 * 180 * 3);
    return { width: 320, height: 180, data, at: (x, y) => [data[(y * 320 + x) * 3], data[(y * 320 + x) * 3 + 1], data[(y * 320 + x) * 3 + 2]] };
  };

  /** Largest difference of any channel of any pixel between two frames of one size. */
  const maxDifference = (a: Frame, b: Frame) => {
    expect([a.width, a.height]).toEqual([b.width, b.height]);
    let max = 0;
    for (let i = 0; i < a.data.length; i++) max = Math.max(max, Math.abs(a.data[i] - b.data[i]));
    return max;
  };

  /** Pixels of the text's band that are close to white. */
  const whiteInBand = (frame: Frame) => {
    let white = 0;
    for (let y = 135; y < 165; y++) for (let x = 60; x < 260; x++) if (near(frame.at(x, y), [255, 255, 255], 60)) white++;
    return white;
  };

  it('draws the same pixels as renderStill (png and jpg) and records each stage in seconds', async () => {
    for (const format of ['png', 'jpg'] as const) {
      house.config.render.warmStills = true;
      const warm = await house.render(`warm-${format}`, scene(format, 'Same pixels'));
      house.config.render.warmStills = false;
      const cold = await house.render(`cold-${format}`, scene(format, 'Same pixels'));
      house.config.render.warmStills = true;
      expect((await diagnostics(warm.job.id)).still_path).toBe('warm_page');
      expect((await diagnostics(cold.job.id)).still_path).toBe('render_still');
      const [warmFrame, coldFrame] = [await imageOf(warm.file), await imageOf(cold.file)];
      const probes = {
        background: near(warmFrame.at(160, 20), [0x20, 0x40, 0x60], 8),
        shape: near(warmFrame.at(270, 60), [255, 0, 0], 8),
        picture: near(warmFrame.at(60, 70), [0, 0, 255], 8),
        text: whiteInBand(warmFrame) > 50,
      };
      expect({ format, ...probes }).toEqual({ format, background: true, shape: true, picture: true, text: true });
      // Same browser, same page set-up: png is identical, jpg within the encoder's rounding.
      expect({ format, difference: maxDifference(warmFrame, coldFrame) <= (format === 'png' ? 0 : 4) }).toEqual({ format, difference: true });
    }

    const { job } = await house.render('timed', scene('png', 'Timed'));
    const report = await diagnostics(job.id);
    const stage = expect.any(Number);
    expect(report).toMatchObject({ render_path: 'still', still_path: 'warm_page', pipeline_seconds: { queue: stage, inputs: stage, prepare: stage, draw: stage, upload: stage } });
    for (const seconds of Object.values(report.pipeline_seconds as Record<string, number>)) expect(seconds).toBeGreaterThanOrEqual(0);
  }, 240_000);

  it('shows nothing of the previous request: after a video of another scene, and on the reused tab after a still with more elements', async () => {
    // A video of another scene runs through the same browser first (it closes the warm tab; the
    // next still opens it again), then two stills of different requests share the tab.
    await house.render('between', {
      width: 320, height: 180, duration: 1, background_color: '#00ff00',
      elements: [{ type: 'text', text: 'VIDEO', x: '50%', y: 150, font_size: 40, fill_color: '#ffffff' }],
    }, 120_000);
    const first = await house.render('first', {
      ...scene('png', 'First title'),
      elements: [...scene('png', 'First title').elements, { type: 'image', source_url: url('yellow.png'), x: 120, y: 40, width: 80, height: 60, x_anchor: '0%', y_anchor: '0%' }],
    });
    const second = await house.render('second', {
      width: 320, height: 180, output_format: 'png', background_color: '#602040',
      elements: [{ type: 'shape', x: 20, y: 40, width: 80, height: 60, x_anchor: '0%', y_anchor: '0%', fill_color: '#00ffff' }],
    });
    for (const { job } of [first, second]) expect((await diagnostics(job.id)).still_path).toBe('warm_page');
    const [firstFrame, secondFrame] = [await imageOf(first.file), await imageOf(second.file)];
    expect({
      yellowPicture: near(firstFrame.at(160, 70), [255, 255, 0], 8),
      bluePicture: near(firstFrame.at(60, 70), [0, 0, 255], 8),
      title: whiteInBand(firstFrame) > 50,
    }).toEqual({ yellowPicture: true, bluePicture: true, title: true });
    // The second request has no picture, no red box and no title: its background shows there.
    expect({
      whereYellowWas: near(secondFrame.at(160, 70), [0x60, 0x20, 0x40], 8),
      whereRedWas: near(secondFrame.at(270, 60), [0x60, 0x20, 0x40], 8),
      ownShape: near(secondFrame.at(60, 70), [0, 255, 255], 8),
      noTitle: whiteInBand(secondFrame),
    }).toEqual({ whereYellowWas: true, whereRedWas: true, ownShape: true, noTitle: 0 });
  }, 240_000);
});

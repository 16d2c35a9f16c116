import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { BlendedFrames } from '../../../../../composition/src/schema';
import { BlendedFramesEncoder, mixPictures } from './blended-frames-encoder';
import { writeFrameList } from '../../encode/frame-list';

const run = promisify(execFile);

describe('mixPictures', () => {
  it('weighs each picture and rounds to the nearest value', () => {
    const black = Uint8Array.from([16, 16, 128, 0]);
    const white = Uint8Array.from([235, 17, 128, 255]);
    expect([...mixPictures([{ picture: black, weight: 0.75 }, { picture: white, weight: 0.25 }], 4)]).toEqual([71, 16, 128, 64]);
    const four = [10, 20, 30, 40].map((value) => Uint8Array.from([value]));
    expect([...mixPictures(four.map((picture) => ({ picture, weight: 0.25 })), 1)]).toEqual([25]);
  });
});

describe('BlendedFramesEncoder', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'vrs-blended-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** A flat grey JPEG (full-range value `level`), as the page's capture would give. */
  async function greyJpeg(level: number): Promise<Buffer> {
    const file = path.join(work, `grey${level}.jpeg`);
    const hex = level.toString(16).padStart(2, '0');
    await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `color=c=0x${hex}${hex}${hex}:s=32x16`, '-frames:v', '1', '-q:v', '2', file]);
    return readFileSync(file);
  }

  async function lumaOfFrames(file: string): Promise<number[]> {
    const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', file, '-vf', 'crop=8:8:12:4', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'], { encoding: 'buffer' });
    const bytes = stdout as unknown as Buffer;
    return Array.from({ length: bytes.length / 64 }, (_, frame) => bytes.subarray(frame * 64, frame * 64 + 64).reduce((sum, value) => sum + value, 0) / 64);
  }

  it.each([
    ['every frame through x264', false, { encoded: 7, skipped: 0, faded: 0 }],
    // x264: the black picture (frames 0..2: the drawn corner equals the frame before it) and the white one; the fade is the decoder's.
    ['skip pictures', true, { encoded: 2, skipped: 3, faded: 2 }],
  ])('%s: encodes every output frame: held, mixed between its corners, in order, whatever order the frames are drawn in', async (name, skipPictures, encoding) => {
    // Drawn: 0 (black, held 2), 2 and 3 (the corners: black and white); frames 2..5 fade in thirds; 6 holds white.
    const plan: BlendedFrames = {
      durationInFrames: 7,
      frames: [0, 2, 3],
      fixedOpacity: [],
      runs: [
        { mix: [{ drawn: 0, weight: 1 }], hold: 2 },
        { mix: [{ drawn: 1, weight: 1 }], hold: 1 },
        { mix: [{ drawn: 1, weight: 2 / 3 }, { drawn: 2, weight: 1 / 3 }], hold: 1 },
        { mix: [{ drawn: 1, weight: 1 / 3 }, { drawn: 2, weight: 2 / 3 }], hold: 1 },
        { mix: [{ drawn: 2, weight: 1 }], hold: 2 },
      ],
      blended: 2,
    };
    const [black, white] = await Promise.all([greyJpeg(0), greyJpeg(255)]);
    const output = path.join(work, `blended-${skipPictures}.mp4`);
    const encoder = new BlendedFramesEncoder(plan, { width: 32, height: 16, fps: 30, outputPath: output, skipPictures }, new AbortController().signal);
    encoder.addDrawn(3, white);
    encoder.addDrawn(0, black);
    encoder.addDrawn(2, black);
    expect(await encoder.done()).toEqual(encoding);
    const luma = await lumaOfFrames(output);
    // Decoded to full range: the mixed frames a third and two thirds of the way from black to white.
    const expected = [0, 0, 0, 85, 170, 255, 255];
    expect(luma.length).toBe(7);
    expect(luma.map((value, frame) => Math.abs(value - expected[frame]) <= 2)).toEqual(expected.map(() => true));
  });

  it.each([
    // The picture faded into is x264's picture 249 (counting from 0): the decoder mixes the fade.
    [249, { faded: 1, encoded: 250 }, [0]],
    // It would be picture 250, an IDR, which would drop the picture before: x264 encodes the fade.
    [250, { faded: 0, encoded: 252 }, [0, 250]],
  ])('skip pictures: after %i alternating pictures, a fade is the decoder\'s unless its picture would be an IDR', async (before, expected, keyframes) => {
    // Runs: `before` pictures alternating black and white (each drawn), then a half-way fade from the last into grey, then grey.
    const frames = Array.from({ length: before + 1 }, (_, index) => index);
    const runs: BlendedFrames['runs'] = frames.slice(0, before).map((drawn) => ({ mix: [{ drawn, weight: 1 }], hold: 1 }));
    runs.push({ mix: [{ drawn: before - 1, weight: 0.5 }, { drawn: before, weight: 0.5 }], hold: 1 }, { mix: [{ drawn: before, weight: 1 }], hold: 2 });
    const plan: BlendedFrames = { durationInFrames: before + 3, frames, fixedOpacity: [], runs, blended: 1 };
    const [black, white, grey] = await Promise.all([greyJpeg(0), greyJpeg(255), greyJpeg(128)]);
    const output = path.join(work, `keyframe-${before}.mp4`);
    const encoder = new BlendedFramesEncoder(plan, { width: 32, height: 16, fps: 30, outputPath: output, skipPictures: true }, new AbortController().signal);
    frames.forEach((frame) => encoder.addDrawn(frame, frame === before ? grey : frame % 2 === 0 ? black : white));
    expect(await encoder.done()).toMatchObject(expected);
    const luma = await lumaOfFrames(output);
    const last = (before - 1) % 2 === 0 ? 0 : 255;
    const expectedLuma = [...frames.slice(0, before).map((frame) => (frame % 2 === 0 ? 0 : 255)), (last + 128) / 2, 128, 128];
    expect(luma.length).toBe(expectedLuma.length);
    expect(luma.map((value, frame) => Math.abs(value - expectedLuma[frame]) <= 3)).toEqual(expectedLuma.map(() => true));
    // x264 made exactly every 250th of its pictures an IDR (the frames shown at these places).
    const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'packet=pts,flags', '-of', 'csv=p=0', output]);
    const keys = stdout.trim().split('\n').map((line) => line.split(',')).filter(([, flags]) => flags.startsWith('K')).map(([pts]) => Number(pts) / 3000);
    expect(keys).toEqual(keyframes);
  }, 60_000);

  it('fails when a drawn frame never arrives', async () => {
    const plan: BlendedFrames = { durationInFrames: 2, frames: [0, 1], fixedOpacity: [], runs: [{ mix: [{ drawn: 0, weight: 0.5 }, { drawn: 1, weight: 0.5 }], hold: 2 }], blended: 2 };
    const encoder = new BlendedFramesEncoder(plan, { width: 32, height: 16, fps: 30, outputPath: path.join(work, 'missing.mp4') }, new AbortController().signal);
    encoder.addDrawn(1, await greyJpeg(255));
    await expect(encoder.done()).rejects.toThrow('Only 0 of 2 drawn frames reached the encoder');
  });
});

describe('writeFrameList', () => {
  it('stamps each picture at the render frame rate, so one-frame pictures all survive', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'vrs-held-'));
    try {
      const frames = [];
      for (let index = 0; index < 12; index++) {
        const file = path.join(work, `${index}.jpeg`);
        const hex = (index * 20).toString(16).padStart(2, '0');
        await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `color=c=0x${hex}${hex}${hex}:s=32x16`, '-frames:v', '1', '-q:v', '2', file]);
        frames.push({ file, hold: index === 5 ? 3 : 1 });
      }
      const list = path.join(work, 'list.txt');
      await writeFrameList(list, frames, 30);
      const { stdout } = await run('ffmpeg', ['-v', 'error', '-f', 'concat', '-safe', '0', '-i', list, '-vf', 'fps=30,crop=8:8:12:4,scale=1:1', '-frames:v', '14', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'], { encoding: 'buffer' });
      const levels = [...(stdout as unknown as Buffer)].map((value) => Math.round(value / 20));
      expect(levels).toEqual([0, 1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 9, 10, 11]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

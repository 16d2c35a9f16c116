import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import puppeteer from 'puppeteer-core';
import { loadConfig } from '../../../config/app-config';
import { FADABLE_X264_PARAMS, HOLDABLE_X264_PARAMS, holdableX264Params, spliceHeldFrames, type SplicedPicture } from './h264-holds';
import { splitAnnexB } from './h264-bits';
import { muxHeldPictures } from '../strategies/held-frames/held-encoding';

const run = promisify(execFile);

describe('spliceHeldFrames', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'vrs-h264-holds-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const [width, height] = [64, 48];
  const frameBytes = (width * height * 3) / 2;

  /** Six different detailed pictures through x264 as Annex B; `extra`: more encoder options. */
  async function encode(name: string, extra: string[]): Promise<Buffer> {
    const file = path.join(work, `${name}.h264`);
    // Each picture's hue turned further: all six clearly different.
    await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=s=${width}x${height}:r=30,hue=h=n*50`, '-frames:v', '6', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', ...extra, '-f', 'h264', file]);
    return readFileSync(file);
  }

  async function decode(file: string, format: string[] = []): Promise<Buffer[]> {
    // -xerror: any error in the stream fails the decode instead of being concealed.
    const { stdout } = await run('ffmpeg', ['-v', 'error', '-xerror', ...format, '-i', file, '-fps_mode', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-'], { encoding: 'buffer', maxBuffer: 1 << 30 });
    return Array.from({ length: stdout.length / frameBytes }, (_, frame) => stdout.subarray(frame * frameBytes, (frame + 1) * frameBytes));
  }

  it.each([
    // CABAC, weighted prediction, a keyframe (IDR with its parameter sets again) every third picture
    ['medium', ['-preset', 'medium', '-crf', '18', '-g', '3']],
    // CAVLC, no weighted prediction
    ['ultrafast', ['-preset', 'ultrafast', '-crf', '18']],
  ])('%s: each picture shown its holds, the repeats bit-identical to it, the stream decoding without error', async (name, extra) => {
    const holds = [3, 1, 4, 2, 1, 5];
    const encoded = await encode(name, [...extra, '-x264-params', holdableX264Params(holds)]);
    const original = await decode(path.join(work, `${name}.h264`), ['-f', 'h264']);
    expect(original).toHaveLength(6);
    expect(new Set(original.map((frame) => frame.toString('base64'))).size).toBe(6);
    // x264 took the settings (its SEI lists them).
    const options = encoded.toString('latin1');
    for (const option of [' ref=1 ', ' bframes=0 ', ' zones=0,0,b=2/1,1,b=1.2/2,2,b=2/3,3,b=2/4,4,b=1.2/5,5,b=2']) expect(options).toContain(option);
    const output = path.join(work, `${name}.mp4`);
    await muxHeldPictures(encoded, holds.map((hold) => ({ hold })), 30, output, new AbortController().signal);
    const frames = await decode(output);
    const expected = holds.flatMap((hold, picture) => Array.from({ length: hold }, () => original[picture]));
    expect(frames).toHaveLength(expected.length);
    frames.forEach((frame, index) => expect(frame.equals(expected[index])).toBe(true));

    // The container: every frame one tick of 1/30 s apart, the duration exact.
    const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'packet=pts,duration:stream=time_base,r_frame_rate,duration', '-of', 'json', output]);
    const probed = JSON.parse(stdout) as { packets: { pts: number; duration: number }[]; streams: { time_base: string; r_frame_rate: string; duration: string }[] };
    expect(probed.streams[0]).toMatchObject({ time_base: '1/90000', r_frame_rate: '30/1', duration: '0.533333' });
    expect(probed.packets.map((packet) => packet.pts)).toEqual(expected.map((_, index) => index * 3000));

    // A repeat costs a handful of bytes, not an encoded picture.
    const spliced = Buffer.concat(spliceHeldFrames(encoded, holds.map((hold) => ({ hold }))).map((unit) => unit.bytes));
    const repeats = holds.reduce((sum, hold) => sum + hold - 1, 0);
    expect(spliced.length - encoded.length).toBeLessThan(repeats * 16 + 64);
  }, 30_000);

  it.each([
    ['medium', ['-preset', 'medium', '-crf', '18']],
    ['ultrafast', ['-preset', 'ultrafast', '-crf', '18']],
  ])('%s: fading frames are the decoder\'s mix of the pictures before and after, to 1/128, and the repeats still copy', async (name, extra) => {
    const encoded = await encode(`fades-${name}`, [...extra, '-x264-params', FADABLE_X264_PARAMS]);
    const original = await decode(path.join(work, `fades-${name}.h264`), ['-f', 'h264']);
    const pictures: SplicedPicture[] = [
      { hold: 2 },
      { hold: 3, fadeIn: [0.25, 0.5, 0.75] },
      { hold: 1, fadeIn: [0.01] },
      { hold: 1 },
      { hold: 2, fadeIn: [0.1, 0.9, 0.999] },
      { hold: 1, fadeIn: [0.6] },
    ];
    const output = path.join(work, `fades-${name}.mp4`);
    await muxHeldPictures(encoded, pictures, 30, output, new AbortController().signal);
    const frames = await decode(output);
    const expected: Buffer[] = [];
    pictures.forEach(({ hold, fadeIn = [] }, index) => {
      for (const weight of fadeIn) {
        const after = Math.min(127, Math.max(1, Math.round(weight * 128)));
        expected.push(Buffer.from(original[index - 1].map((before, sample) => (before * (128 - after) + original[index][sample] * after + 64) >> 7)));
      }
      for (let copy = 0; copy < hold; copy++) expected.push(original[index]);
    });
    expect(frames).toHaveLength(expected.length);
    frames.forEach((frame, index) => expect(frame.equals(expected[index])).toBe(true));
    const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'packet=pts:stream=duration', '-of', 'json', output]);
    const probed = JSON.parse(stdout) as { packets: { pts: number }[]; streams: { duration: string }[] };
    expect(probed.packets.map((packet) => packet.pts).sort((a, b) => a - b)).toEqual(expected.map((_, index) => index * 3000));
    expect(Number(probed.streams[0].duration)).toBeCloseTo(expected.length / 30, 5);
  }, 30_000);

  it('plays in Chromium: seeking onto a repeat shows its picture, a fading frame the mix, and playback runs to the end', async () => {
    const encoded = await encode('browser', ['-preset', 'medium', '-crf', '18', '-x264-params', FADABLE_X264_PARAMS]);
    // Frames: picture 0 on 0..2, 1 on 3, 2 on 4..7, 3 on 8..9, a half-way fade on 10, 4 on 11, 5 on 12..16.
    const pictures: SplicedPicture[] = [{ hold: 3 }, { hold: 1 }, { hold: 4 }, { hold: 2 }, { hold: 1, fadeIn: [0.5] }, { hold: 5 }];
    await muxHeldPictures(encoded, pictures, 30, path.join(work, 'browser.mp4'), new AbortController().signal);
    const browser = await puppeteer.launch({ executablePath: loadConfig().render.browserExecutable, headless: true, pipe: true, args: ['--no-sandbox', '--allow-file-access-from-files', '--mute-audio'] });
    try {
      const page = await browser.newPage();
      await page.goto(`file://${work}/`);
      const seconds = [4, 5, 7, 8, 9, 10, 11, 12, 16].map((frame) => (frame + 0.5) / 30);
      const played = await page.evaluate(async (times: number[]) => {
        const video = document.createElement('video');
        video.muted = true;
        video.src = 'browser.mp4';
        await new Promise((resolve, reject) => {
          video.onloadeddata = resolve;
          video.onerror = () => reject(new Error(video.error?.message ?? 'no picture'));
        });
        const canvas = document.createElement('canvas');
        [canvas.width, canvas.height] = [video.videoWidth, video.videoHeight];
        const context = canvas.getContext('2d', { willReadFrequently: true })!;
        const pictures: number[][] = [];
        for (const time of times) {
          video.currentTime = time;
          await new Promise((resolve) => (video.onseeked = resolve));
          // Under load the picture can arrive after 'seeked': until then drawing leaves the canvas transparent.
          for (let tries = 0; tries < 100; tries++) {
            context.clearRect(0, 0, canvas.width, canvas.height);
            context.drawImage(video, 0, 0);
            if (context.getImageData(0, 0, 1, 1).data[3] === 255) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          pictures.push(Array.from(context.getImageData(0, 0, canvas.width, canvas.height).data));
        }
        video.currentTime = 0;
        await video.play();
        await new Promise((resolve, reject) => {
          video.onended = resolve;
          video.onerror = () => reject(new Error(video.error?.message ?? 'playback failed'));
        });
        return { duration: video.duration, pictures };
      }, seconds);
      expect(played.duration).toBeCloseTo(17 / 30, 3);
      const [start2, repeat2, last2, start3, last3, fade, picture4, start5, last5] = played.pictures.map((picture) => picture.join(','));
      expect(repeat2).toBe(start2);
      expect(last2).toBe(start2);
      expect(start3).not.toBe(start2);
      expect(last3).toBe(start3);
      expect(last5).toBe(start5);
      // The fading frame is neither neighbour; it is the one ffmpeg decodes there (the mix, exact in
      // YUV as the test above shows), as close as the held frames are to ffmpeg's.
      expect(fade).not.toBe(start3);
      expect(fade).not.toBe(picture4);
      const { stdout: rgba } = await run('ffmpeg', ['-v', 'error', '-i', path.join(work, 'browser.mp4'), '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'], { encoding: 'buffer', maxBuffer: 1 << 30 });
      const ffmpegFrame = (frame: number) => rgba.subarray(frame * width * height * 4, (frame + 1) * width * height * 4);
      const meanDifference = (chromium: number[], frame: number) => chromium.reduce((sum, value, index) => sum + Math.abs(value - ffmpegFrame(frame)[index]), 0) / chromium.length;
      const heldDifference = Math.max(meanDifference(played.pictures[3], 8), meanDifference(played.pictures[6], 11));
      expect(meanDifference(played.pictures[5], 10)).toBeLessThanOrEqual(heldDifference + 0.5);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('zones: a bitrate factor per held picture, one per run of pictures shown once', () => {
    expect(holdableX264Params([3, 1, 1, 1, 4, 2, 1, 5])).toBe('bframes=0:ref=1:zones=0,0,b=2/1,3,b=1.2/4,4,b=2/5,5,b=2/6,6,b=1.2/7,7,b=2');
    expect(holdableX264Params([1, 1])).toBe('bframes=0:ref=1:zones=0,1,b=1.2');
    expect(holdableX264Params([])).toBe(HOLDABLE_X264_PARAMS);
  });

  it('puts its own parameter set after each of the encoder\'s and numbers the pictures on', async () => {
    const encoded = await encode('numbered', ['-preset', 'medium', '-g', '3', '-x264-params', HOLDABLE_X264_PARAMS]);
    const nals = splitAnnexB(Buffer.concat(spliceHeldFrames(encoded, [1, 2, 1, 1, 3, 1].map((hold) => ({ hold }))).map((unit) => unit.bytes)));
    const types = nals.map((nal) => nal.type);
    // Two keyframes (pictures 0 and 3), each with SPS, PPS 0, then the skip pictures' PPS 1.
    expect(types.filter((type) => type === 8)).toHaveLength(4);
    expect(types.filter((type) => type === 5)).toHaveLength(2);
    expect(types.filter((type) => type === 1)).toHaveLength(4 + 3);
    types.forEach((type, index) => {
      if (type === 8 && nals[index - 1].type === 7) expect(types[index + 1]).toBe(8);
    });
  }, 30_000);

  it('refuses a stream with B-frames, whose order a repeat would break', async () => {
    const encoded = await encode('bframes', ['-preset', 'medium', '-x264-params', 'bframes=3:b-adapt=0']);
    expect(() => spliceHeldFrames(encoded, [1, 1, 1, 1, 1, 1].map((hold) => ({ hold })))).toThrow(/B-frames/);
  }, 30_000);

  it('refuses holds that do not match the pictures', async () => {
    const encoded = await encode('count', ['-preset', 'ultrafast', '-x264-params', HOLDABLE_X264_PARAMS]);
    expect(() => spliceHeldFrames(encoded, [1, 1, 1, 1, 1].map((hold) => ({ hold })))).toThrow(/more pictures than the 5 held runs/);
    expect(() => spliceHeldFrames(encoded, [1, 1, 1, 1, 1, 1, 1].map((hold) => ({ hold })))).toThrow(/6 pictures for 7 held runs/);
  }, 30_000);
});

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { fastGrade, gradeSettings } from '../../../../../composition/src/schema';
// The composition's own effect (React side, not in the entry): the test holds the ffmpeg grade against it.
import { applyFast } from '../../../../../composition/src/look/grade-effect';
import { bilinearOntoBox, compositeArgs, compositeRegions, gradeFilters, libyuvBt709, libyuvBt709Graph, pipedBelowTimestamps } from './composite-graph';
import { coverPlacement, sourceSampling, type CompositeClip, type CompositePlan } from '../../planner/composite-plan';
import { writeFrameList } from '../../encode/frame-list';
import { startFfmpeg } from '../../../../infra/media/media-runner';

const run = promisify(execFile);

/** Y, U, V of colour-bar pixels of a source → the RGB Chromium drew for them (PNG stills of a <Video>). */
const DRAWN: [number[], number[]][] = [
  [[35, 212, 114], [0, 11, 190]],
  [[84, 184, 198], [205, 30, 191]],
  [[65, 100, 212], [208, 19, 1]],
  [[180, 128, 128], [191, 191, 191]],
  [[162, 44, 142], [195, 181, 2]],
];

describe('bilinearOntoBox', () => {
  /** The box drawn from a 64x36 gradient source by the filter, against the page's bilinear sample at each box pixel's centre. */
  async function worstSample(box: { width: number; height: number }, placement: { x: number; y: number; width: number; height: number }, crop: { x: number; y: number; width: number; height: number }) {
    const source = { width: 64, height: 36 };
    const value = (x: number, y: number) => (x * 7 + y * 13) % 200;
    const { stdout } = await run('ffmpeg', [
      '-v', 'error', '-f', 'lavfi', '-i', `nullsrc=s=${source.width}x${source.height}:d=0.04,format=gbrp,geq=r='mod(X*7+Y*13,200)':g='mod(X*7+Y*13,200)':b='mod(X*7+Y*13,200)'`,
      '-frames:v', '1', '-vf', `crop=${crop.width}:${crop.height}:${crop.x}:${crop.y},${bilinearOntoBox(crop, source, placement, box)},format=gbrp`, '-f', 'rawvideo', 'pipe:1',
    ], { encoding: 'buffer' });
    const [sx, sy] = [source.width / placement.width, source.height / placement.height];
    let worst = 0;
    for (let j = 0; j < box.height; j++) {
      for (let i = 0; i < box.width; i++) {
        const [u, v] = [(i + 0.5 - placement.x) * sx - 0.5, (j + 0.5 - placement.y) * sy - 0.5];
        const [x, y] = [Math.floor(u), Math.floor(v)];
        const [a, b] = [u - x, v - y];
        const at = (px: number, py: number) => value(Math.min(source.width - 1, Math.max(0, px)), Math.min(source.height - 1, Math.max(0, py)));
        const expected = (1 - a) * (1 - b) * at(x, y) + a * (1 - b) * at(x + 1, y) + (1 - a) * b * at(x, y + 1) + a * b * at(x + 1, y + 1);
        // gbrp stores green first; all planes are the same here.
        worst = Math.max(worst, Math.abs(stdout[j * box.width + i] - expected));
      }
    }
    return worst;
  }

  it('samples the whole source bilinearly at each box pixel\'s centre, as the page draws a reduced clip', async () => {
    const whole = { x: 0, y: 0, width: 64, height: 36 };
    for (const box of [{ width: 48, height: 27 }, { width: 25, height: 14 }, { width: 16, height: 9 }]) {
      expect({ box, close: (await worstSample(box, { x: 0, y: 0, ...box }, whole)) <= 1 }).toEqual({ box, close: true });
    }
  });

  it('samples a cover-cropped source from the rows and columns it needs, as the page lays it out', async () => {
    const source = { width: 64, height: 36 };
    for (const box of [{ width: 30, height: 30 }, { width: 50, height: 20 }, { width: 21, height: 13 }]) {
      const placement = coverPlacement(box, source);
      const sampling = sourceSampling(box, source, placement);
      if (typeof sampling === 'string') throw new Error(sampling);
      expect({ box, close: (await worstSample(box, placement, sampling.crop)) <= 1 }).toEqual({ box, close: true });
    }
  });
});

describe('libyuvBt709', () => {
  it('converts as Chromium drew these colour-bar pixels, blue clamped to 2.0 (swscale gives 0, 11, 199 for the blue bar)', () => {
    expect(DRAWN.map(([[y, u, v]]) => libyuvBt709(y, u, v))).toEqual(DRAWN.map(([, rgb]) => rgb));
  });

  it('is what the filter graph computes, for every U and V at a few luma levels', async () => {
    // A 256x256 4:4:4 frame per luma level: U along x, V along y.
    const levels = [0, 16, 35, 84, 128, 180, 235, 255];
    const width = 256;
    const frames = Buffer.concat(levels.map((y) => {
      const planes = Buffer.alloc(3 * width * width);
      planes.fill(y, 0, width * width);
      for (let v = 0; v < width; v++) for (let u = 0; u < width; u++) {
        planes[width * width + v * width + u] = u;
        planes[2 * width * width + v * width + u] = v;
      }
      return planes;
    }));
    const folder = mkdtempSync(path.join(tmpdir(), 'libyuv-'));
    try {
      const input = path.join(folder, 'in.yuv');
      writeFileSync(input, frames);
      const graph = ['[0:v]extractplanes=y+u+v[y][u][v]', ...libyuvBt709Graph('y', 'u', 'v', 'out', 'c')].join(';');
      const { stdout } = await run('ffmpeg', ['-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'yuv444p', '-s', `${width}x${width}`, '-i', input, '-filter_complex', graph, '-map', '[out]', '-f', 'rawvideo', '-pix_fmt', 'gbrp', '-'], {
        encoding: 'buffer',
        maxBuffer: 64 * 1024 * 1024,
      });
      const out = stdout as unknown as Buffer;
      let mismatches = 0;
      levels.forEach((y, frame) => {
        const base = frame * 3 * width * width;
        for (let v = 0; v < width; v++) for (let u = 0; u < width; u++) {
          const at = v * width + u;
          const [r, g, b] = libyuvBt709(y, u, v);
          if (out[base + at] !== g || out[base + width * width + at] !== b || out[base + 2 * width * width + at] !== r) mismatches++;
        }
      });
      expect({ bytes: out.length, mismatches }).toEqual({ bytes: frames.length, mismatches: 0 });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('gradeFilters', () => {
  it('grades as the page does: the curves exactly, saturation and overlay within two levels', async () => {
    // Every 8-bit value in each channel, in differing combinations.
    const [width, height] = [256, 6];
    const rgb = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) [0, 1, 2].forEach((channel) => (rgb[(y * width + x) * 3 + channel] = (x * (channel + 1) + y * 40 * channel) % 256));
    }
    const fields = [{ brightness: 15, contrast: 30, temperature: 25 }, { exposure: 30, tint: 20, saturation: -60 }, { saturation: 40, color_overlay: '#ff000033' }];
    for (const field of fields) {
      const grade = fastGrade(gradeSettings(field), null)!;
      const expected = new Uint8ClampedArray(width * height * 4);
      for (let pixel = 0; pixel < width * height; pixel++) [0, 1, 2].forEach((channel) => (expected[pixel * 4 + channel] = rgb[pixel * 3 + channel]));
      applyFast(expected, grade);
      const filters = gradeFilters({ curves: grade.curves.map((curve) => Array.from(curve)) as [number[], number[], number[]], saturation: grade.saturation, overlay: grade.overlay });
      const stdout = await new Promise<Buffer>((resolve, reject) => {
        const args = ['-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`, '-i', 'pipe:0', '-vf', `format=gbrp,${filters.join(',')},format=rgb24`, '-f', 'rawvideo', '-'];
        const child = execFile('ffmpeg', args, { encoding: 'buffer' }, (error, out) => (error ? reject(error) : resolve(out)));
        child.stdin!.end(rgb);
      });
      let worst = 0;
      for (let pixel = 0; pixel < width * height; pixel++) {
        for (const channel of [0, 1, 2]) worst = Math.max(worst, Math.abs(stdout[pixel * 3 + channel] - expected[pixel * 4 + channel]));
      }
      // Curves alone: exact. The channel mix rounds each of its three terms, the overlay rounds again
      // (the page rounds once): measured 1 and 2 levels.
      const allowed = grade.saturation === 1 && !grade.overlay ? 0 : grade.overlay ? 2 : 1;
      expect({ field, worst }).toEqual({ field, worst: Math.min(worst, allowed) });
    }
  });
});

describe('compositeRegions', () => {
  const canvas = { width: 1920, height: 1080 };

  it('grows each area by the reach of the conversion, on even pixels, and computes each on a larger crop', () => {
    expect(compositeRegions(canvas, [{ x: 191, y: 270, width: 960, height: 541 }])).toEqual([
      { keep: { x: 174, y: 254, width: 994, height: 574 }, work: { x: 158, y: 238, width: 1026, height: 606 } },
    ]);
  });

  it('keeps apart areas far from each other and merges overlapping ones when that costs no more pixels', () => {
    const regions = compositeRegions(canvas, [
      { x: 192, y: 270, width: 960, height: 540 },
      { x: 96, y: 64, width: 192, height: 195 },
      { x: 198, y: 868, width: 910, height: 55 },
      { x: 300, y: 300, width: 100, height: 100 },
    ]);
    expect(regions.map((region) => region.keep)).toEqual([
      { x: 176, y: 254, width: 992, height: 572 },
      { x: 80, y: 48, width: 224, height: 228 },
      { x: 182, y: 852, width: 942, height: 88 },
    ]);
  });

  it('stays inside the canvas and takes the whole canvas when the areas cover most of it', () => {
    expect(compositeRegions(canvas, [{ x: 0, y: 0, width: 100, height: 100 }])[0].work).toEqual({ x: 0, y: 0, width: 132, height: 132 });
    expect(compositeRegions(canvas, [{ x: 0, y: 0, width: 1800, height: 1000 }])).toEqual([{ keep: { x: 0, y: 0, ...canvas }, work: { x: 0, y: 0, ...canvas } }]);
    expect(compositeRegions(canvas, [])).toEqual([{ keep: { x: 0, y: 0, ...canvas }, work: { x: 0, y: 0, ...canvas } }]);
  });
});

describe('compositeArgs', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'composite-regions-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const [width, height, frames] = [320, 180, 12];

  /** The composite's frames as raw 4:2:0 (the encoder's arguments swapped for rawvideo). */
  async function composite(aboveDrawn: { x: number; y: number; width: number; height: number }[], plan: CompositePlan, files: { clip: string; below: string; above: string }, name: string) {
    const args = compositeArgs({ plan, clipFiles: [files.clip], below: { list: files.below }, aboveList: files.above, aboveDrawn, width, height, fps: 30, durationInFrames: frames, outputPath: '' });
    const output = path.join(folder, `${name}.yuv`);
    await run('ffmpeg', [...args.slice(0, args.indexOf('-c:v')), '-f', 'rawvideo', '-pix_fmt', 'yuv420p', output]);
    return { args, output };
  }

  it('gives inside its regions the pixels of the whole-frame composite, with two overlapping regions and a fading clip', async () => {
    const file = (name: string) => path.join(folder, name);
    await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `testsrc2=size=${2 * 96}x${2 * 54}:rate=30:duration=1`, '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', file('clip.mp4')]);
    await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `smptebars=size=${width}x${height}`, '-frames:v', '1', '-q:v', '3', file('below.jpeg')]);
    // The upper layer: a title-like bar under the clip and a box in the top-right corner, apart.
    const alpha = 'between(X,60,240)*between(Y,150,165)*200+between(X,280,310)*between(Y,4,20)*255';
    for (const frame of [0, 1]) {
      await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `color=c=white:s=${width}x${height},format=rgba`, '-vf', `geq=r='X':g='Y+${40 * frame}':b=90:a='${alpha}'`, '-frames:v', '1', file(`above${frame}.png`)]);
    }
    await writeFrameList(file('below.txt'), [{ file: file('below.jpeg'), hold: frames }], 30);
    await writeFrameList(file('above.txt'), [{ file: file('above0.png'), hold: 5 }, { file: file('above1.png'), hold: frames - 5 }], 30);
    const clip: CompositeClip = {
      index: 1, src: 'clip', left: 40, top: 30, width: 96, height: 54,
      source: { width: 192, height: 108 }, placement: { x: 0, y: 0, width: 96, height: 54 }, reduction: 'halve', sourceCrop: { x: 0, y: 0, width: 192, height: 108 },
      from: 2, durationInFrames: frames - 2, startSeconds: 0, playbackRate: 1, opacity: 0.9, fadeInFrames: 4, fadeOutFrames: 0, grade: null,
    };
    const plan = { clips: [clip] } as unknown as CompositePlan;
    const files = { clip: file('clip.mp4'), below: file('below.txt'), above: file('above.txt') };
    const drawn = [{ x: 280, y: 4, width: 31, height: 17 }, { x: 60, y: 150, width: 181, height: 16 }];
    const regions = compositeRegions({ width, height }, [{ x: 40, y: 30, width: 96, height: 54 }, ...drawn]);
    expect(regions.length).toBe(3);
    const parts = await composite(drawn, plan, files, 'parts');
    const whole = await composite([{ x: 0, y: 0, width, height }], plan, files, 'whole');
    expect({ parts: parts.args.join(' ').includes('crop=31:17:280:4'), whole: whole.args.join(' ').includes('[below]') }).toEqual({ parts: true, whole: false });

    const [a, b] = [readFileSync(parts.output), readFileSync(whole.output)];
    const size = (width * height * 3) / 2;
    expect({ a: a.length, b: b.length }).toEqual({ a: frames * size, b: frames * size });
    let differing = 0;
    for (let frame = 0; frame < frames; frame++) {
      for (const { keep } of regions) {
        for (let y = keep.y; y < keep.y + keep.height; y++) {
          for (let x = keep.x; x < keep.x + keep.width; x++) {
            const luma = frame * size + y * width + x;
            const chroma = frame * size + width * height + (y >> 1) * (width / 2) + (x >> 1);
            if (a[luma] !== b[luma] || a[chroma] !== b[chroma] || a[chroma + size / 6] !== b[chroma + size / 6]) differing++;
          }
        }
      }
    }
    expect(differing).toBe(0);
    // Outside them the lower layer's JPEG is the picture, without the whole composite's round trip
    // through RGB, which blurs and clips the bars' colour edges (up to 15/255 there).
    let largest = 0;
    let total = 0;
    for (let offset = 0; offset < a.length; offset++) {
      largest = Math.max(largest, Math.abs(a[offset] - b[offset]));
      total += Math.abs(a[offset] - b[offset]);
    }
    expect({ largest: largest <= 16, mean: total / a.length < 0.3 }).toEqual({ largest: true, mean: true });
  });

  it('gives the same frames from the lower layer piped as it is drawn as from its concat list', async () => {
    const file = (name: string) => path.join(folder, `piped-${name}`);
    // Drawn at 0, 3 and 4, held 3, 1 and the rest: the pipe carries each once and the times place them.
    const drawn = { frames: [0, 3, 4], holds: [3, 1, frames - 4], durationInFrames: frames };
    const pictures: Buffer[] = [];
    for (const [index, frame] of drawn.frames.entries()) {
      await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}`, '-vf', `hue=h=${90 * index}`, '-frames:v', '1', '-q:v', '3', file(`${frame}.jpeg`)]);
      pictures.push(readFileSync(file(`${frame}.jpeg`)));
    }
    await writeFrameList(file('below.txt'), drawn.frames.map((frame, index) => ({ file: file(`${frame}.jpeg`), hold: drawn.holds[index] })), 30);
    const plan = { clips: [] } as unknown as CompositePlan;
    const common = { plan, clipFiles: [], aboveList: null, aboveDrawn: null, width, height, fps: 30, durationInFrames: frames, outputPath: '' };
    const raw = (args: string[], output: string) => [...args.slice(0, args.indexOf('-c:v', args.indexOf('-filter_complex'))), '-f', 'rawvideo', '-pix_fmt', 'yuv420p', output];
    await run('ffmpeg', raw(compositeArgs({ ...common, below: { list: file('below.txt') } }), file('listed.yuv')));
    const piped = startFfmpeg(raw(compositeArgs({ ...common, below: { piped: drawn } }), file('piped.yuv')));
    for (const picture of [...pictures, pictures[pictures.length - 1]]) await piped.write(picture);
    piped.end();
    await piped.done;
    const [listed, streamed] = [readFileSync(file('listed.yuv')), readFileSync(file('piped.yuv'))];
    const size = (width * height * 3) / 2;
    const frameOf = (data: Buffer, frame: number) => data.subarray(frame * size, (frame + 1) * size);
    expect({ listed: listed.length, piped: streamed.length }).toEqual({ listed: frames * size, piped: frames * size });
    expect(streamed.equals(listed)).toBe(true);
    // The holds are in the frames: the first picture three times, the third from frame 4 to the end.
    expect([frameOf(streamed, 2).equals(frameOf(streamed, 0)), frameOf(streamed, 3).equals(frameOf(streamed, 2)), frameOf(streamed, 11).equals(frameOf(streamed, 4))]).toEqual([true, false, true]);
  });
});

describe('pipedBelowTimestamps', () => {
  it('places each piped picture at its drawn frame and the repeated last one at the end, a term a hold', () => {
    expect(pipedBelowTimestamps({ frames: [0, 1, 2], holds: [1, 1, 1], durationInFrames: 3 }, 3)).toBe('N+0');
    expect(pipedBelowTimestamps({ frames: [0, 3, 4], holds: [3, 1, 8], durationInFrames: 12 }, 12)).toBe('N+0+2*gte(N,1)+7*gte(N,3)');
  });
});

// `npm run bench:codec`: issue 32's rule for hand-written codec code (src/renders/engine/codec/):
// each piece stays only where it saves at least 20 % against the library or ffmpeg path on a named
// case. Builds the service's code (dist/) and times, in turns within one run:
//
// - "slideshow": 30 s 1080p30 of 30 pictures, each held 18 frames (the last 30) with 12-frame
//   crossfades between them (900 frames, 348 fading), encoded with the service's x264 settings:
//   (a) x264 encodes every frame, repeats and fades mixed here (no hand-written code);
//   (b) x264 encodes each picture and each fading frame once, repeats spliced in as skip pictures
//       (h264-holds.ts), the Annex B stream muxed by ffmpeg's own raw H.264 reader;
//   (c) as the service does: x264 encodes each picture once, fades are the decoder's mix
//       (h264-holds.ts) and the stream reaches ffmpeg in a transport stream (mpeg-ts.ts), since
//       ffmpeg's raw H.264 reader stamps pictures in decoding order (checked below: its output
//       has the wrong frames).
// - "upper layer": 60 1080p RGBA PNGs of a mostly transparent layer (a moving title band), as the
//   media composite reads them: the drawn area per row and the full decode for mixing, ffmpeg
//   decoding them (one process for all, as the service does since, and one per PNG), and 20 mixed
//   frames written as PNGs by one ffmpeg. The hand-written PNG reader and writer (png.ts) were
//   measured against these at commit 9b91fdc (its bench:codec): they took more CPU, and are gone.
//
// Wall and CPU seconds (this process and its children) are the medians of BENCH_CODEC_ROUNDS
// (default 2) rounds; "saves" compares CPU seconds (the machine is shared, so wall time moves with
// the load; both are printed). BENCH_CODEC_ONLY=slideshow or upper picks one case.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { printTable, root, treeCpuSeconds } from './bench-service.mts';

const require = createRequire(import.meta.url);
const codec = require(path.join(root, 'dist/src/renders/engine/codec/index.js'));
const { x264Args, DEFAULT_X264 } = require(path.join(root, 'dist/src/renders/engine/encode/x264.js'));
const { mixPictures, distinctPictureCrf } = require(path.join(root, 'dist/src/renders/engine/strategies/held-frames/blended-frames-encoder.js'));

const ROUNDS = Number(process.env.BENCH_CODEC_ROUNDS ?? 2);
const only = (process.env.BENCH_CODEC_ONLY ?? '').split(',').filter(Boolean);
const wants = (name: string) => only.length === 0 || only.includes(name);
const work = mkdtempSync(path.join(tmpdir(), 'bench-codec-'));
const W = 1920;
const H = 1080;
const FPS = 30;
const FRAME_BYTES = (W * H * 3) / 2;
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args], { maxBuffer: 2 ** 31 - 1 });
const NO_LOOKAHEAD = 'rc-lookahead=0:sync-lookahead=0:mbtree=0';

/** Runs `args` with `frames` piped to stdin; resolves with stdout. */
function run(args: string[], frames: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg ${code}: ${stderr}`))));
    (async () => {
      for await (const frame of frames) if (!child.stdin.write(frame)) await new Promise((r) => child.stdin.once('drain', r));
      child.stdin.end();
    })().catch(reject);
  });
}

async function measure(fn: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  const cpu = treeCpuSeconds(process.pid);
  const started = performance.now();
  await fn();
  return { wall: (performance.now() - started) / 1000, cpu: treeCpuSeconds(process.pid) - cpu };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function probeFrames(file: string): number {
  return Number(execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', file]).toString().trim());
}

/** The first row's red, green, blue average of each decoded frame at 1×1: enough to tell pictures apart. */
function frameColours(file: string): string[] {
  const bytes = ffmpeg('-i', file, '-fps_mode', 'passthrough', '-vf', 'scale=1:1:flags=area', '-pix_fmt', 'rgb24', '-f', 'rawvideo', 'pipe:1');
  const colours: string[] = [];
  for (let at = 0; at + 3 <= bytes.length; at += 3) colours.push(`${bytes[at]},${bytes[at + 1]},${bytes[at + 2]}`);
  return colours;
}

const rows: string[][] = [];
const header = ['case', 'path', 'wall s', 'CPU s', 'check', 'saves (CPU)'];
const row = (name: string, label: string, result: { wall: number[]; cpu: number[] }, check: string, saves: string) =>
  rows.push([name, label, median(result.wall).toFixed(2), median(result.cpu).toFixed(2), check, saves]);
const saving = (hand: number[], library: number[]) => `${Math.round((1 - median(hand) / median(library)) * 100)} %`;

if (wants('slideshow')) {
  const PICTURES = 30;
  const HOLD = 18;
  const FADE = 12;
  // Distinct pictures: a test pattern at 30 moments, each hue-shifted.
  const pictures: Buffer[] = [];
  const all = ffmpeg('-f', 'lavfi', '-i', `testsrc2=size=${W}x${H}:rate=1:duration=${PICTURES}`, '-vf', 'hue=h=t*12,format=yuv420p', '-f', 'rawvideo', 'pipe:1');
  for (let index = 0; index < PICTURES; index++) pictures.push(all.subarray(index * FRAME_BYTES, (index + 1) * FRAME_BYTES));
  const weights = Array.from({ length: FADE }, (_, k) => (k + 1) / (FADE + 1));
  const holdOf = (index: number) => (index === PICTURES - 1 ? 30 : HOLD);
  const total = pictures.reduce((sum, _, index) => sum + holdOf(index), 0) + (PICTURES - 1) * FADE;
  const input = ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${W}x${H}`, '-framerate', String(FPS), '-i', 'pipe:0'];
  const distinct = x264Args({ ...DEFAULT_X264, crf: distinctPictureCrf(DEFAULT_X264.crf) });
  const fade = (from: number, weight: number) => mixPictures([{ picture: pictures[from], weight: 1 - weight }, { picture: pictures[from + 1], weight }], FRAME_BYTES);

  const everyFrame = path.join(work, 'every-frame.mp4');
  const heldRaw = path.join(work, 'held-raw.mp4');
  const heldTs = path.join(work, 'held-ts.mp4');
  const mixed = path.join(work, 'decoder-mix.mp4');
  const mixedRaw = path.join(work, 'decoder-mix-raw.mp4');
  const copy = (format: string, from: string, to: string) => ffmpeg('-f', format, ...(format === 'h264' ? ['-framerate', String(FPS)] : []), '-i', from, '-c', 'copy', '-video_track_timescale', '90000', '-an', '-f', 'mp4', to);
  let heldStream: { units: { display: number; bytes: Buffer }[] } = { units: [] };

  const paths = {
    // (a) x264 encodes all 900 frames.
    every: () => run([...input, '-frames:v', String(total), ...x264Args(DEFAULT_X264), '-an', everyFrame], (function* () {
      for (let index = 0; index < PICTURES; index++) {
        if (index > 0) for (const weight of weights) yield fade(index - 1, weight);
        for (let copy = 0; copy < holdOf(index); copy++) yield pictures[index];
      }
    })()).then(() => undefined),
    // (b) pictures and fading frames encoded, repeats as skip pictures, ffmpeg's raw H.264 reader.
    held: async () => {
      const holds: number[] = [];
      const encoded = await run([...input, ...distinct, '-x264-params', `${codec.HOLDABLE_X264_PARAMS}:${NO_LOOKAHEAD}`, '-an', '-f', 'h264', 'pipe:1'], (function* () {
        for (let index = 0; index < PICTURES; index++) {
          if (index > 0) for (const weight of weights) {
            holds.push(1);
            yield fade(index - 1, weight);
          }
          holds.push(holdOf(index));
          yield pictures[index];
        }
      })());
      heldStream = { units: codec.spliceHeldFrames(encoded, holds.map((hold) => ({ hold }))) };
      writeFileSync(`${heldRaw}.h264`, Buffer.concat(heldStream.units.map((unit) => unit.bytes)));
      copy('h264', `${heldRaw}.h264`, heldRaw);
    },
    // (c) the service's path: pictures encoded once, fades the decoder's mix, a transport stream.
    mix: async () => {
      const encoded = await run([...input, ...distinct, '-x264-params', `${codec.FADABLE_X264_PARAMS}:${NO_LOOKAHEAD}`, '-an', '-f', 'h264', 'pipe:1'], pictures);
      const units = codec.spliceHeldFrames(encoded, pictures.map((_, index) => ({ hold: holdOf(index), ...(index > 0 ? { fadeIn: weights } : {}) })));
      writeFileSync(`${mixed}.ts`, codec.mpegTransportStream(units, FPS));
      copy('mpegts', `${mixed}.ts`, mixed);
      // The same units through ffmpeg's raw reader (not timed): its frames are checked below.
      writeFileSync(`${mixedRaw}.h264`, Buffer.concat(units.map((unit: { bytes: Buffer }) => unit.bytes)));
    },
  };
  const results = { every: { wall: [] as number[], cpu: [] as number[] }, held: { wall: [] as number[], cpu: [] as number[] }, mix: { wall: [] as number[], cpu: [] as number[] } };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of ['every', 'held', 'mix'] as const) {
      const { wall, cpu } = await measure(paths[name]);
      results[name].wall.push(wall);
      results[name].cpu.push(cpu);
    }
  }
  // Muxing alone, on (b)'s stream (no fades, so both readers are right): transport stream vs raw.
  const mux = { ts: { wall: [] as number[], cpu: [] as number[] }, raw: { wall: [] as number[], cpu: [] as number[] } };
  for (let round = 0; round < Math.max(3, ROUNDS); round++) {
    const ts = await measure(async () => {
      writeFileSync(`${heldTs}.ts`, codec.mpegTransportStream(heldStream.units, FPS));
      copy('mpegts', `${heldTs}.ts`, heldTs);
    });
    const raw = await measure(async () => {
      writeFileSync(`${heldRaw}.h264`, Buffer.concat(heldStream.units.map((unit) => unit.bytes)));
      copy('h264', `${heldRaw}.h264`, heldRaw);
    });
    mux.ts.wall.push(ts.wall);
    mux.ts.cpu.push(ts.cpu);
    mux.raw.wall.push(raw.wall);
    mux.raw.cpu.push(raw.cpu);
  }
  copy('h264', `${mixedRaw}.h264`, mixedRaw);
  const reference = frameColours(everyFrame);
  const same = (file: string) => {
    const colours = frameColours(file);
    const off = colours.filter((colour, index) => {
      const a = colour.split(',').map(Number);
      const b = (reference[index] ?? '0,0,0').split(',').map(Number);
      return a.some((value, c) => Math.abs(value - b[c]) > 3);
    }).length + Math.abs(colours.length - reference.length);
    return `${probeFrames(file)} frames, ${off} off`;
  };
  const MB = (file: string) => (readFileSync(file).length / 1e6).toFixed(1);
  row('slideshow 30 s 1080p', `(a) x264 every frame (${MB(everyFrame)} MB)`, results.every, same(everyFrame), '–');
  row('slideshow 30 s 1080p', `(b) skip pictures, ffmpeg h264 muxer (${MB(heldRaw)} MB)`, results.held, same(heldRaw), `${saving(results.held.cpu, results.every.cpu)} vs (a): h264-holds.ts`);
  row('slideshow 30 s 1080p', `(c) + decoder-mixed fades, mpeg-ts.ts (${MB(mixed)} MB)`, results.mix, same(mixed), `${saving(results.mix.cpu, results.held.cpu)} vs (b): mpeg-ts.ts; ${saving(results.mix.cpu, results.every.cpu)} vs (a)`);
  rows.push(['slideshow 30 s 1080p', '(c)\'s units through ffmpeg\'s raw H.264 reader', '–', '–', same(mixedRaw), 'not an option']);
  row('mux (b)\'s stream', 'ffmpeg raw H.264 reader + copy', mux.raw, '', '–');
  row('mux (b)\'s stream', 'mpeg-ts.ts + ffmpeg copy', mux.ts, '', `${saving(mux.ts.cpu, mux.raw.cpu)}`);
}

if (wants('upper')) {
  const COUNT = 60;
  // A title band sliding across an otherwise transparent 1080p layer; ffmpeg's PNG encoder with
  // mixed prediction, like Chromium's screenshots (filtered rows, RGBA).
  const dir = path.join(work, 'upper');
  execFileSync('mkdir', ['-p', dir]);
  ffmpeg('-f', 'lavfi', '-i', `color=c=black@0.0:s=${W}x${H}:r=${FPS}:d=${COUNT / FPS},format=rgba`, '-f', 'lavfi', '-i', `testsrc2=s=900x160:r=${FPS}:d=${COUNT / FPS},format=rgba`,
    '-filter_complex', '[0][1]overlay=x=100+t*300:y=820:format=auto,format=rgba', '-c:v', 'png', '-pred', 'mixed', path.join(dir, '%04d.png'));
  const pngs = Array.from({ length: COUNT }, (_, index) => readFileSync(path.join(dir, `${String(index + 1).padStart(4, '0')}.png`)));
  const scanAlpha = (pixels: Buffer) => {
    const first = new Int32Array(H).fill(-1);
    const last = new Int32Array(H).fill(-1);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        if (pixels[(y * W + x) * 4 + 3] === 0) continue;
        if (first[y] < 0) first[y] = x;
        last[y] = x;
      }
    }
    return { first, last };
  };
  const rgbaFrames = async function* (stdout: AsyncIterable<Buffer>) {
    let current = Buffer.alloc(W * H * 4);
    let filled = 0;
    for await (const chunk of stdout) {
      let offset = 0;
      while (offset < chunk.length) {
        const take = Math.min(chunk.length - offset, current.length - filled);
        chunk.copy(current, filled, offset, offset + take);
        filled += take;
        offset += take;
        if (filled === current.length) {
          yield current;
          current = Buffer.alloc(W * H * 4);
          filled = 0;
        }
      }
    }
  };
  const decodeArgs = ['-v', 'error', '-f', 'image2pipe', '-c:v', 'png', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'rgba', 'pipe:1'];
  /** One ffmpeg for every PNG, its RGBA frames scanned as they come. */
  const ffmpegStream = (each: (pixels: Buffer) => void) => new Promise<void>((resolve, reject) => {
    const child = spawn('ffmpeg', decodeArgs);
    child.on('error', reject);
    const closed = new Promise<number | null>((done) => child.on('close', done));
    (async () => {
      for (const png of pngs) if (!child.stdin.write(png)) await new Promise((r) => child.stdin.once('drain', r));
      child.stdin.end();
    })().catch(reject);
    (async () => {
      let frames = 0;
      for await (const frame of rgbaFrames(child.stdout)) {
        each(frame);
        frames++;
      }
      if ((await closed) !== 0 || frames !== COUNT) throw new Error(`ffmpeg decoded ${frames} of ${COUNT}`);
      resolve();
    })().catch(reject);
  });
  /** One ffmpeg per PNG, as the frames arrive one by one. */
  const ffmpegEach = async (each: (pixels: Buffer) => void) => {
    for (const png of pngs) each(await run(decodeArgs, [png]));
  };
  const rgba: { pixels: Buffer }[] = [];
  const decoded = await run(['-v', 'error', '-f', 'image2pipe', '-c:v', 'png', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'rgba', 'pipe:1'], pngs.slice(0, 20));
  for (let at = 0; at < decoded.length; at += W * H * 4) rgba.push({ pixels: decoded.subarray(at, at + W * H * 4) });
  const band = (rows: { first: Int32Array }) => `${rows.first.findIndex((x) => x >= 0)}–${rows.first.findLastIndex((x) => x >= 0)}`;
  const checks = { stream: '', each: '' };
  const paths = {
    stream: () => ffmpegStream((pixels) => (checks.stream = band(scanAlpha(pixels)))),
    each: () => ffmpegEach((pixels) => (checks.each = band(scanAlpha(pixels)))),
    decodeStream: () => ffmpegStream(() => undefined),
    // Writing mixed frames as PNGs (the composite's fades): one ffmpeg PNG encoder.
    encodeStream: () => run(['-v', 'error', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${W}x${H}`, '-i', 'pipe:0', '-c:v', 'png', '-pred', 'none', '-compression_level', '1', '-y', '-f', 'image2', path.join(dir, 'ffmpeg-%04d.png')], rgba.map((picture) => picture.pixels)).then(() => undefined),
  };
  const results = Object.fromEntries(Object.keys(paths).map((key) => [key, { wall: [] as number[], cpu: [] as number[] }])) as Record<keyof typeof paths, { wall: number[]; cpu: number[] }>;
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(paths) as (keyof typeof paths)[]) {
      const { wall, cpu } = await measure(paths[name]);
      results[name].wall.push(wall);
      results[name].cpu.push(cpu);
    }
  }
  const name = `upper layer, ${COUNT} PNGs 1080p`;
  row(name, 'drawn area: ffmpeg decodes all (one process) + alpha scan', results.stream, `rows ${checks.stream}`, '–');
  row(name, 'drawn area: ffmpeg per PNG + alpha scan', results.each, `rows ${checks.each}`, '–');
  row(name, 'RGBA decode: ffmpeg (one process)', results.decodeStream, '', '–');
  row(name, 'PNG encode of 20: ffmpeg (one process)', results.encodeStream, '', '–');
}

console.log(`\nbench:codec, ${ROUNDS} round(s), load average at the end ${loadavg()[0].toFixed(1)}, ffmpeg ${execFileSync('ffmpeg', ['-version']).toString().split(' ')[2]}\n`);
printTable(header, rows);
rmSync(work, { recursive: true, force: true });

/**
 * Proves the composition renders offline with Debian's Chromium: bundles once, then renders two
 * stills and a short mp4 through a loopback file server (the way the worker serves downloaded
 * sources) and checks pixel colours and streams with Debian's ffmpeg/ffprobe.
 *
 *   cd /work/main && node composition/scripts/render-check.mts
 *
 * Exits non-zero when a check fails. Prints how long each step took.
 */
import { bundle } from '@remotion/bundler';
import { openBrowser, renderMedia, renderStill, selectComposition } from '@remotion/renderer';
import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const browserExecutable = path.join(root, 'scripts/chromium-offline.sh');
const work = mkdtempSync(path.join(tmpdir(), 'render-check-'));
const WIDTH = 320;
const HEIGHT = 180;

type Rgb = [number, number, number];
const failures: string[] = [];
const timings: [string, number][] = [];

async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await run();
  timings.push([label, (performance.now() - started) / 1000]);
  return result;
}

function ffmpeg(...args: string[]): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-y', ...args], { maxBuffer: 64 * 1024 * 1024 });
}

/** Frame at `seconds` of an image or video file as rgb24. */
function decode(file: string, seconds = 0): Buffer {
  return ffmpeg('-ss', String(seconds), '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-');
}

/** Peak level in dBFS of the audio between two instants. */
function peakVolume(file: string, from: number, to: number): number {
  const { stderr } = spawnSync('ffmpeg', ['-v', 'info', '-ss', String(from), '-t', String(to - from), '-i', file, '-vn', '-af', 'volumedetect', '-f', 'null', '-'], { encoding: 'utf8' });
  const peak = /max_volume: (\S+) dB/.exec(stderr)?.[1];
  return peak === undefined || peak === '-inf' ? -Infinity : Number(peak);
}

function pixel(frame: Buffer, x: number, y: number): Rgb {
  const offset = (y * WIDTH + x) * 3;
  return [frame[offset], frame[offset + 1], frame[offset + 2]];
}

/** Loose match: encoders shift colours a little. */
function expectColour(label: string, actual: Rgb, expected: Rgb, tolerance = 20): void {
  const ok = actual.every((channel, index) => Math.abs(channel - expected[index]) <= tolerance);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}: rgb(${actual.join(', ')}) expected ≈ rgb(${expected.join(', ')})`);
  if (!ok) failures.push(label);
}

function expectTrue(label: string, ok: boolean, detail: string): void {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}: ${detail}`);
  if (!ok) failures.push(label);
}

// Fixtures made with Debian's ffmpeg (the compositor's own ffmpeg has no lavfi). The clip is
// tagged BT.601: Chromium decodes untagged video as BT.709 while ffmpeg assumes BT.601 for SD,
// which would shift its green.
// Green for its first second, red for the second.
ffmpeg('-f', 'lavfi', '-i', 'color=c=0x00ff00:s=160x90:r=30:d=1', '-f', 'lavfi', '-i', 'color=c=0xff0000:s=160x90:r=30:d=1',
  '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-filter_complex', '[0:v][1:v]concat=n=2:v=1[v]', '-map', '[v]', '-map', '2:a',
  '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-colorspace', 'smpte170m', '-color_primaries', 'smpte170m', '-color_trc', 'smpte170m',
  '-c:a', 'aac', '-shortest', path.join(work, 'clip.mp4'));
ffmpeg('-f', 'lavfi', '-i', 'color=c=0xffff00:s=64x64', '-frames:v', '1', path.join(work, 'yellow.png'));
ffmpeg('-f', 'lavfi', '-i', 'color=c=0xff00ff:s=32x32', '-frames:v', '1', path.join(work, 'mark.png'));

/** What the worker does: serve local copies on loopback, with CORS and byte ranges for the media parser. */
const server = createServer((request, response) => {
  const file = path.join(work, path.basename(new URL(request.url ?? '/', 'http://x').pathname));
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    response.writeHead(404).end();
    return;
  }
  const type = file.endsWith('.mp4') ? 'video/mp4' : 'image/png';
  const headers = { 'Access-Control-Allow-Origin': '*', 'Accept-Ranges': 'bytes', 'Content-Type': type };
  const range = /bytes=(\d*)-(\d*)/.exec(request.headers.range ?? '');
  if (range) {
    const start = range[1] ? Number(range[1]) : size - Number(range[2]);
    const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    response.writeHead(206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': end - start + 1 });
    createReadStream(file, { start, end }).pipe(response);
  } else {
    response.writeHead(200, { ...headers, 'Content-Length': size });
    createReadStream(file).pipe(response);
  }
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
// The request names public URLs (unresolvable here); `sources` points the renderer at the copies.
const sources = {
  'https://media.example/clip.mp4': `${local}/clip.mp4`,
  'https://media.example/yellow.png': `${local}/yellow.png`,
  'https://media.example/mark.png': `${local}/mark.png`,
};

try {
  const serveUrl = await timed('bundle', () => bundle({ entryPoint: path.join(root, 'composition/src/index.ts') }));
  const browser = await timed('open browser', () => openBrowser('chrome', { browserExecutable, chromiumOptions: { gl: 'angle' }, logLevel: 'error' }));
  const common = { serveUrl, browserExecutable, puppeteerInstance: browser, chromiumOptions: { gl: 'angle' as const }, logLevel: 'error' as const };

  async function render(label: string, inputProps: Record<string, unknown>, output: string, media = false) {
    const composition = await timed(`${label}: select composition`, () => selectComposition({ ...common, id: 'Main', inputProps }));
    if (media) {
      await timed(`${label}: render`, () => renderMedia({ ...common, composition, inputProps, codec: 'h264', pixelFormat: 'yuv420p', colorSpace: 'bt709', outputLocation: output }));
    } else {
      await timed(`${label}: render`, () => renderStill({ ...common, composition, inputProps, output, frame: 0, imageFormat: 'png' }));
    }
    return composition;
  }

  // 1. Layout, shapes, images, text background, watermark.
  const stillPath = path.join(work, 'still.png');
  await render('still', {
    request: {
      width: WIDTH, height: HEIGHT, output_format: 'png', background_color: '#0000ff',
      watermark_url: 'https://media.example/mark.png',
      elements: [
        { type: 'shape', x: '25%', y: '50%', width: 40, height: 40, fill_color: '#ff0000' },
        { type: 'image', source_url: 'https://media.example/yellow.png', x: '75%', y: '25%', width: 40, height: 40 },
        { type: 'shape', shape: 'ellipse', x: 160, y: 150, width: 30, height: 30, fill_color: '#ffffff', z_index: 1 },
        { type: 'shape', x: 160, y: 60, width: 40, height: 40, z_rotation: '45deg', fill_color: '#ffffff' },
        { type: 'text', text: 'Hi', x: 10, y: 10, x_anchor: 0, y_anchor: 0, font_size: 20, fill_color: '#00ff00', background_color: '#00ff00', background_x_padding: 10 },
      ],
    },
    media: {},
    sources,
  }, stillPath);
  const still = decode(stillPath);
  expectColour('red rectangle at x=25% y=50%', pixel(still, 80, 90), [255, 0, 0], 10);
  expectColour('blue canvas elsewhere', pixel(still, 240, 120), [0, 0, 255], 10);
  expectColour('image at x=75% y=25%', pixel(still, 240, 45), [255, 255, 0], 10);
  expectColour('ellipse centre', pixel(still, 160, 150), [255, 255, 255], 10);
  expectColour('outside the ellipse, inside its box corner', pixel(still, 147, 137), [0, 0, 255], 10);
  expectColour('rotated square: tip below the centre', pixel(still, 160, 85), [255, 255, 255], 10);
  expectColour('rotated square: unrotated corner now empty', pixel(still, 178, 78), [0, 0, 255], 10);
  expectColour('text background', pixel(still, 12, 20), [0, 255, 0], 10);
  expectColour('watermark bottom right', pixel(still, 294, 154), [255, 0, 255], 10);

  // 2. Gradient object, left to right.
  const gradientPath = path.join(work, 'gradient.png');
  await render('gradient still', {
    request: {
      width: WIDTH, height: HEIGHT, output_format: 'png',
      background_gradient: { type: 'linear', angle: 90, stops: [{ color: '#ff0000', offset: 0 }, { color: '#0000ff', offset: 1 }] },
    },
    media: {},
  }, gradientPath);
  const gradient = decode(gradientPath);
  expectColour('gradient left', pixel(gradient, 2, 90), [255, 0, 0], 12);
  expectColour('gradient right', pixel(gradient, 317, 90), [0, 0, 255], 12);

  // 3. A video clip entering at 0.5 s on the right half, from source second 0.5 at double speed
  //    (green until source second 1, then red), with its sound, in a 1 s mp4; the clip's sound
  //    also plays alone for its first 0.3 s as an audio element.
  const videoPath = path.join(work, 'video.mp4');
  const composition = await render('mp4 1 s', {
    request: {
      width: WIDTH, height: HEIGHT, duration: 1, frame_rate: 30, background_color: '#0000ff',
      elements: [
        { type: 'video', source_url: 'https://media.example/clip.mp4', time: 0.5, in_point: 0.5, speed: 2, x: '75%', width: '50%', height: '100%' },
        { type: 'shape', x: '25%', y: '85%', width: 60, height: 20, fill_color: '#ff0000', fade_in_duration: 1 },
        { type: 'audio', source_url: 'https://media.example/clip.mp4', out_point: 0.3 },
      ],
    },
    media: { 'https://media.example/clip.mp4': { duration: 2, width: 160, height: 90, has_audio: true, has_video: true } },
    sources,
  }, videoPath, true);
  expectTrue('composition metadata', composition.width === WIDTH && composition.height === HEIGHT && composition.durationInFrames === 30 && composition.fps === 30,
    `${composition.width}x${composition.height}, ${composition.durationInFrames} frames at ${composition.fps} fps`);
  expectColour('right half before the clip (0.25 s)', pixel(decode(videoPath, 0.25), 240, 90), [0, 0, 255]);
  expectColour('clip at 0.6 s shows source second 0.7', pixel(decode(videoPath, 0.6), 240, 90), [0, 255, 0]);
  expectColour('clip at 0.9 s shows source second 1.3', pixel(decode(videoPath, 0.9), 240, 90), [255, 0, 0]);
  expectColour('left half during the clip (0.9 s)', pixel(decode(videoPath, 0.9), 80, 90), [0, 0, 255]);
  expectColour('shape half faded in (0.5 s)', pixel(decode(videoPath, 0.5), 80, 153), [128, 0, 128], 30);
  const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', videoPath]).toString()) as {
    streams: { codec_type: string; codec_name: string; pix_fmt?: string; color_range?: string; r_frame_rate?: string; nb_frames?: string }[];
    format: { duration: string };
  };
  const videoStream = probe.streams.find((stream) => stream.codec_type === 'video');
  const levels = [peakVolume(videoPath, 0.05, 0.25), peakVolume(videoPath, 0.35, 0.45), peakVolume(videoPath, 0.6, 0.95)];
  expectTrue('audio: element 0–0.3 s, silence, video sound from 0.5 s', levels[0] > -30 && levels[1] < -60 && levels[2] > -30, `peaks ${levels.map((level) => `${level} dB`).join(', ')}`);
  expectTrue('mp4 streams', Boolean(videoStream) && probe.streams.some((stream) => stream.codec_type === 'audio'),
    probe.streams.map((stream) => `${stream.codec_type}:${stream.codec_name}${stream.pix_fmt ? `/${stream.pix_fmt}` : ''}`).join(', '));
  // Without colorSpace 'bt709' Remotion's JPEG frames give full-range yuvj420p, which players misread.
  expectTrue('mp4 colour range', videoStream?.pix_fmt === 'yuv420p' && videoStream?.color_range === 'tv', `${videoStream?.pix_fmt}, range ${videoStream?.color_range}`);
  expectTrue('mp4 frames', videoStream?.nb_frames === '30' && videoStream?.r_frame_rate === '30/1', `${videoStream?.nb_frames} frames at ${videoStream?.r_frame_rate}, ${probe.format.duration} s`);

  await browser.close({ silent: true });
} finally {
  server.close();
  rmSync(work, { recursive: true, force: true });
}

console.log(`\n${'step'.padEnd(40)}seconds`);
for (const [label, seconds] of timings) console.log(`${label.padEnd(40)}${seconds.toFixed(2)}`);
console.log(failures.length === 0 ? '\nall checks passed' : `\n${failures.length} check(s) failed: ${failures.join('; ')}`);
process.exitCode = failures.length === 0 ? 0 : 1;

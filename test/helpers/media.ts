import { execFile } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs ffmpeg quietly, overwriting its output: for fixtures drawn by lavfi filter chains. */
export async function ffmpeg(...args: string[]): Promise<void> {
  await run('ffmpeg', ['-v', 'error', '-y', ...args]);
}

/** A still drawn by a lavfi filter chain, saved losslessly (png) in `format`. */
export async function lavfiImage(file: string, filter: string, format = 'rgb24'): Promise<void> {
  await ffmpeg('-f', 'lavfi', '-i', `${filter},format=${format}`, '-frames:v', '1', file);
}

/** A test clip made by Debian's ffmpeg: colour bars with a 440 Hz tone. */
export async function makeVideo(file: string, o: { width: number; height: number; seconds: number; fps: number; audio?: boolean }) {
  const args = ['-y', '-v', 'error', '-f', 'lavfi', '-i', `testsrc2=size=${o.width}x${o.height}:rate=${o.fps}:duration=${o.seconds}`];
  if (o.audio !== false) args.push('-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${o.seconds}`);
  args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p');
  if (o.audio !== false) args.push('-c:a', 'aac', '-shortest');
  args.push(file);
  await run('ffmpeg', args);
}

export async function makeImage(file: string, color: string, width: number, height: number) {
  await run('ffmpeg', ['-y', '-v', 'error', '-f', 'lavfi', '-i', `color=c=${color}:s=${width}x${height}`, '-frames:v', '1', file]);
}

export interface Probe {
  format: { duration?: string; format_name: string; size: string };
  streams: {
    codec_type: string;
    codec_name: string;
    width?: number;
    height?: number;
    pix_fmt?: string;
    color_range?: string;
    r_frame_rate?: string;
    nb_frames?: string;
    nb_read_frames?: string;
    duration?: string;
    tags?: Record<string, string>;
  }[];
}

export async function probe(file: string): Promise<Probe> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-print_format', 'json', '-show_format', '-show_streams', file]);
  return JSON.parse(stdout) as Probe;
}

/**
 * RGBA of one pixel of the frame at `seconds`, decoded by ffmpeg. VP9 with alpha needs the libvpx
 * decoder to keep its alpha plane.
 */
export async function pixelAt(file: string, seconds: number, x: number, y: number, options: { vp9Alpha?: boolean } = {}): Promise<[number, number, number, number]> {
  const args = ['-v', 'error'];
  if (options.vp9Alpha) args.push('-c:v', 'libvpx-vp9');
  args.push('-ss', String(seconds), '-i', file, '-frames:v', '1', '-vf', `format=rgba,crop=1:1:${x}:${y}`, '-f', 'rawvideo', '-pix_fmt', 'rgba', '-');
  const { stdout } = await run('ffmpeg', args, { encoding: 'buffer' });
  const bytes = stdout as unknown as Buffer;
  return [bytes[0], bytes[1], bytes[2], bytes[3]];
}

/** Mean loudness of the audio, in dB (about -91 for silence). */
export async function meanVolumeDb(file: string): Promise<number> {
  const { stderr } = await run('ffmpeg', ['-v', 'info', '-i', file, '-af', 'volumedetect', '-f', 'null', '-']);
  const match = /mean_volume: (-?[\d.]+) dB/.exec(stderr);
  if (!match) throw new Error('no volume measured');
  return Number(match[1]);
}

/**
 * Loudness of the audio between two instants (seconds), optionally through extra filters first
 * (e.g. `lowpass=f=1000` to hear one tone of a mix). Silence reads about -91 dB.
 */
export async function volumeDb(file: string, from: number, to: number, filters?: string): Promise<{ mean: number; max: number }> {
  const chain = [`atrim=start=${from}:end=${to}`, ...(filters ? [filters] : []), 'volumedetect'].join(',');
  const { stderr } = await run('ffmpeg', ['-v', 'info', '-i', file, '-vn', '-af', chain, '-f', 'null', '-']);
  const level = (name: string) => {
    const match = new RegExp(`${name}: (-?[\\d.]+|-inf) dB`).exec(stderr);
    if (!match) throw new Error(`no ${name} measured between ${from} s and ${to} s`);
    return match[1] === '-inf' ? -Infinity : Number(match[1]);
  };
  return { mean: level('mean_volume'), max: level('max_volume') };
}

/**
 * The audio as mono 16-bit samples at `rate` Hz, optionally through extra filters first, for
 * timing checks finer than volumedetect windows.
 */
export async function audioSamples(file: string, rate = 48000, filters?: string): Promise<Int16Array> {
  const args = ['-v', 'error', '-i', file, '-vn', ...(filters ? ['-af', filters] : []), '-ac', '1', '-ar', String(rate), '-f', 's16le', '-'];
  const { stdout } = await run('ffmpeg', args, { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  const bytes = stdout as unknown as Buffer;
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~1)));
}

/** A whole decoded frame (rgb24), for checks over regions: ink of a text, bars of an image. */
export interface Frame {
  width: number;
  height: number;
  data: Buffer;
  at(x: number, y: number): [number, number, number];
}

export async function frameAt(file: string, seconds = 0): Promise<Frame> {
  const [frame] = await decodeFrames(file, ['-ss', String(seconds)], ['-frames:v', '1']);
  return frame;
}

/** Every frame of a video, decoded (rgb24), in order. */
export function framesOf(file: string): Promise<Frame[]> {
  return decodeFrames(file, [], []);
}

async function decodeFrames(file: string, before: string[], after: string[]): Promise<Frame[]> {
  const { stdout: size } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file]);
  const [width, height] = size.trim().split(',').map(Number);
  const { stdout } = await run(
    'ffmpeg',
    ['-v', 'error', ...before, '-i', file, ...after, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 },
  );
  const bytes = stdout as unknown as Buffer;
  const frameBytes = width * height * 3;
  if (bytes.length === 0 || bytes.length % frameBytes !== 0) throw new Error(`decoded ${bytes.length} bytes, not whole ${width}x${height} rgb24 frames`);
  return Array.from({ length: bytes.length / frameBytes }, (_, index) => {
    const data = bytes.subarray(index * frameBytes, (index + 1) * frameBytes);
    return {
      width,
      height,
      data,
      at: (x: number, y: number): [number, number, number] => {
        const offset = (y * width + x) * 3;
        return [data[offset], data[offset + 1], data[offset + 2]];
      },
    };
  });
}

export function near(actual: number[], expected: number[], tolerance = 40): boolean {
  return expected.every((value, i) => Math.abs(actual[i] - value) <= tolerance);
}

/** Serves a folder on 127.0.0.1 (with Range support), as a stand-in for a public media host. */
export interface FolderServer {
  url: string;
  requests: string[];
  server: Server;
  /** Holds every GET of `name` (HEAD still answers) until the returned function is called. */
  hold(name: string): () => void;
  close(): Promise<void>;
}

export async function serveFolder(dir: string): Promise<FolderServer> {
  const requests: string[] = [];
  const held = new Map<string, Promise<void>>();
  const server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? '/').split('?')[0]).slice(1);
    requests.push(`${req.method} /${name}`);
    const file = path.join(dir, path.basename(name));
    if (!name || !existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    const size = statSync(file).size;
    const type = file.endsWith('.mp4') ? 'video/mp4' : file.endsWith('.png') ? 'image/png' : file.endsWith('.wav') ? 'audio/wav' : 'application/octet-stream';
    // Any origin may read (a browser <Player> page on another port loads these like a CDN's).
    const headers = { 'Content-Type': type, 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'Content-Length, Content-Range, Accept-Ranges', 'Accept-Ranges': 'bytes' };
    const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
    let start = 0;
    let end = size - 1;
    if (range && (range[1] || range[2])) {
      start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
      end = range[1] && range[2] ? Math.min(size - 1, Number(range[2])) : size - 1;
      if (start > end || start >= size) {
        res.writeHead(416, { ...headers, 'Content-Range': `bytes */${size}` }).end();
        return;
      }
      res.writeHead(206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': end - start + 1 });
    } else {
      res.writeHead(200, { ...headers, 'Content-Length': size });
    }
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    void (held.get(name) ?? Promise.resolve()).then(() => createReadStream(file, { start, end }).pipe(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    server,
    hold: (name) => {
      let release!: () => void;
      held.set(name, new Promise<void>((resolve) => (release = resolve)));
      return () => {
        held.delete(name);
        release();
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function waitFor<T>(fn: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 120_000, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await fn();
  while (!done(value)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
    value = await fn();
  }
  return value;
}

/**
 * When a sound is on: spans (seconds) where the peak of 1 ms blocks is above `threshold`, gaps
 * under 5 ms bridged.
 */
export function soundSpans(samples: Int16Array, rate: number, threshold = 1000): { start: number; end: number }[] {
  const block = rate / 1000;
  const spans: { start: number; end: number }[] = [];
  for (let i = 0; i < samples.length; i += block) {
    let peak = 0;
    for (let j = i; j < Math.min(i + block, samples.length); j += 1) peak = Math.max(peak, Math.abs(samples[j]));
    if (peak <= threshold) continue;
    const last = spans.at(-1);
    if (last && i / rate - last.end < 0.005) last.end = (i + block) / rate;
    else spans.push({ start: i / rate, end: (i + block) / rate });
  }
  return spans.map(({ start, end }) => ({ start: Math.round(start * 1000) / 1000, end: Math.round(end * 1000) / 1000 }));
}

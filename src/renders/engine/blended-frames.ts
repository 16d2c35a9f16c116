import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { BlendedFrames } from '../../../composition/src/schema';
import { holdableX264Params } from './h264-holds';
import { muxHeldPictures, TO_BT709_TV_RANGE, x264Args, type X264Settings } from './held-frames';

/**
 * Encodes a blended frame plan (composition/src/schema/blended-frames.ts) while its frames are
 * still being drawn: each drawn JPEG is converted once to yuv420p in BT.709 TV range by the same
 * zscale conversion the held path uses, fading frames are mixed from their corners in yuv420p
 * (the conversion and the 4:2:0 averaging are affine, so mixing after them equals converting the
 * mixed picture up to rounding), and every output frame is piped raw to x264 with the held path's
 * settings (x264Args). Encoding runs as soon as a frame's corners are there, alongside drawing.
 * With `skipPictures`, each run goes to x264 once and its repeats are spliced in afterwards as
 * skip pictures (h264-holds.ts), so a held picture costs the encoder nothing.
 */
export class BlendedFramesEncoder {
  private readonly frameBytes: number;
  private readonly converter: ChildProcessWithoutNullStreams;
  private readonly encoder: ChildProcessWithoutNullStreams;
  /** Drawn JPEGs not yet handed to the converter (it takes them in plan order). */
  private readonly pending = new Map<number, Buffer>();
  private nextToConvert = 0;
  /** Converted pictures by position in `plan.frames`; dropped after their last use. */
  private readonly pictures: (Buffer | null)[] = [];
  private readonly waiting = new Map<number, () => void>();
  private readonly positionOf: Map<number, number>;
  private readonly lastUse: number[];
  private failure: Error | null = null;
  private readonly stop = new AbortController();
  private readonly skipPictures: boolean;
  private readonly finished: Promise<void>;
  /** With skip pictures: x264's Annex B output, spliced and muxed once complete. */
  private readonly encoded: Buffer[] = [];

  constructor(
    private readonly plan: BlendedFrames,
    /** `x264` absent: DEFAULT_X264. */
    video: { width: number; height: number; fps: number; outputPath: string; x264?: X264Settings; skipPictures?: boolean },
    signal: AbortSignal,
    /** Output frames handed to the encoder so far, after each run. */
    private readonly onEncoded: (frames: number) => void = () => undefined,
  ) {
    const { width, height, fps } = video;
    this.frameBytes = (width * height * 3) / 2;
    this.positionOf = new Map(plan.frames.map((frame, position) => [frame, position]));
    this.lastUse = plan.frames.map(() => -1);
    plan.runs.forEach((run, index) => run.mix.forEach((term) => (this.lastUse[term.drawn] = index)));
    const stopBoth = AbortSignal.any([signal, this.stop.signal]);
    this.converter = spawn(
      'ffmpeg',
      ['-v', 'error', '-threads', '1', '-f', 'image2pipe', '-c:v', 'mjpeg', '-framerate', String(fps), '-i', 'pipe:0',
        '-vf', TO_BT709_TV_RANGE, '-pix_fmt', 'yuv420p', '-fps_mode', 'passthrough', '-flush_packets', '1', '-f', 'rawvideo', 'pipe:1'],
      { signal: stopBoth },
    );
    this.skipPictures = video.skipPictures === true;
    const holds = plan.runs.map((run) => run.hold);
    const input = ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${width}x${height}`, '-framerate', String(fps), '-i', 'pipe:0'];
    this.encoder = spawn(
      'ffmpeg',
      this.skipPictures
        ? [...input, '-frames:v', String(plan.runs.length), ...x264Args(video.x264), '-x264-params', holdableX264Params(holds), '-an', '-f', 'h264', 'pipe:1']
        : [...input, '-frames:v', String(plan.durationInFrames), ...x264Args(video.x264), '-an', video.outputPath],
      { signal: stopBoth },
    );
    if (this.skipPictures) this.encoder.stdout.on('data', (chunk: Buffer) => this.encoded.push(chunk));
    const converted = this.readConverted();
    const encoded = exited(this.encoder, 'x264 encoder').then(() => {
      if (!this.skipPictures) return;
      return muxHeldPictures(Buffer.concat(this.encoded), holds, fps, video.outputPath, stopBoth);
    });
    this.finished = Promise.all([converted, this.feedEncoder(), encoded]).then(() => undefined);
    // Whichever part fails first stops the other process; the error surfaces from `done`.
    this.finished.catch((error: unknown) => {
      this.fail(error instanceof Error ? error : new Error(String(error)));
    });
  }

  /** One drawn frame (any order), as the browser captured it. */
  addDrawn(frame: number, jpeg: Buffer): void {
    const position = this.positionOf.get(frame);
    if (position === undefined || this.failure) return;
    this.pending.set(position, jpeg);
    while (this.pending.has(this.nextToConvert)) {
      const next = this.pending.get(this.nextToConvert)!;
      this.pending.delete(this.nextToConvert);
      this.converter.stdin.write(next);
      this.nextToConvert++;
    }
  }

  /** Every frame drawn: the encoder finishes; resolves when the video file is complete. */
  async done(): Promise<void> {
    if (this.nextToConvert < this.plan.frames.length && !this.failure) {
      this.fail(new Error(`Only ${this.nextToConvert} of ${this.plan.frames.length} drawn frames reached the encoder`));
    }
    this.converter.stdin.end();
    // The first failure is the cause; the processes it stopped report only that they were stopped.
    await this.finished.catch((error: unknown) => {
      throw this.failure ?? error;
    });
  }

  /** Stops both processes (drawing failed). */
  abort(error: Error): void {
    this.fail(error);
    this.finished.catch(() => undefined);
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.stop.abort();
    for (const wake of this.waiting.values()) wake();
  }

  private async readConverted(): Promise<void> {
    const exit = exited(this.converter, 'JPEG to yuv420p conversion');
    let current = Buffer.allocUnsafe(this.frameBytes);
    let filled = 0;
    for await (const chunk of this.converter.stdout as AsyncIterable<Buffer>) {
      let offset = 0;
      while (offset < chunk.length) {
        const take = Math.min(chunk.length - offset, this.frameBytes - filled);
        chunk.copy(current, filled, offset, offset + take);
        filled += take;
        offset += take;
        if (filled === this.frameBytes) {
          const position = this.pictures.length;
          this.pictures.push(current);
          this.waiting.get(position)?.();
          current = Buffer.allocUnsafe(this.frameBytes);
          filled = 0;
        }
      }
    }
    await exit;
    if (this.pictures.length !== this.plan.frames.length && !this.failure) {
      throw new Error(`The conversion returned ${this.pictures.length} of ${this.plan.frames.length} drawn frames`);
    }
  }

  private picture(position: number): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    const ready = this.pictures[position];
    if (ready) return Promise.resolve(ready);
    return new Promise<void>((resolve) => this.waiting.set(position, resolve)).then(() => {
      this.waiting.delete(position);
      return this.picture(position);
    });
  }

  private async feedEncoder(): Promise<void> {
    const stdin = this.encoder.stdin;
    let written = 0;
    for (const [index, run] of this.plan.runs.entries()) {
      const terms = await Promise.all(run.mix.map(async (term) => ({ picture: await this.picture(term.drawn), weight: term.weight })));
      const frame = terms.length === 1 ? terms[0].picture : mixPictures(terms, this.frameBytes);
      for (const term of run.mix) if (this.lastUse[term.drawn] === index) this.pictures[term.drawn] = null;
      for (let copy = 0; copy < (this.skipPictures ? 1 : run.hold); copy++) {
        if (!stdin.write(frame)) await drained(stdin, this.stop.signal);
        if (this.failure) throw this.failure;
      }
      written += run.hold;
      this.onEncoded(written);
    }
    stdin.end();
  }
}

/** Σ weight·picture, rounded, in 16-bit fixed point (weights sum to 1). */
export function mixPictures(terms: { picture: Uint8Array; weight: number }[], bytes: number): Buffer {
  const ONE = 1 << 16;
  const weights = terms.map((term) => Math.round(term.weight * ONE));
  weights[weights.length - 1] += ONE - weights.reduce((sum, weight) => sum + weight, 0);
  const out = Buffer.allocUnsafe(bytes);
  const HALF = ONE / 2;
  if (terms.length === 2) {
    const [a, b] = [terms[0].picture, terms[1].picture];
    const [wa, wb] = weights;
    for (let i = 0; i < bytes; i++) out[i] = (a[i] * wa + b[i] * wb + HALF) >>> 16;
    return out;
  }
  // One pass per term over a running sum: a loop over the terms inside the pixel loop is ≈ 3× slower.
  const sums = new Uint32Array(bytes).fill(HALF);
  terms.forEach(({ picture }, t) => {
    const weight = weights[t];
    for (let i = 0; i < bytes; i++) sums[i] += picture[i] * weight;
  });
  for (let i = 0; i < bytes; i++) out[i] = sums[i] >>> 16;
  return out;
}

function exited(child: ChildProcessWithoutNullStreams, what: string): Promise<void> {
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  // The other side closing a pipe early is reported by the process's exit, not the write.
  child.stdin.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${what} failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`));
    });
  });
}

function drained(stream: NodeJS.WritableStream, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    stream.once('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

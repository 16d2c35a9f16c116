import { startFfmpeg, type MediaProcess } from '../../../../infra/media/media-runner';
import { RawFrameSplitter } from '../../../../infra/media/raw-frame-splitter';
import type { BlendedFrames } from '../../../../../composition/src/schema';
import { FADABLE_X264_PARAMS, isHeldKeyframe, type SplicedPicture } from '../../codec';
import { DEFAULT_X264, TO_BT709_TV_RANGE, x264Args, type X264Settings } from '../../encode/x264';
import { muxHeldPictures } from './held-encoding';

/**
 * CRF steps below the configured one for x264 when it sees only the distinct pictures (skip
 * pictures): it cannot see that each is held or faded from, which would make its macroblock tree
 * spend more on it (HELD_PICTURE_BITRATE's ×2 is 6 steps). Measured on the slideshow
 * (docs/performance.md).
 */
export const DISTINCT_PICTURE_CRF_STEPS = 6;

/**
 * x264 without lookahead for the distinct pictures: they arrive in bursts while the page draws,
 * and with its default 40-frame lookahead x264 would hold a slideshow's 30 pictures until the
 * last one is drawn, then encode them all after drawing (a long tail on the slideshow, docs/performance-log/).
 * The macroblock tree needs the lookahead; it sees no repeats here anyway (the CRF steps stand in).
 */
const NO_LOOKAHEAD = 'rc-lookahead=0:sync-lookahead=0:mbtree=0';

/** The CRF for x264 seeing only distinct pictures; 0 (lossless) stays, and nothing else becomes it. */
export function distinctPictureCrf(crf: number): number {
  return crf === 0 ? 0 : Math.max(1, crf - DISTINCT_PICTURE_CRF_STEPS);
}

/** What x264 encoded and what was written around its pictures (skip-picture mode). */
export interface BlendedEncoding {
  /** Pictures x264 encoded. */
  encoded: number;
  /** Frames written as copies of the frame before (skip pictures). */
  skipped: number;
  /** Fading frames written as the decoder's mix of the pictures before and after. */
  faded: number;
}

/**
 * Encodes a blended frame plan (composition/src/schema/blended-frames.ts) while its frames are
 * still being drawn: each drawn JPEG is converted once to yuv420p in BT.709 TV range by the same
 * zscale conversion the held path uses, fading frames are mixed from their corners in yuv420p
 * (the conversion and the 4:2:0 averaging are affine, so mixing after them equals converting the
 * mixed picture up to rounding), and every output frame is piped raw to x264 with the held path's
 * settings (x264Args). Encoding runs as soon as a frame's corners are there, alongside drawing.
 * With `skipPictures`, each distinct picture goes to x264 once and its repeats are spliced in
 * afterwards as skip pictures (h264-holds.ts), so a held picture costs the encoder nothing; and a
 * fade between two pictures x264 encodes (a run of two-term mixes whose terms are, by position or
 * byte for byte, the picture before and the picture after) is not mixed here at all: its frames
 * are written as weighted predictions from those two pictures, which the decoder mixes.
 */
export class BlendedFramesEncoder {
  private readonly frameBytes: number;
  private readonly converter: MediaProcess;
  private readonly encoder: MediaProcess;
  /** Drawn JPEGs not yet handed to the converter (it takes them in plan order). */
  private readonly pending = new Map<number, Buffer>();
  private nextToConvert = 0;
  /** Converted pictures by position in `plan.frames`; dropped after their last use. */
  private readonly pictures: (Buffer | null)[] = [];
  /** Who waits for a converted picture, by position (several may wait for the same one). */
  private readonly waiting = new Map<number, (() => void)[]>();
  private readonly positionOf: Map<number, number>;
  private readonly lastUse: number[];
  private failure: Error | null = null;
  private readonly stop = new AbortController();
  private readonly skipPictures: boolean;
  private readonly finished: Promise<void>;
  /** With skip pictures: how each picture given to x264 is shown. */
  private readonly spliced: SplicedPicture[] = [];

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
    this.converter = startFfmpeg(
      // A small probe: by default ffmpeg reads megabytes of JPEGs (a whole slideshow's corners)
      // before converting the first, and conversion and encoding wait for the drawing to end.
      ['-v', 'error', '-threads', '1', '-probesize', '32', '-analyzeduration', '0', '-f', 'image2pipe', '-c:v', 'mjpeg', '-framerate', String(fps), '-i', 'pipe:0',
        '-vf', TO_BT709_TV_RANGE, '-pix_fmt', 'yuv420p', '-fps_mode', 'passthrough', '-flush_packets', '1', '-f', 'rawvideo', 'pipe:1'],
      { signal: stopBoth, stdout: 'stream' },
    );
    this.skipPictures = video.skipPictures === true;
    const input = ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${width}x${height}`, '-framerate', String(fps), '-i', 'pipe:0'];
    const x264 = video.x264 ?? DEFAULT_X264;
    this.encoder = startFfmpeg(
      this.skipPictures
        ? [...input, ...x264Args({ ...x264, crf: distinctPictureCrf(x264.crf) }), '-x264-params', `${FADABLE_X264_PARAMS}:${NO_LOOKAHEAD}`, '-an', '-f', 'h264', 'pipe:1']
        : [...input, '-frames:v', String(plan.durationInFrames), ...x264Args(video.x264), '-an', video.outputPath],
      // With skip pictures, x264's Annex B stream is spliced and muxed once complete.
      { signal: stopBoth, stdout: this.skipPictures ? 'buffer' : 'ignore', stdoutLimitBytes: 2 ** 31 - 1 },
    );
    const converted = this.readConverted();
    const encoded = this.encoder.done.then(({ stdout }) => {
      if (!this.skipPictures) return;
      return muxHeldPictures(stdout, this.spliced, fps, video.outputPath, stopBoth);
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
      // No back-pressure here: the drawing paces the JPEGs; a failed converter is reported by `done`.
      this.converter.write(next).catch(() => undefined);
      this.nextToConvert++;
    }
  }

  /** Every frame drawn: the encoder finishes; resolves when the video file is complete. */
  async done(): Promise<BlendedEncoding> {
    if (this.nextToConvert < this.plan.frames.length && !this.failure) {
      this.fail(new Error(`Only ${this.nextToConvert} of ${this.plan.frames.length} drawn frames reached the encoder`));
    }
    this.converter.end();
    // The first failure is the cause; the processes it stopped report only that they were stopped.
    await this.finished.catch((error: unknown) => {
      throw this.failure ?? error;
    });
    if (!this.skipPictures) return { encoded: this.plan.durationInFrames, skipped: 0, faded: 0 };
    const faded = this.spliced.reduce((sum, picture) => sum + (picture.fadeIn?.length ?? 0), 0);
    return { encoded: this.spliced.length, skipped: this.plan.durationInFrames - this.spliced.length - faded, faded };
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
    for (const wakes of this.waiting.values()) for (const wake of wakes) wake();
  }

  private async readConverted(): Promise<void> {
    const frames = new RawFrameSplitter(this.frameBytes);
    for await (const chunk of this.converter.stdout) {
      for (const picture of frames.push(chunk)) {
        const position = this.pictures.length;
        this.pictures.push(picture);
        for (const wake of this.waiting.get(position) ?? []) wake();
        this.waiting.delete(position);
      }
    }
    await this.converter.done;
    if (this.pictures.length !== this.plan.frames.length && !this.failure) {
      throw new Error(`The conversion returned ${this.pictures.length} of ${this.plan.frames.length} drawn frames`);
    }
  }

  private picture(position: number): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    const ready = this.pictures[position];
    if (ready) return Promise.resolve(ready);
    // Converted already and dropped after its last use: asking again is a bug, not a wait.
    if (position < this.pictures.length) return Promise.reject(new Error(`Drawn frame ${position} was asked for after its last use`));
    return new Promise<void>((resolve) => this.waiting.set(position, [...(this.waiting.get(position) ?? []), resolve])).then(() => this.picture(position));
  }

  private async feedEncoder(): Promise<void> {
    let written = 0;
    const write = async (frame: Buffer) => {
      await this.encoder.write(frame);
      if (this.failure) throw this.failure;
    };
    const release = (index: number) => {
      for (const term of this.plan.runs[index].mix) if (this.lastUse[term.drawn] === index) this.pictures[term.drawn] = null;
    };
    const progress = (frames: number) => {
      written += frames;
      this.onEncoded(written);
    };
    /** Skip pictures: the last picture given to x264 (drawn: its position in plan.frames, -1 for a mix). */
    let last: { picture: Buffer; drawn: number } | null = null;
    const runs = this.plan.runs;
    for (let index = 0; index < runs.length; index++) {
      const run = runs[index];
      if (this.skipPictures && run.mix.length === 1) {
        const drawn = run.mix[0].drawn;
        const picture = await this.picture(drawn);
        release(index);
        if (last && (last.drawn === drawn || last.picture.equals(picture))) {
          // The same picture again (a corner equal to the frame before it): more repeats.
          this.spliced[this.spliced.length - 1].hold += run.hold;
        } else {
          await write(picture);
          this.spliced.push({ hold: run.hold });
          last = { picture, drawn };
        }
        progress(run.hold);
        continue;
      }
      if (this.skipPictures && last) {
        const fade = await this.fadeFrom(last, index);
        if (fade) {
          await write(fade.picture);
          this.spliced.push({ hold: runs[fade.end].hold, fadeIn: fade.weights });
          for (let faded = index; faded <= fade.end; faded++) release(faded);
          last = { picture: fade.picture, drawn: runs[fade.end].mix[0].drawn };
          progress(fade.weights.length + runs[fade.end].hold);
          index = fade.end;
          continue;
        }
      }
      const terms = await Promise.all(run.mix.map(async (term) => ({ picture: await this.picture(term.drawn), weight: term.weight })));
      const frame = terms.length === 1 ? terms[0].picture : mixPictures(terms, this.frameBytes);
      release(index);
      for (let copy = 0; copy < (this.skipPictures ? 1 : run.hold); copy++) await write(frame);
      if (this.skipPictures) {
        this.spliced.push({ hold: run.hold });
        last = { picture: frame, drawn: -1 };
      }
      progress(run.hold);
    }
    this.encoder.end();
  }

  /**
   * The fade starting at run `start`, when the decoder can mix it: runs of the same two terms up to
   * a one-term run (the picture faded into, which x264 gets next and must not make an IDR), one
   * term being the picture x264 got last and the other the one faded into, by position or byte for
   * byte. Its frames' weights (of the picture faded into) and that run's index; null otherwise.
   */
  private async fadeFrom(last: { picture: Buffer; drawn: number }, start: number): Promise<{ weights: number[]; end: number; picture: Buffer } | null> {
    const runs = this.plan.runs;
    const [first, second] = runs[start].mix;
    if (runs[start].mix.length !== 2 || isHeldKeyframe(this.spliced.length)) return null;
    const sameTerms = (index: number) => {
      const mix = runs[index].mix;
      return mix.length === 2 && mix.every((term) => term.drawn === first.drawn || term.drawn === second.drawn);
    };
    let end = start;
    while (end < runs.length && sameTerms(end)) end++;
    if (end === runs.length || runs[end].mix.length !== 1) return null;
    const [firstPicture, secondPicture, after] = await Promise.all([this.picture(first.drawn), this.picture(second.drawn), this.picture(runs[end].mix[0].drawn)]);
    const afterDrawn = runs[end].mix[0].drawn;
    const isLast = (drawn: number, picture: Buffer) => drawn === last.drawn || picture.equals(last.picture);
    const isAfter = (drawn: number, picture: Buffer) => drawn === afterDrawn || picture.equals(after);
    let into: number;
    if (isLast(first.drawn, firstPicture) && isAfter(second.drawn, secondPicture)) into = second.drawn;
    else if (isLast(second.drawn, secondPicture) && isAfter(first.drawn, firstPicture)) into = first.drawn;
    else return null;
    const weights: number[] = [];
    for (let index = start; index < end; index++) {
      const weight = runs[index].mix.find((term) => term.drawn === into)!.weight;
      for (let copy = 0; copy < runs[index].hold; copy++) weights.push(weight);
    }
    return { weights, end, picture: after };
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

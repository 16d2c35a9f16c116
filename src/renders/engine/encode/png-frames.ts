import { startFfmpeg, type MediaProcess } from '../../../infra/media/media-runner';
import { RawFrameSplitter } from '../../../infra/media/raw-frame-splitter';

const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');

/** Whether `bytes` start as a PNG does (what is fed to PngDecoder must). */
export function isPng(bytes: Buffer): boolean {
  return bytes.length > 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE);
}

/**
 * PNGs of one size (a layer the browser draws) decoded by one ffmpeg process as they come, each
 * returned as raw pixels in the order fed: `rgba` (4 bytes a pixel) or `alpha` (its alpha plane, 1
 * byte a pixel), to `onPicture` as they come or, without it, to `next()`. ffmpeg decodes them in
 * less CPU than the hand-written reader it replaced (`npm run bench:codec`, docs/performance.md).
 * ffmpeg returns a picture only once more input or the end of it follows: feed ahead of what you
 * wait for (never feed one, then wait for it). A PNG ffmpeg cannot decode fails the whole decoder.
 */
export class PngDecoder {
  private readonly tool: MediaProcess;
  private readonly frameBytes: number;
  private fed = 0;
  private returned = 0;
  private writing: Promise<void> = Promise.resolve();
  private readonly reading: Promise<void>;
  private failure: Error | null = null;
  /** Pictures decoded and not yet taken by next(), and who waits for one or for room. */
  private readonly ready: Buffer[] = [];
  private waiting: (() => void)[] = [];

  constructor(
    width: number,
    height: number,
    format: 'rgba' | 'alpha',
    signal: AbortSignal,
    /** Each decoded picture, in the order fed (the buffer is the receiver's); absent: next() takes them. */
    private readonly onPicture?: (pixels: Buffer, index: number) => void,
    /** Without onPicture: decoded pictures kept for next() before ffmpeg is left to wait. */
    private readonly keep = 2,
  ) {
    this.frameBytes = width * height * (format === 'rgba' ? 4 : 1);
    this.tool = startFfmpeg(
      // A small probe and no frame threads, so pictures come back while PNGs are still fed;
      // -xerror: a damaged PNG fails rather than drops a picture.
      ['-v', 'error', '-xerror', '-threads', '1', '-probesize', '32', '-analyzeduration', '0', '-f', 'image2pipe', '-c:v', 'png', '-i', 'pipe:0',
        ...(format === 'alpha' ? ['-vf', 'format=rgba,alphaextract', '-pix_fmt', 'gray'] : ['-pix_fmt', 'rgba']),
        '-fps_mode', 'passthrough', '-flush_packets', '1', '-f', 'rawvideo', 'pipe:1'],
      { stdout: 'stream', signal },
    );
    this.reading = this.read();
    this.reading.catch(() => undefined);
  }

  /** Feeds a PNG (resolves once ffmpeg took it). */
  async feed(png: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (!isPng(png)) throw new Error('not a PNG');
    this.fed++;
    this.writing = this.writing.then(() => this.tool.write(png));
    await this.writing;
  }

  /** No more PNGs. */
  end(): void {
    void this.writing.catch(() => undefined).then(() => this.tool.end());
  }

  /** The next picture in the order fed; rejects when the decoder failed or has no more. */
  async next(): Promise<Buffer> {
    for (;;) {
      const picture = this.ready.shift();
      if (picture) {
        this.wakeUp();
        return picture;
      }
      if (this.failure) throw this.failure;
      if (this.settled) throw new Error('no more PNGs to decode');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** No more PNGs: resolves when every one fed is decoded (and, without onPicture, taken); rejects if any was not. */
  async close(): Promise<void> {
    this.end();
    await this.reading;
  }

  /** Stops the decoder (its caller failed): close() and next() reject with `error`. */
  kill(error: Error): void {
    this.failure ??= error;
    this.tool.kill(error);
    this.wakeUp();
  }

  private settled = false;

  private wakeUp(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }

  private async read(): Promise<void> {
    const frames = new RawFrameSplitter(this.frameBytes);
    try {
      for await (const chunk of this.tool.stdout) {
        for (const picture of frames.push(chunk)) {
          const index = this.returned++;
          if (this.onPicture) {
            this.onPicture(picture, index);
          } else {
            this.ready.push(picture);
            this.wakeUp();
          }
        }
        // Back-pressure: ffmpeg waits on its output while next() has enough in hand.
        while (!this.onPicture && this.ready.length >= this.keep && !this.failure) await new Promise<void>((resolve) => this.waiting.push(resolve));
      }
      await this.tool.done;
      if (frames.partialBytes !== 0 || this.returned !== this.fed) throw new Error(`ffmpeg decoded ${this.returned} of ${this.fed} PNGs${frames.partialBytes ? ' and part of one more (a PNG of another size?)' : ''}`);
      while (this.ready.length > 0 && !this.failure) await new Promise<void>((resolve) => this.waiting.push(resolve));
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      throw this.failure;
    } finally {
      this.settled = true;
      this.wakeUp();
    }
  }
}

/**
 * A PNG writer for RGBA pictures of one size: one ffmpeg process writes the i-th picture given to
 * `pattern` with `%06d` as i (rows unfiltered, deflated fast: each is read once, by ffmpeg).
 */
export class PngWriter {
  private readonly tool: MediaProcess;
  private written = 0;

  constructor(width: number, height: number, private readonly pattern: string, signal: AbortSignal) {
    this.tool = startFfmpeg(
      ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${width}x${height}`, '-i', 'pipe:0',
        '-c:v', 'png', '-pred', 'none', '-compression_level', '1', '-start_number', '0', '-f', 'image2', pattern],
      { signal },
    );
  }

  /** Writes a picture (resolves once ffmpeg took it); returns the file it will be. */
  async write(pixels: Buffer): Promise<string> {
    const file = this.pattern.replace('%06d', String(this.written++).padStart(6, '0'));
    await this.tool.write(pixels);
    return file;
  }

  /** Every picture written: resolves when the files are complete. */
  async close(): Promise<void> {
    this.tool.end();
    await this.tool.done;
  }
}

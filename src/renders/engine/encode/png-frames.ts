import { startFfmpeg, type MediaProcess } from '../../../infra/media/media-runner';

const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');

/** Whether `bytes` start as a PNG does (what is fed to PngDecoder must). */
export function isPng(bytes: Buffer): boolean {
  return bytes.length > 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE);
}

/**
 * PNGs of one size (a layer the browser draws) decoded by one ffmpeg process as they come, each
 * returned as raw pixels in the order fed: `rgba` (4 bytes a pixel) or `alpha` (its alpha plane, 1
 * byte a pixel). ffmpeg decodes them in less CPU than the hand-written reader it replaced
 * (`npm run bench:codec`, docs/performance.md). A PNG ffmpeg cannot decode fails the whole decoder.
 */
export class PngDecoder {
  private readonly tool: MediaProcess;
  private readonly frameBytes: number;
  private fed = 0;
  private returned = 0;
  private readonly waiting = new Map<number, { resolve: (pixels: Buffer) => void; reject: (error: Error) => void }>();
  private writing: Promise<void> = Promise.resolve();
  private readonly reading: Promise<void>;
  private failure: Error | null = null;

  constructor(
    width: number,
    height: number,
    format: 'rgba' | 'alpha',
    signal: AbortSignal,
    /** Each decoded picture, in the order fed (the buffer is the receiver's). */
    private readonly onPicture: (pixels: Buffer, index: number) => void = () => undefined,
  ) {
    this.frameBytes = width * height * (format === 'rgba' ? 4 : 1);
    this.tool = startFfmpeg(
      // A small probe and no frame threads: each picture comes back before the next is fed, not
      // after megabytes of input; -xerror: a damaged PNG fails rather than drops a picture.
      ['-v', 'error', '-xerror', '-threads', '1', '-probesize', '32', '-analyzeduration', '0', '-f', 'image2pipe', '-c:v', 'png', '-i', 'pipe:0',
        ...(format === 'alpha' ? ['-vf', 'format=rgba,alphaextract', '-pix_fmt', 'gray'] : ['-pix_fmt', 'rgba']),
        '-fps_mode', 'passthrough', '-flush_packets', '1', '-f', 'rawvideo', 'pipe:1'],
      { stdout: 'stream', signal },
    );
    this.reading = this.read();
    this.reading.catch(() => undefined);
  }

  /** Feeds a PNG (resolves once ffmpeg took it); its pixels go to onPicture. */
  async feed(png: Buffer): Promise<number> {
    if (this.failure) throw this.failure;
    if (!isPng(png)) throw new Error('not a PNG');
    const index = this.fed++;
    this.writing = this.writing.then(() => this.tool.write(png));
    await this.writing;
    return index;
  }

  /** The pixels of one PNG. */
  decode(png: Buffer): Promise<Buffer> {
    const index = this.fed;
    const pixels = new Promise<Buffer>((resolve, reject) => this.waiting.set(index, { resolve, reject }));
    this.feed(png).catch((error: unknown) => {
      this.waiting.get(index)?.reject(error instanceof Error ? error : new Error(String(error)));
      this.waiting.delete(index);
    });
    return pixels;
  }

  /** No more PNGs: resolves when every one fed is decoded; rejects if any was not. */
  async close(): Promise<void> {
    await this.writing.catch(() => undefined);
    this.tool.end();
    await this.reading;
  }

  private async read(): Promise<void> {
    let current = Buffer.allocUnsafe(this.frameBytes);
    let filled = 0;
    try {
      for await (const chunk of this.tool.stdout) {
        let offset = 0;
        while (offset < chunk.length) {
          const take = Math.min(chunk.length - offset, this.frameBytes - filled);
          chunk.copy(current, filled, offset, offset + take);
          filled += take;
          offset += take;
          if (filled < this.frameBytes) continue;
          const index = this.returned++;
          this.onPicture(current, index);
          this.waiting.get(index)?.resolve(current);
          this.waiting.delete(index);
          current = Buffer.allocUnsafe(this.frameBytes);
          filled = 0;
        }
      }
      await this.tool.done;
      if (filled !== 0 || this.returned !== this.fed) throw new Error(`ffmpeg decoded ${this.returned} of ${this.fed} PNGs${filled ? ' and part of one more (a PNG of another size?)' : ''}`);
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      for (const waiter of this.waiting.values()) waiter.reject(this.failure);
      this.waiting.clear();
      throw this.failure;
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

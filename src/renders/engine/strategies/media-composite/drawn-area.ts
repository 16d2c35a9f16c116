import { isPng, PngDecoder } from '../../encode/png-frames';

/** A rectangle on the canvas, whole pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where a layer drawn on a transparent page has pixels: per row, the first and last column whose
 * alpha is not 0 (-1 when the row is empty), merged over every frame given to `add`. The upper
 * layer of a composite is mostly empty; overlaying only these parts gives the same pixels, since a
 * pixel of alpha 0 leaves what is below it unchanged. ffmpeg decodes the frames' alpha as they are
 * added (PngDecoder); `finish` waits for the last.
 */
export class DrawnArea {
  readonly width: number;
  readonly height: number;
  private readonly first: Int32Array;
  private readonly last: Int32Array;
  /** Set when a frame could not be read: the whole canvas counts as drawn. */
  private everywhere = false;
  private decoder: PngDecoder | null = null;

  constructor(width: number, height: number, private readonly signal: AbortSignal) {
    this.width = width;
    this.height = height;
    this.first = new Int32Array(height).fill(-1);
    this.last = new Int32Array(height).fill(-1);
  }

  /** Adds a frame (PNG bytes, as the browser captured it); resolves once it is handed to the decoder. */
  async add(png: Buffer): Promise<void> {
    if (this.everywhere) return;
    if (!isPng(png)) {
      this.everywhere = true;
      return;
    }
    this.decoder ??= new PngDecoder(this.width, this.height, 'alpha', this.signal, (alpha) => this.addAlpha(alpha));
    await this.decoder.feed(png).catch(() => this.unreadable());
  }

  /** Every frame added: resolves when each is counted. */
  async finish(): Promise<void> {
    await this.decoder?.close().catch(() => this.unreadable());
  }

  private unreadable(): void {
    // A cancelled render is not a damaged frame.
    this.signal.throwIfAborted();
    this.everywhere = true;
  }

  /** One frame's alpha plane, a byte a pixel. */
  private addAlpha(alpha: Buffer): void {
    const { width } = this;
    const zeros = Buffer.alloc(width);
    for (let y = 0; y < this.height; y++) {
      const start = y * width;
      const row = alpha.subarray(start, start + width);
      // Most rows of a mostly empty layer are empty: compared at once, not pixel by pixel.
      if (row.equals(zeros)) continue;
      let left = 0;
      while (row[left] === 0) left++;
      let right = width - 1;
      while (row[right] === 0) right--;
      if (this.first[y] < 0 || left < this.first[y]) this.first[y] = left;
      if (right > this.last[y]) this.last[y] = right;
    }
  }

  /**
   * The drawn area as bands of rows, each with the columns drawn in any of its rows; runs of
   * drawn rows closer than `gap` rows share a band, and at most `maxBands` bands are kept (the
   * closest merged), so the filter graph stays small.
   */
  bands(gap = 32, maxBands = 6): Rect[] {
    if (this.everywhere) return [{ x: 0, y: 0, width: this.width, height: this.height }];
    const bands: { top: number; bottom: number; left: number; right: number }[] = [];
    for (let y = 0; y < this.height; y++) {
      if (this.first[y] < 0) continue;
      const band = bands[bands.length - 1];
      if (band && y - band.bottom <= gap) {
        band.bottom = y + 1;
        band.left = Math.min(band.left, this.first[y]);
        band.right = Math.max(band.right, this.last[y] + 1);
      } else {
        bands.push({ top: y, bottom: y + 1, left: this.first[y], right: this.last[y] + 1 });
      }
    }
    while (bands.length > maxBands) {
      let closest = 0;
      for (let index = 1; index < bands.length - 1; index++) {
        if (bands[index + 1].top - bands[index].bottom < bands[closest + 1].top - bands[closest].bottom) closest = index;
      }
      const [a, b] = [bands[closest], bands[closest + 1]];
      bands.splice(closest, 2, { top: a.top, bottom: b.bottom, left: Math.min(a.left, b.left), right: Math.max(a.right, b.right) });
    }
    return bands.map((band) => ({ x: band.left, y: band.top, width: band.right - band.left, height: band.bottom - band.top }));
  }
}

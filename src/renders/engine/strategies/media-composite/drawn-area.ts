import { readPng, unfilter } from '../../codec';

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
 * pixel of alpha 0 leaves what is below it unchanged.
 */
export class DrawnArea {
  readonly width: number;
  readonly height: number;
  private readonly first: Int32Array;
  private readonly last: Int32Array;
  /** Set when a frame could not be read: the whole canvas counts as drawn. */
  private everywhere = false;

  constructor(width: number, height: number) {
    this.width = width;
    this.height = height;
    this.first = new Int32Array(height).fill(-1);
    this.last = new Int32Array(height).fill(-1);
  }

  /** Adds a frame (PNG bytes, as the browser captured it). */
  async add(png: Buffer): Promise<void> {
    if (this.everywhere) return;
    const rows = await alphaRows(png);
    if (!rows || rows.width !== this.width || rows.height !== this.height) {
      this.everywhere = true;
      return;
    }
    for (let y = 0; y < this.height; y++) {
      if (rows.first[y] < 0) continue;
      if (this.first[y] < 0 || rows.first[y] < this.first[y]) this.first[y] = rows.first[y];
      if (rows.last[y] > this.last[y]) this.last[y] = rows.last[y];
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

/**
 * Per row of a PNG, the first and last column whose alpha is not 0 (-1 for an empty row); every
 * pixel counts for a PNG without alpha. null for what this does not read (other than 8-bit RGB or
 * RGBA, interlaced, damaged): the caller then treats the whole frame as drawn.
 */
export async function alphaRows(png: Buffer): Promise<{ width: number; height: number; first: Int32Array; last: Int32Array } | null> {
  const read = await readPng(png);
  if (!read) return null;
  const { width, height, colourType, filtered: pixels } = read;
  const first = new Int32Array(height).fill(-1);
  const last = new Int32Array(height).fill(-1);
  if (colourType === 2) {
    first.fill(0);
    last.fill(width - 1);
    return { width, height, first, last };
  }
  const stride = width * 4;
  // Rows are unfiltered in place: each filter refers to the row above as already unfiltered.
  // Most rows of a mostly empty layer are zero bytes after a None, Sub or Up filter, or after any
  // filter below a zero row: those are read without a loop over their pixels.
  const zeros = Buffer.alloc(stride);
  let previous: Buffer | null = null;
  let previousZero = true;
  for (let y = 0; y < height; y++) {
    const start = y * (stride + 1);
    const filter = pixels[start];
    const row = pixels.subarray(start + 1, start + 1 + stride);
    if (filter > 4) return null;
    if (row.equals(zeros)) {
      if (filter === 2 && previous && !previousZero) {
        previous.copy(row);
        first[y] = first[y - 1];
        last[y] = last[y - 1];
        previous = row;
        continue;
      }
      if (filter <= 2 || previousZero) {
        previous = row;
        previousZero = true;
        continue;
      }
    }
    unfilter(filter, row, previous);
    previous = row;
    previousZero = row.equals(zeros);
    for (let x = 0; x < width; x++) {
      if (row[x * 4 + 3] === 0) continue;
      if (first[y] < 0) first[y] = x;
      last[y] = x;
    }
  }
  return { width, height, first, last };
}

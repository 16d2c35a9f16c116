import type { Frame } from '../helpers/media';

/** A channel difference above this (out of 255) counts a pixel as different. */
export const PARITY_CHANNEL_THRESHOLD = 8;
/** At most this share of a frame's pixels may differ. */
export const PARITY_MAX_SHARE = 0.01;

export interface FrameDifference {
  /** Share of pixels (0–1) with some channel differing by more than the threshold. */
  overShare: number;
  /** Largest channel difference anywhere (0–255). */
  maxDifference: number;
  /** Bounding box [x0, y0, x1, y1] of the differing pixels, or null: where to look. */
  where: [number, number, number, number] | null;
}

/** A box [x0, y0, x1, y1] left out of a comparison (see CORPUS_EXCLUSIONS). */
export type Box = [number, number, number, number];

/** Compares two decoded frames (rgb24) of the same size, pixel by pixel, outside the `ignored` boxes. */
export function compareFrames(a: Frame, b: Frame, threshold = PARITY_CHANNEL_THRESHOLD, ignored: Box[] = []): FrameDifference {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`frames of different sizes: ${a.width}x${a.height} and ${b.width}x${b.height}`);
  let over = 0;
  let compared = 0;
  let maxDifference = 0;
  let where: [number, number, number, number] | null = null;
  for (let y = 0; y < a.height; y += 1) {
    for (let x = 0; x < a.width; x += 1) {
      if (ignored.some(([x0, y0, x1, y1]) => x >= x0 && x < x1 && y >= y0 && y < y1)) continue;
      compared += 1;
      const offset = (y * a.width + x) * 3;
      const difference = Math.max(
        Math.abs(a.data[offset] - b.data[offset]),
        Math.abs(a.data[offset + 1] - b.data[offset + 1]),
        Math.abs(a.data[offset + 2] - b.data[offset + 2]),
      );
      if (difference > maxDifference) maxDifference = difference;
      if (difference > threshold) {
        over += 1;
        where = where ? [Math.min(where[0], x), Math.min(where[1], y), Math.max(where[2], x + 1), Math.max(where[3], y + 1)] : [x, y, x + 1, y + 1];
      }
    }
  }
  return { overShare: compared === 0 ? 0 : over / compared, maxDifference, where };
}

import type { Frame } from './media';

/** A cell of a glyph grid: one grapheme drawn centred at (x, y). */
export interface GlyphCell {
  label: string;
  text: string;
  x: number;
  y: number;
}

/**
 * Text elements for a grid of graphemes, one per cell of `size` px, left to right and top to
 * bottom, each centred in its cell: what glyph checks crop and compare.
 */
export function glyphGrid(entries: { label: string; text: string }[], columns: number, size: number): GlyphCell[] {
  return entries.map((entry, index) => ({ ...entry, x: (index % columns) * size + size / 2, y: Math.floor(index / columns) * size + size / 2 }));
}

/** Ink of a cell: which pixels are lit (any channel above 96), row by row. */
export function inkOf(frame: Frame, cell: { x: number; y: number }, size: number): boolean[] {
  const ink: boolean[] = [];
  for (let y = cell.y - size / 2; y < cell.y + size / 2; y += 1) {
    for (let x = cell.x - size / 2; x < cell.x + size / 2; x += 1) {
      const [r, g, b] = frame.at(Math.round(x), Math.round(y));
      ink.push(Math.max(r, g, b) > 96);
    }
  }
  return ink;
}

/** Intersection over union of two ink masks: 1 is the same shape. */
export function inkOverlap(a: boolean[], b: boolean[]): number {
  let both = 0;
  let either = 0;
  a.forEach((lit, index) => {
    if (lit && b[index]) both += 1;
    if (lit || b[index]) either += 1;
  });
  return either === 0 ? 1 : both / either;
}

/** Pixels of a cell in colour (channels apart and bright; white text antialiases to greys): what a monochrome glyph never has. */
export function saturatedPixels(frame: Frame, cell: { x: number; y: number }, size: number): number {
  let count = 0;
  for (let y = cell.y - size / 2; y < cell.y + size / 2; y += 1) {
    for (let x = cell.x - size / 2; x < cell.x + size / 2; x += 1) {
      const [r, g, b] = frame.at(Math.round(x), Math.round(y));
      if (Math.max(r, g, b) > 96 && Math.max(r, g, b) - Math.min(r, g, b) > 48) count += 1;
    }
  }
  return count;
}

/** Runs of inked columns in the band of rows [top, bottom), gaps up to `mergeGap` px joined: the words of a line, left to right. */
export function inkRuns(frame: Frame, band: { top: number; bottom: number; width: number }, mergeGap: number): { start: number; end: number }[] {
  const runs: { start: number; end: number }[] = [];
  for (let x = 0; x < band.width; x += 1) {
    let lit = false;
    for (let y = band.top; y < band.bottom && !lit; y += 1) {
      const [r, g, b] = frame.at(x, y);
      lit = Math.max(r, g, b) > 96;
    }
    if (!lit) continue;
    const last = runs[runs.length - 1];
    if (last && x - last.end <= mergeGap + 1) last.end = x;
    else runs.push({ start: x, end: x });
  }
  return runs;
}

import { crc32, deflate, inflate } from 'node:zlib';
import { promisify } from 'node:util';

const inflateAsync = promisify(inflate);
const deflateAsync = promisify(deflate);

const SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');

/**
 * The pixel data of an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium's screenshots are):
 * its size, colour type and the still filtered rows (one filter byte, then the row), inflated.
 * null for anything else or a damaged file.
 */
export async function readPng(png: Buffer): Promise<{ width: number; height: number; colourType: 2 | 6; filtered: Buffer } | null> {
  if (png.length < 8 || !png.subarray(0, 8).equals(SIGNATURE)) return null;
  let width = 0;
  let height = 0;
  let colourType = -1;
  const data: Buffer[] = [];
  for (let offset = 8; offset + 8 <= png.length; ) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) return null;
      colourType = colour;
    } else if (type === 'IDAT') {
      data.push(body);
    } else if (type === 'IEND') {
      break;
    }
    offset += 12 + length;
  }
  if ((colourType !== 2 && colourType !== 6) || width === 0 || height === 0) return null;
  let filtered: Buffer;
  try {
    filtered = await inflateAsync(Buffer.concat(data));
  } catch {
    return null;
  }
  if (filtered.length < (width * (colourType === 6 ? 4 : 3) + 1) * height) return null;
  return { width, height, colourType, filtered };
}

/** An RGBA picture, 4 bytes a pixel, rows top to bottom. */
export interface RgbaPicture {
  width: number;
  height: number;
  pixels: Buffer;
}

/** The pixels of an 8-bit RGBA PNG (readPng's kinds; RGB gets alpha 255); null as readPng. */
export async function decodeRgbaPng(png: Buffer): Promise<RgbaPicture | null> {
  const read = await readPng(png);
  if (!read) return null;
  const { width, height, colourType, filtered } = read;
  const channels = colourType === 6 ? 4 : 3;
  const stride = width * channels;
  const rows = Buffer.alloc(stride * height);
  let previous: Buffer | null = null;
  for (let y = 0; y < height; y++) {
    const start = y * (stride + 1);
    const filter = filtered[start];
    if (filter > 4) return null;
    const row = rows.subarray(y * stride, (y + 1) * stride);
    filtered.copy(row, 0, start + 1, start + 1 + stride);
    unfilter(filter, row, previous, channels);
    previous = row;
  }
  if (channels === 4) return { width, height, pixels: rows };
  const pixels = Buffer.alloc(width * height * 4);
  for (let source = 0, target = 0; source < rows.length; source += 3, target += 4) {
    pixels[target] = rows[source];
    pixels[target + 1] = rows[source + 1];
    pixels[target + 2] = rows[source + 2];
    pixels[target + 3] = 255;
  }
  return { width, height, pixels };
}

/** An 8-bit RGBA PNG of `picture`, rows unfiltered, deflated fast (it is read once, by ffmpeg). */
export async function encodeRgbaPng(picture: RgbaPicture): Promise<Buffer> {
  const { width, height, pixels } = picture;
  const stride = width * 4;
  const rows = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) pixels.copy(rows, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', await deflateAsync(rows, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, body, crc]);
}

/** Reverses a PNG row filter in place (`channels` bytes a pixel). */
export function unfilter(filter: number, row: Buffer, above: Buffer | null, channels = 4): void {
  const length = row.length;
  switch (filter) {
    case 1:
      for (let i = channels; i < length; i++) row[i] = (row[i] + row[i - channels]) & 0xff;
      return;
    case 2:
      if (above) for (let i = 0; i < length; i++) row[i] = (row[i] + above[i]) & 0xff;
      return;
    case 3:
      for (let i = 0; i < length; i++) row[i] = (row[i] + (((i >= channels ? row[i - channels] : 0) + (above ? above[i] : 0)) >> 1)) & 0xff;
      return;
    case 4:
      for (let i = 0; i < length; i++) {
        const a = i >= channels ? row[i - channels] : 0;
        const b = above ? above[i] : 0;
        const c = i >= channels && above ? above[i - channels] : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = (row[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
  }
}

/**
 * The weighted mix of pictures drawn on a transparent page, as the page would have drawn the
 * frame between them: the page composites in premultiplied colour, where a group's opacity is
 * affine (blended-frames.ts), so each picture is premultiplied, the weighted sum taken, and the
 * result turned back into straight alpha as a PNG screenshot has it; 8-bit rounding as the page's.
 * Only rows some picture draws on are computed; the others stay transparent.
 */
export function mixRgba(terms: { picture: RgbaPicture; weight: number }[]): RgbaPicture {
  const { width, height } = terms[0].picture;
  if (terms.some(({ picture }) => picture.width !== width || picture.height !== height)) throw new Error('pictures of different sizes cannot be mixed');
  const pixels = Buffer.alloc(width * height * 4);
  const stride = width * 4;
  for (let y = 0; y < height; y++) {
    const rowStart = y * stride;
    if (terms.every(({ picture }) => isTransparentRow(picture.pixels, rowStart, stride))) continue;
    for (let offset = rowStart; offset < rowStart + stride; offset += 4) {
      let alpha = 0;
      let red = 0;
      let green = 0;
      let blue = 0;
      for (const { picture, weight } of terms) {
        const a = picture.pixels[offset + 3];
        if (a === 0) continue;
        const share = (weight * a) / 255;
        alpha += weight * a;
        red += share * picture.pixels[offset];
        green += share * picture.pixels[offset + 1];
        blue += share * picture.pixels[offset + 2];
      }
      const a = Math.round(alpha);
      if (a === 0) continue;
      const unpremultiply = 255 / alpha;
      pixels[offset] = Math.min(255, Math.round(red * unpremultiply));
      pixels[offset + 1] = Math.min(255, Math.round(green * unpremultiply));
      pixels[offset + 2] = Math.min(255, Math.round(blue * unpremultiply));
      pixels[offset + 3] = a;
    }
  }
  return { width, height, pixels };
}

function isTransparentRow(pixels: Buffer, start: number, stride: number): boolean {
  for (let offset = start + 3; offset < start + stride; offset += 4) if (pixels[offset] !== 0) return false;
  return true;
}

/** An RGBA picture, 4 bytes a pixel, rows top to bottom. */
export interface RgbaPicture {
  width: number;
  height: number;
  pixels: Buffer;
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

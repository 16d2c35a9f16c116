import { libyuvBt709Cube } from './media-composite';

/** The cube's map at one 8-bit Y, U, V (trilinear over its 2x2x2 corners), clamped and rounded like lut3d's output. */
function convert(cube: string, y: number, u: number, v: number): number[] {
  const rows = cube.trim().split('\n').slice(1).map((line) => line.split(' ').map(Number));
  const [r, g, b] = [v / 255, y / 255, u / 255];
  const out = [0, 0, 0];
  // .cube order: red fastest, then green, then blue.
  for (let bi = 0; bi < 2; bi++) for (let gi = 0; gi < 2; gi++) for (let ri = 0; ri < 2; ri++) {
    const weight = (ri ? r : 1 - r) * (gi ? g : 1 - g) * (bi ? b : 1 - b);
    const row = rows[bi * 4 + gi * 2 + ri];
    for (let channel = 0; channel < 3; channel++) out[channel] += weight * row[channel];
  }
  return out.map((value) => Math.min(255, Math.max(0, Math.round(value * 255))));
}

describe('libyuvBt709Cube', () => {
  it('converts as Chromium drew these colour-bar pixels (PNG stills of a <Video>), blue clamped to 2.0', () => {
    const cube = libyuvBt709Cube();
    // Y, U, V of the source → RGB the page drew (swscale's BT.709 gives 0, 11, 199 for the blue bar).
    const drawn: [number[], number[]][] = [
      [[35, 212, 114], [0, 11, 190]],
      [[84, 184, 198], [205, 30, 191]],
      [[65, 100, 212], [208, 19, 1]],
      [[180, 128, 128], [191, 191, 191]],
      [[162, 44, 142], [195, 181, 2]],
    ];
    for (const [[y, u, v], rgb] of drawn) {
      const converted = convert(cube, y, u, v);
      expect({ yuv: [y, u, v], close: converted.every((value, channel) => Math.abs(value - rgb[channel]) <= 1), converted }).toMatchObject({ yuv: [y, u, v], close: true });
    }
  });
});

import { applyLut, CubeParseError, parseCube } from './lut';

function cube(size: number, map: (r: number, g: number, b: number) => number[], header = ''): string {
  const lines = [header, `LUT_3D_SIZE ${size}`];
  for (let b = 0; b < size; b += 1) for (let g = 0; g < size; g += 1) for (let r = 0; r < size; r += 1) lines.push(map(r / (size - 1), g / (size - 1), b / (size - 1)).join(' '));
  return lines.join('\n');
}

function parseError(text: string): CubeParseError {
  try {
    parseCube(text);
  } catch (error) {
    return error as CubeParseError;
  }
  throw new Error('parsed');
}

describe('.cube LUTs', () => {
  it('parses a 3D cube with title, comments and domain; red varies fastest', () => {
    const lut = parseCube(cube(2, (r, g, b) => [r, g, b], '# made by hand\nTITLE "Identity"\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1'));
    expect(lut).toMatchObject({ title: 'Identity', kind: '3d', size: 2, domainMin: [0, 0, 0], domainMax: [1, 1, 1] });
    expect(Array.from(lut.table.slice(0, 6))).toEqual([0, 0, 0, 1, 0, 0]);
  });

  it('interpolates trilinearly between points', () => {
    const invert = parseCube(cube(3, (r, g, b) => [1 - r, 1 - g, 1 - b]));
    expect(applyLut(invert, [0.2, 0.5, 0.9]).map((v) => Math.round(v * 1000) / 1000)).toEqual([0.8, 0.5, 0.1]);
    const square = parseCube(cube(5, (r, g, b) => [r * r, g, b]));
    expect(applyLut(square, [0.5, 0, 0])[0]).toBeCloseTo(0.25, 5);
    expect(applyLut(square, [0.6, 0, 0])[0]).toBeCloseTo(0.25 + (0.5625 - 0.25) * 0.4, 5);
  });

  it('maps the input domain and reads 1D LUTs per channel', () => {
    const wide = parseCube(`DOMAIN_MIN 0 0 0\nDOMAIN_MAX 2 2 2\n${cube(2, (r, g, b) => [r, g, b]).split('\n').slice(1).join('\n')}`);
    expect(applyLut(wide, [1, 1, 1])).toEqual([0.5, 0.5, 0.5]);
    const curve = parseCube('LUT_1D_SIZE 3\n0 0 1\n0.25 0.5 0.5\n1 1 0\n');
    expect(curve.kind).toBe('1d');
    expect(applyLut(curve, [0.5, 0.5, 0.25])).toEqual([0.25, 0.5, 0.75]);
  });

  it('refuses malformed and oversized cubes with the line number', () => {
    expect(parseError('LUT_3D_SIZE 2\n0 0 0\n1 0 zero\n').message).toBe('line 3: a data line needs three numbers');
    expect(parseError('TITLE "x"\nLUT_3D_SIZE 66\n').message).toBe('line 2: LUT_3D_SIZE 66 is outside 2..65');
    expect(parseError('LUT_3D_SIZE 2\n0 0 0\n').message).toBe('line 2: 1 data lines, but the size declares 8');
    expect(parseError('0 0 0\n').line).toBe(1);
    expect(parseError('LUT_3D_SIZE 2\nFOO 1\n').message).toBe('line 2: unknown keyword "FOO"');
    expect(parseError(`${cube(2, (r, g, b) => [r, g, b])}\n1 1 1`).message).toBe('line 11: more data lines than the 8 that the size declares');
    expect(parseError('').message).toBe('no LUT_3D_SIZE or LUT_1D_SIZE line');
  });
});

/**
 * Adobe / Resolve `.cube` LUTs: parsed once (the server at submit to refuse a bad file, the
 * composition to draw it), applied per pixel with trilinear interpolation (3D) or linear
 * interpolation per channel (1D). Pure TypeScript: Node and the browser both import it.
 */
export interface CubeLut {
  title: string | null;
  kind: '1d' | '3d';
  /** Points per axis. */
  size: number;
  domainMin: [number, number, number];
  domainMax: [number, number, number];
  /** RGB triples; 3D: red varies fastest, then green, then blue; 1D: one triple per point. */
  table: Float32Array;
}

export const MAX_LUT_3D_SIZE = 65;
export const MAX_LUT_1D_SIZE = 4096;
/** Larger files are refused before parsing (a 65-point cube in plain decimals is about 6 MB). */
export const MAX_LUT_BYTES = 16 * 1024 * 1024;

export class CubeParseError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(line > 0 ? `line ${line}: ${message}` : message);
  }
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Parses a .cube file; throws CubeParseError naming the offending line. */
export function parseCube(text: string): CubeLut {
  if (text.length > MAX_LUT_BYTES) throw new CubeParseError(`the file is larger than ${MAX_LUT_BYTES / 1024 / 1024} MB`, 0);
  let title: string | null = null;
  let kind: '1d' | '3d' | null = null;
  let size = 0;
  let domainMin: [number, number, number] = [0, 0, 0];
  let domainMax: [number, number, number] = [1, 1, 1];
  let table: Float32Array | null = null;
  let count = 0;
  let lineNumber = 0;
  let lastDataLine = 0;
  const lines = text.split(/\r\n|\n|\r/);
  const triple = (parts: string[], what: string): [number, number, number] => {
    if (parts.length !== 3 || !parts.every((part) => NUMBER.test(part))) throw new CubeParseError(`${what} needs three numbers`, lineNumber);
    return parts.map(Number) as [number, number, number];
  };
  for (const raw of lines) {
    lineNumber += 1;
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    const [keyword, ...rest] = line.split(/\s+/);
    const upper = keyword.toUpperCase();
    if (upper === 'TITLE') {
      const match = /^TITLE\s+"?(.*?)"?\s*$/i.exec(line);
      title = match ? match[1] : '';
    } else if (upper === 'LUT_3D_SIZE' || upper === 'LUT_1D_SIZE') {
      if (kind !== null) throw new CubeParseError('a second LUT size', lineNumber);
      if (rest.length !== 1 || !/^\d+$/.test(rest[0])) throw new CubeParseError(`${keyword} needs one whole number`, lineNumber);
      size = Number(rest[0]);
      kind = upper === 'LUT_3D_SIZE' ? '3d' : '1d';
      const max = kind === '3d' ? MAX_LUT_3D_SIZE : MAX_LUT_1D_SIZE;
      if (size < 2 || size > max) throw new CubeParseError(`${keyword} ${size} is outside 2..${max}`, lineNumber);
      table = new Float32Array((kind === '3d' ? size ** 3 : size) * 3);
    } else if (upper === 'DOMAIN_MIN') {
      domainMin = triple(rest, 'DOMAIN_MIN');
    } else if (upper === 'DOMAIN_MAX') {
      domainMax = triple(rest, 'DOMAIN_MAX');
    } else if (upper === 'LUT_1D_INPUT_RANGE' || upper === 'LUT_3D_INPUT_RANGE') {
      if (rest.length !== 2 || !rest.every((part) => NUMBER.test(part))) throw new CubeParseError(`${keyword} needs two numbers`, lineNumber);
      domainMin = [Number(rest[0]), Number(rest[0]), Number(rest[0])];
      domainMax = [Number(rest[1]), Number(rest[1]), Number(rest[1])];
    } else if (NUMBER.test(keyword)) {
      if (!table) throw new CubeParseError('a data line before LUT_3D_SIZE or LUT_1D_SIZE', lineNumber);
      const values = triple([keyword, ...rest], 'a data line');
      if (count * 3 >= table.length) throw new CubeParseError(`more data lines than the ${table.length / 3} that the size declares`, lineNumber);
      table.set(values, count * 3);
      count += 1;
      lastDataLine = lineNumber;
    } else {
      throw new CubeParseError(`unknown keyword "${keyword.slice(0, 40)}"`, lineNumber);
    }
  }
  if (!table || !kind) throw new CubeParseError('no LUT_3D_SIZE or LUT_1D_SIZE line', 0);
  if (count * 3 !== table.length) {
    throw new CubeParseError(`${count} data lines, but the size declares ${table.length / 3}`, lastDataLine || lineNumber);
  }
  for (let i = 0; i < 3; i += 1) {
    if (!(domainMax[i] > domainMin[i])) throw new CubeParseError('DOMAIN_MAX must be greater than DOMAIN_MIN on every channel', 0);
  }
  return { title, kind, size, domainMin, domainMax, table };
}

/** Reference lookup of one sRGB pixel (0..1), as the shader does it. */
export function applyLut(lut: CubeLut, rgb: readonly number[]): [number, number, number] {
  const position = rgb.map((v, i) => Math.min(1, Math.max(0, (v - lut.domainMin[i]) / (lut.domainMax[i] - lut.domainMin[i]))) * (lut.size - 1));
  if (lut.kind === '1d') {
    return [0, 1, 2].map((channel) => {
      const p = position[channel];
      const i0 = Math.floor(p);
      const i1 = Math.min(lut.size - 1, i0 + 1);
      const t = p - i0;
      return lut.table[i0 * 3 + channel] * (1 - t) + lut.table[i1 * 3 + channel] * t;
    }) as [number, number, number];
  }
  const n = lut.size;
  const [r, g, b] = position;
  const r0 = Math.floor(r), g0 = Math.floor(g), b0 = Math.floor(b);
  const r1 = Math.min(n - 1, r0 + 1), g1 = Math.min(n - 1, g0 + 1), b1 = Math.min(n - 1, b0 + 1);
  const tr = r - r0, tg = g - g0, tb = b - b0;
  const at = (ri: number, gi: number, bi: number, channel: number) => lut.table[(ri + gi * n + bi * n * n) * 3 + channel];
  return [0, 1, 2].map((ch) => {
    const c00 = at(r0, g0, b0, ch) * (1 - tr) + at(r1, g0, b0, ch) * tr;
    const c10 = at(r0, g1, b0, ch) * (1 - tr) + at(r1, g1, b0, ch) * tr;
    const c01 = at(r0, g0, b1, ch) * (1 - tr) + at(r1, g0, b1, ch) * tr;
    const c11 = at(r0, g1, b1, ch) * (1 - tr) + at(r1, g1, b1, ch) * tr;
    return (c00 * (1 - tg) + c10 * tg) * (1 - tb) + (c01 * (1 - tg) + c11 * tg) * tb;
  }) as [number, number, number];
}

import { createEffect } from 'remotion';
import { gradePixel, type GradeSettings, isNeutral } from './colour';
import { fastGrade, type FastGrade } from './fast-grade';
import { applyLut, type CubeLut } from './lut';

/**
 * The colour grade of colour.ts and the LUT of lut.ts as one canvas pass, run by Remotion's effect
 * chain on each frame of a `<Video>` (at the source's own size, before the frame is captured) or on
 * a `<CanvasImage>`.
 *
 * Plain JavaScript over the frame's pixels, not WebGL: on a render host without a GPU, WebGL runs in
 * SwiftShader, whose upload, shading and read-back of a frame cost more than the rest of the frame
 * (docs/performance.md); this pass costs a fraction of it, and it computes the same
 * bits in every browser, so a Player shows exactly what the server renders.
 *
 * Every per-pixel colour step (1–11 of colour.ts: exposure … hue, the LUT mixed by its intensity,
 * the colour overlay) is baked once into a 3D table of max(33, LUT size) points per axis, applied
 * with tetrahedral interpolation — or, when the grade is only per-channel curves, saturation and
 * overlay, into three 256-entry curves; the sharpening before it and the vignette and noise after
 * it depend on the pixel's place and are computed per pixel.
 */
export interface GradeParams {
  settings: GradeSettings;
  lut: CubeLut | null;
  /** Identifies `lut` (its URL) for caching the baked table. */
  lutKey: string;
  /**
   * Seeds the noise; changes every frame when noise is on. A video passes a box updated in place:
   * its frames are redrawn every frame anyway, and a key changing every frame costs a <Video> far
   * more than the noise itself. An image passes the number, so its picture is redrawn each frame.
   */
  seed: number | { value: number };
  /**
   * The catalog's `vignette` and `film_grain` effects while active on this picture (0..1 each;
   * effects.tsx draws them with SVG on text and shapes): the same pass does them far cheaper.
   */
  catalog?: { vignette: number; grain: number };
}

interface Baked {
  key: string;
  size: number;
  /** RGB 0..255, red fastest; empty when nothing per-pixel is left to do. */
  table: Float32Array;
  /** The cheaper equivalent when the grade is per-channel curves, saturation and overlay only. */
  fast: FastGrade | null;
}

export function applyFast(data: Uint8ClampedArray, grade: FastGrade): void {
  const [cr, cg, cb] = grade.curves;
  const k = grade.saturation;
  const overlay = grade.overlay;
  const [or, og, ob, oa] = overlay ? [overlay[0] * 255, overlay[1] * 255, overlay[2] * 255, overlay[3]] : [0, 0, 0, 0];
  for (let i = 0; i < data.length; i += 4) {
    let r = cr[data[i]];
    let g = cg[data[i + 1]];
    let b = cb[data[i + 2]];
    if (k !== 1) {
      const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
      r = l + (r - l) * k;
      g = l + (g - l) * k;
      b = l + (b - l) * k;
      // Clamped here as in the reference, before the overlay mixes in.
      r = r < 0 ? 0 : r > 255 ? 255 : r;
      g = g < 0 ? 0 : g > 255 ? 255 : g;
      b = b < 0 ? 0 : b > 255 ? 255 : b;
    }
    if (oa > 0) {
      r += (or - r) * oa;
      g += (og - g) * oa;
      b += (ob - b) * oa;
    }
    data[i] = r;
    data[i + 1] = g;
    data[i + 2] = b;
  }
}

interface GradeState {
  /** A canvas kept in memory (willReadFrequently): reading its pixels back is cheap. */
  work: CanvasRenderingContext2D;
  baked: Baked | null;
  vignette: { key: string; factors: Float32Array } | null;
  catalogVignette: { key: string; factors: Float32Array } | null;
}

const TABLE_SIZE = 33;

/** The colour steps (without place-dependent ones) as a 3D table. */
export function bake(settings: GradeSettings, lut: CubeLut | null): Float32Array | null {
  const colourOnly: GradeSettings = { ...settings, vignette: 0, noise: 0, sharpness: 0 };
  const overlay = colourOnly.overlay;
  if (isNeutral(colourOnly) && !lut) return null;
  const size = Math.max(TABLE_SIZE, lut?.kind === '3d' ? lut.size : 0);
  const table = new Float32Array(size * size * size * 3);
  const beforeLut: GradeSettings = { ...colourOnly, overlay: null };
  let offset = 0;
  for (let b = 0; b < size; b += 1) {
    for (let g = 0; g < size; g += 1) {
      for (let r = 0; r < size; r += 1) {
        let c: number[] = gradePixel([r / (size - 1), g / (size - 1), b / (size - 1)], beforeLut);
        if (lut) {
          const looked = applyLut(lut, c);
          c = c.map((v, i) => v + (Math.min(1, Math.max(0, looked[i])) - v) * settings.lutIntensity);
        }
        if (overlay) c = c.map((v, i) => v + (overlay[i] - v) * overlay[3]);
        table[offset++] = c[0] * 255;
        table[offset++] = c[1] * 255;
        table[offset++] = c[2] * 255;
      }
    }
  }
  return table;
}

/** Tetrahedral interpolation of `table` (size³ RGB, red fastest) at every pixel of `data`, in place (the clamped array rounds). */
export function applyTable(data: Uint8ClampedArray, table: Float32Array, size: number): void {
  const n1 = size - 1;
  const scale = n1 / 255;
  const dr = 3;
  const dg = size * 3;
  const db = size * size * 3;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] === 0) continue;
    const fr = data[i] * scale;
    const fg = data[i + 1] * scale;
    const fb = data[i + 2] * scale;
    let r0 = fr | 0;
    let g0 = fg | 0;
    let b0 = fb | 0;
    if (r0 >= n1) r0 = n1 - 1;
    if (g0 >= n1) g0 = n1 - 1;
    if (b0 >= n1) b0 = n1 - 1;
    const x = fr - r0;
    const y = fg - g0;
    const z = fb - b0;
    const p000 = r0 * dr + g0 * dg + b0 * db;
    // The cube is cut into six tetrahedra by the order of x, y, z; each pixel uses the four corners of its own.
    let pA: number, pB: number, w0: number, w1: number, w2: number, w3: number;
    if (x >= y) {
      if (y >= z) { pA = p000 + dr; pB = pA + dg; w0 = 1 - x; w1 = x - y; w2 = y - z; w3 = z; }
      else if (x >= z) { pA = p000 + dr; pB = pA + db; w0 = 1 - x; w1 = x - z; w2 = z - y; w3 = y; }
      else { pA = p000 + db; pB = pA + dr; w0 = 1 - z; w1 = z - x; w2 = x - y; w3 = y; }
    } else if (z >= y) { pA = p000 + db; pB = pA + dg; w0 = 1 - z; w1 = z - y; w2 = y - x; w3 = x; }
    else if (z >= x) { pA = p000 + dg; pB = pA + db; w0 = 1 - y; w1 = y - z; w2 = z - x; w3 = x; }
    else { pA = p000 + dg; pB = pA + dr; w0 = 1 - y; w1 = y - x; w2 = x - z; w3 = z; }
    const p111 = p000 + dr + dg + db;
    data[i] = w0 * table[p000] + w1 * table[pA] + w2 * table[pB] + w3 * table[p111];
    data[i + 1] = w0 * table[p000 + 1] + w1 * table[pA + 1] + w2 * table[pB + 1] + w3 * table[p111 + 1];
    data[i + 2] = w0 * table[p000 + 2] + w1 * table[pA + 2] + w2 * table[pB + 2] + w3 * table[p111 + 2];
  }
}

/**
 * Unsharp mask with the 3x3 mean: c + 2·amount·(c − mean). Edge pixels reuse their neighbours
 * inside. The mean is separable: sums of three along each row first, then of three rows.
 */
export function sharpen(data: Uint8ClampedArray, width: number, height: number, amount: number): void {
  const k = (2 * amount) / 100;
  const stride = width * 4;
  const rowSums = new Uint16Array(data.length);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = y * stride + x * 4;
      const left = x > 0 ? i - 4 : i;
      const right = x < width - 1 ? i + 4 : i;
      rowSums[i] = data[left] + data[i] + data[right];
      rowSums[i + 1] = data[left + 1] + data[i + 1] + data[right + 1];
      rowSums[i + 2] = data[left + 2] + data[i + 2] + data[right + 2];
    }
  }
  for (let y = 0; y < height; y += 1) {
    const up = y > 0 ? -stride : 0;
    const down = y < height - 1 ? stride : 0;
    for (let i = y * stride, end = i + stride; i < end; i += 4) {
      for (let ch = i; ch < i + 3; ch += 1) {
        const mean = (rowSums[ch + up] + rowSums[ch] + rowSums[ch + down]) / 9;
        data[ch] = data[ch] + k * (data[ch] - mean);
      }
    }
  }
}

function vignetteFactors(width: number, height: number, amount: number): Float32Array {
  const factors = new Float32Array(width * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const d = Math.hypot((x + 0.5) / width - 0.5, (y + 0.5) / height - 0.5) / Math.SQRT1_2;
      const t = Math.min(1, Math.max(0, (d - 0.3) / 0.7));
      factors[y * width + x] = 1 - (amount / 100) * t * t * (3 - 2 * t);
    }
  }
  return factors;
}

/** A seeded integer hash per pixel and frame: uniform noise in 0..1, the same in every browser. */
function addNoise(data: Uint8ClampedArray, width: number, amount: number, seed: number): void {
  const scale = (amount / 100) * 0.5 * 255;
  for (let i = 0, p = 0; i < data.length; i += 4, p += 1) {
    const x = p % width;
    const y = (p - x) / width;
    let h = Math.imul(x, 73856093) ^ Math.imul(y, 19349663) ^ Math.imul(seed, 83492791);
    h = Math.imul(h ^ (h >>> 13), 1274126177);
    h ^= h >>> 16;
    const n = (h & 0xffffff) / 16777215;
    const delta = (n - 0.5) * scale;
    data[i] += delta;
    data[i + 1] += delta;
    data[i + 2] += delta;
  }
}

export const gradeEffect = createEffect<GradeParams, GradeState>({
  type: 'video-render-service/grade',
  label: 'Colour grade',
  documentationLink: null,
  backend: '2d',
  calculateKey: (params) => JSON.stringify([params.settings, params.lutKey, typeof params.seed === 'number' ? params.seed : 'per frame', params.catalog ?? null]),
  setup: () => {
    const work = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    if (!work) throw new Error('The colour grade needs a 2D canvas');
    return { work, baked: null, vignette: null, catalogVignette: null };
  },
  apply: ({ source, target, state, params, width, height }) => {
    const context = target.getContext('2d');
    if (!context) throw new Error('The colour grade needs a 2D canvas');
    const { work } = state;
    if (work.canvas.width !== width || work.canvas.height !== height) {
      work.canvas.width = width;
      work.canvas.height = height;
    }
    work.clearRect(0, 0, width, height);
    work.drawImage(source, 0, 0, width, height);
    const image = work.getImageData(0, 0, width, height);
    const { data } = image;
    const s = params.settings;
    if (s.sharpness > 0) sharpen(data, width, height, s.sharpness);
    const bakeKey = JSON.stringify([{ ...s, vignette: 0, noise: 0, sharpness: 0 }, params.lutKey]);
    if (state.baked?.key !== bakeKey) {
      const fast = fastGrade(s, params.lut);
      const table = fast ? null : bake(s, params.lut);
      const size = Math.max(TABLE_SIZE, params.lut?.kind === '3d' ? params.lut.size : 0);
      state.baked = { key: bakeKey, size, table: table ?? new Float32Array(0), fast };
    }
    if (state.baked.fast) applyFast(data, state.baked.fast);
    else if (state.baked.table.length > 0) applyTable(data, state.baked.table, state.baked.size);
    if (s.vignette > 0) {
      const vignetteKey = `${width}x${height}@${s.vignette}`;
      if (state.vignette?.key !== vignetteKey) state.vignette = { key: vignetteKey, factors: vignetteFactors(width, height, s.vignette) };
      const { factors } = state.vignette;
      for (let i = 0, p = 0; i < data.length; i += 4, p += 1) {
        data[i] *= factors[p];
        data[i + 1] *= factors[p];
        data[i + 2] *= factors[p];
      }
    }
    const seed = typeof params.seed === 'number' ? params.seed : params.seed.value;
    if (s.noise > 0) addNoise(data, width, s.noise, seed);
    const catalog = params.catalog;
    if (catalog && catalog.vignette > 0) {
      // The catalog vignette: down to 15 % at the corners at intensity 1.
      const key = `${width}x${height}@${catalog.vignette}`;
      if (state.catalogVignette?.key !== key) state.catalogVignette = { key, factors: vignetteFactors(width, height, 85 * catalog.vignette) };
      const { factors } = state.catalogVignette;
      for (let i = 0, p = 0; i < data.length; i += 4, p += 1) {
        data[i] *= factors[p];
        data[i + 1] *= factors[p];
        data[i + 2] *= factors[p];
      }
    }
    // Film grain: monochrome, ±17.5 % at intensity 1, a new pattern every frame.
    if (catalog && catalog.grain > 0) addNoise(data, width, 70 * catalog.grain, seed ^ 0x5bd1e995);
    context.putImageData(image, 0, 0);
  },
  cleanup: () => undefined,
  schema: {},
  validateParams: () => undefined,
});

import { parseDegrees } from '../schema/primitives';

/**
 * The colour fields of video and image elements ("color and image" in the spec) as numbers, and
 * their exact meaning as a per-pixel function. `gradePixel` is the reference: grade-effect.ts bakes
 * it into a 3D table applied to every frame (tests hold both to the anchors).
 *
 * Values are sRGB-encoded channels in 0..1. Steps, in order:
 *  1. exposure    ×2^(exposure/25) in linear light (±100 = ±4 stops)
 *  2. temperature R ×(1 + 0.25·t), B ×(1 − 0.25·t), t = temperature/100 (positive = warmer)
 *  3. tint        G ×(1 − 0.25·t), t = tint/100 (positive = magenta, negative = green)
 *  4. brightness  b = brightness/100; b < 0: c·(1 + b) (−100 = black); b > 0: c + (1 − c)·b (100 = white)
 *  5. contrast    k = contrast/100; (c − 0.5)·f + 0.5 with f = 1 + k for k ≤ 0 (−100 = flat mid-grey), 1 + 3k above
 *  6. highlights / shadows: c + a·(a > 0 ? 1 − c : c)·0.5, a = amount/100 × weight of the pixel's luma L
 *     (highlights: smoothstep(0.25, 1, L); shadows: 1 − smoothstep(0, 0.75, L))
 *  7. saturation  L + (c − L)·(1 + saturation/100), L = Rec. 709 luma (−100 = grey, R = G = B)
 *  8. vibrance    like saturation with factor 1 + v·(1 − s), v = vibrance/100, s = max − min of the pixel
 *  9. hue_rotate  the hue turned by the angle in HSV, keeping saturation and value (180deg: red → cyan)
 * 10. LUT         mixed in by lut_intensity (see lut.ts)
 * 11. color_overlay mixed over the colour by its alpha (#RRGGBB: fully)
 * 12. vignette    × (1 − v·smoothstep(0.3, 1, d)), v = vignette/100, d = distance from the centre (1 at the corners)
 * 13. noise       + (n − 0.5)·noise/100·0.5, n a seeded per-pixel, per-frame random number
 * sharpness (0..100) is an unsharp mask before step 1: c + 2·(sharpness/100)·(c − mean of the 3×3 neighbourhood);
 * blur (px) is a Gaussian blur of the element after all steps. Every result is clamped to 0..1.
 */
export interface GradeSettings {
  exposure: number;
  temperature: number;
  tint: number;
  brightness: number;
  contrast: number;
  highlights: number;
  shadows: number;
  saturation: number;
  vibrance: number;
  /** Degrees. */
  hueRotate: number;
  sharpness: number;
  noise: number;
  vignette: number;
  /** RGBA 0..1, or null. */
  overlay: [number, number, number, number] | null;
  lutIntensity: number;
}

export interface ColourFields {
  brightness?: number;
  contrast?: number;
  saturation?: number;
  exposure?: number;
  sharpness?: number;
  noise?: number;
  vignette?: number;
  hue_rotate?: number | string;
  temperature?: number;
  tint?: number;
  vibrance?: number;
  highlights?: number;
  shadows?: number;
  color_overlay?: string;
  lut_intensity?: number;
}

export const NEUTRAL_GRADE: GradeSettings = {
  exposure: 0, temperature: 0, tint: 0, brightness: 0, contrast: 0, highlights: 0, shadows: 0, saturation: 0,
  vibrance: 0, hueRotate: 0, sharpness: 0, noise: 0, vignette: 0, overlay: null, lutIntensity: 1,
};

export function gradeSettings(fields: ColourFields): GradeSettings {
  return {
    exposure: fields.exposure ?? 0,
    temperature: fields.temperature ?? 0,
    tint: fields.tint ?? 0,
    brightness: fields.brightness ?? 0,
    contrast: fields.contrast ?? 0,
    highlights: fields.highlights ?? 0,
    shadows: fields.shadows ?? 0,
    saturation: fields.saturation ?? 0,
    vibrance: fields.vibrance ?? 0,
    hueRotate: parseDegrees(fields.hue_rotate ?? 0),
    sharpness: fields.sharpness ?? 0,
    noise: fields.noise ?? 0,
    vignette: fields.vignette ?? 0,
    overlay: fields.color_overlay ? hexToRgba(fields.color_overlay) : null,
    lutIntensity: fields.lut_intensity ?? 1,
  };
}

/** Whether the grade changes no pixel (apart from a LUT, decided by the caller). */
export function isNeutral(settings: GradeSettings): boolean {
  return (Object.keys(NEUTRAL_GRADE) as (keyof GradeSettings)[])
    .filter((key) => key !== 'lutIntensity')
    .every((key) => settings[key] === NEUTRAL_GRADE[key] || (key === 'hueRotate' && settings.hueRotate % 360 === 0));
}

export function hexToRgba(hex: string): [number, number, number, number] {
  const value = (i: number) => Number.parseInt(hex.slice(i, i + 2), 16) / 255;
  return [value(1), value(3), value(5), hex.length === 9 ? value(7) : 1];
}

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));
const smoothstep = (a: number, b: number, x: number) => {
  const t = clamp01((x - a) / (b - a));
  return t * t * (3 - 2 * t);
};
const luma = ([r, g, b]: number[]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const toSrgb = (c: number) => (c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055);

/**
 * Steps 1–9 and 11–12 of one pixel (no LUT, no noise, no neighbourhood): the reference for the
 * shader. `position` is the pixel's place in the element, 0..1 each way (for the vignette).
 */
export function gradePixel(rgb: readonly number[], s: GradeSettings, position: [number, number] = [0.5, 0.5]): [number, number, number] {
  let c = [...rgb];
  if (s.exposure !== 0) c = c.map((v) => clamp01(toSrgb(toLinear(v) * 2 ** (s.exposure / 25))));
  c = [c[0] * (1 + (0.25 * s.temperature) / 100), c[1] * (1 - (0.25 * s.tint) / 100), c[2] * (1 - (0.25 * s.temperature) / 100)].map(clamp01);
  const b = s.brightness / 100;
  c = c.map((v) => (b < 0 ? v * (1 + b) : v + (1 - v) * b));
  const k = s.contrast / 100;
  const f = k <= 0 ? 1 + k : 1 + 3 * k;
  c = c.map((v) => clamp01((v - 0.5) * f + 0.5));
  const tone = (amount: number, weight: number) => {
    const a = (amount / 100) * weight;
    c = c.map((v) => clamp01(v + a * (a > 0 ? 1 - v : v) * 0.5));
  };
  if (s.highlights !== 0) tone(s.highlights, smoothstep(0.25, 1, luma(c)));
  if (s.shadows !== 0) tone(s.shadows, 1 - smoothstep(0, 0.75, luma(c)));
  const l = luma(c);
  c = c.map((v) => clamp01(l + (v - l) * (1 + s.saturation / 100)));
  if (s.vibrance !== 0) {
    const sat = Math.max(...c) - Math.min(...c);
    const l2 = luma(c);
    c = c.map((v) => clamp01(l2 + (v - l2) * (1 + (s.vibrance / 100) * (1 - sat))));
  }
  if (s.hueRotate % 360 !== 0) c = rotateHue(c, s.hueRotate);
  if (s.overlay) {
    const o = s.overlay;
    c = c.map((v, i) => v + (o[i] - v) * o[3]);
  }
  if (s.vignette !== 0) {
    const d = Math.hypot(position[0] - 0.5, position[1] - 0.5) / Math.SQRT1_2;
    const factor = 1 - (s.vignette / 100) * smoothstep(0.3, 1, d);
    c = c.map((v) => v * factor);
  }
  return c.map(clamp01) as [number, number, number];
}

/** Hue turned by `degrees` in HSV, saturation and value kept. */
export function rotateHue([r, g, b]: number[], degrees: number): number[] {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const delta = max - min;
  if (delta === 0) return [r, g, b];
  let hue = max === r ? ((g - b) / delta) % 6 : max === g ? (b - r) / delta + 2 : (r - g) / delta + 4;
  hue = (((hue * 60 + degrees) % 360) + 360) % 360;
  const sat = delta / max;
  const chroma = max * sat;
  const x = chroma * (1 - Math.abs(((hue / 60) % 2) - 1));
  const m = max - chroma;
  const sector = Math.floor(hue / 60) % 6;
  const [r1, g1, b1] = [[chroma, x, 0], [x, chroma, 0], [0, chroma, x], [0, x, chroma], [x, 0, chroma], [chroma, 0, x]][sector];
  return [r1 + m, g1 + m, b1 + m];
}

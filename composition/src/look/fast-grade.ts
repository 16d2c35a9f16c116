import { gradePixel, type GradeSettings } from './colour';
import type { CubeLut } from './lut';

/** Per-channel curves (steps 1–5 of colour.ts), then saturation (7) and the overlay (11). */
export interface FastGrade {
  curves: [Uint8Array, Uint8Array, Uint8Array];
  saturation: number;
  overlay: [number, number, number, number] | null;
}

/**
 * Most grades (exposure, temperature, tint, brightness, contrast, saturation, overlay) need no 3D
 * table: three 256-entry curves and a saturation mix do the same per pixel at a fraction of the cost.
 * The grade pass uses it on the page; the worker's media composite draws the same steps with ffmpeg.
 */
export function fastGrade(settings: GradeSettings, lut: CubeLut | null): FastGrade | null {
  if (lut || settings.highlights !== 0 || settings.shadows !== 0 || settings.vibrance !== 0 || settings.hueRotate % 360 !== 0) return null;
  const channelOnly: GradeSettings = { ...settings, saturation: 0, overlay: null, vignette: 0, noise: 0, sharpness: 0 };
  const curves: [Uint8Array, Uint8Array, Uint8Array] = [new Uint8Array(256), new Uint8Array(256), new Uint8Array(256)];
  for (let v = 0; v < 256; v += 1) {
    const out = gradePixel([v / 255, v / 255, v / 255], channelOnly);
    for (let ch = 0; ch < 3; ch += 1) curves[ch][v] = Math.round(out[ch] * 255);
  }
  return { curves, saturation: 1 + settings.saturation / 100, overlay: settings.overlay };
}


import { gradePixel, gradeSettings } from './colour';
import { fastGrade } from './fast-grade';
import { applyFast, applyTable, bake, sharpen } from './grade-effect';
import { parseCube } from './lut';

/** The baked table applied to one pixel, as the canvas pass does it. */
function viaTable(rgb: number[], fields: Parameters<typeof gradeSettings>[0], lut = null as ReturnType<typeof parseCube> | null): number[] {
  const settings = gradeSettings(fields);
  const table = bake(settings, lut)!;
  const size = Math.round(Math.cbrt(table.length / 3));
  const data = new Uint8ClampedArray([...rgb, 255]);
  applyTable(data, table, size);
  return Array.from(data.slice(0, 3));
}

describe('colour grade canvas pass (baked table, tetrahedral)', () => {
  const samples = [[255, 128, 51], [12, 200, 90], [128, 128, 128], [240, 10, 250], [33, 66, 99], [0, 0, 0], [255, 255, 255]];
  const grades = [{ brightness: 30, contrast: 20 }, { saturation: -60, temperature: 40 }, { exposure: -30, tint: 25 }, { hue_rotate: 45, vibrance: 50 }, { highlights: -80, shadows: 60 }];

  it('matches the reference per-pixel maths within 2/255', () => {
    for (const fields of grades) {
      for (const rgb of samples) {
        const expected = gradePixel(rgb.map((v) => v / 255), gradeSettings(fields)).map((v) => v * 255);
        const actual = viaTable(rgb, fields);
        actual.forEach((value, i) => expect([fields, rgb, i, Math.abs(value - expected[i]) <= 2]).toEqual([fields, rgb, i, true]));
      }
    }
  });

  it('uses three curves and a saturation mix when that is all the grade is, with the same result', () => {
    for (const fields of [{ brightness: 30, contrast: 20, saturation: 40 }, { exposure: -30, tint: 25, color_overlay: '#00ff0040' }, { saturation: -100 }]) {
      const settings = gradeSettings(fields);
      const fast = fastGrade(settings, null)!;
      expect(fast).not.toBeNull();
      for (const rgb of samples) {
        const expected = gradePixel(rgb.map((v) => v / 255), settings).map((v) => v * 255);
        const data = new Uint8ClampedArray([...rgb, 255]);
        applyFast(data, fast);
        Array.from(data.slice(0, 3)).forEach((value, i) => expect([fields, rgb, i, Math.abs(value - expected[i]) <= 2]).toEqual([fields, rgb, i, true]));
      }
    }
    expect(fastGrade(gradeSettings({ hue_rotate: 30 }), null)).toBeNull();
    expect(fastGrade(gradeSettings({ highlights: 10 }), null)).toBeNull();
  });

  it('keeps the anchors exact: grey, black, mid-grey, red → cyan', () => {
    const [r, g, b] = viaTable([255, 128, 51], { saturation: -100 });
    expect(r === g && g === b).toBe(true);
    expect(viaTable([255, 128, 51], { brightness: -100 })).toEqual([0, 0, 0]);
    expect(viaTable([20, 230, 90], { contrast: -100 })).toEqual([128, 128, 128]);
    expect(viaTable([255, 0, 0], { hue_rotate: '180deg' })).toEqual([0, 255, 255]);
  });

  it('applies a LUT by its intensity, and nothing at all when every field is neutral', () => {
    const lines = ['LUT_3D_SIZE 2'];
    for (let b = 0; b < 2; b += 1) for (let g = 0; g < 2; g += 1) for (let r = 0; r < 2; r += 1) lines.push(`${1 - r} ${1 - g} ${1 - b}`);
    const invert = parseCube(lines.join('\n'));
    expect(viaTable([255, 128, 51], {}, invert)).toEqual([0, 127, 204]);
    expect(viaTable([255, 128, 51], { lut_intensity: 0.5 }, invert)).toEqual([128, 128, 128]);
    expect(bake(gradeSettings({ vignette: 50, noise: 10, sharpness: 20 }), null)).toBeNull();
  });
});

describe('sharpness', () => {
  it('pushes an edge apart and leaves flat areas alone', () => {
    
    // 4x3 pixels: left half 64, right half 192.
    const data = new Uint8ClampedArray(4 * 3 * 4);
    for (let p = 0; p < 12; p += 1) data.set([(p % 4) < 2 ? 64 : 192, (p % 4) < 2 ? 64 : 192, (p % 4) < 2 ? 64 : 192, 255], p * 4);
    sharpen(data, 4, 3, 100);
    const row = [0, 1, 2, 3].map((x) => data[(4 + x) * 4]);
    // Mean next to the edge: (64·2 + 192)/3 = 106.7 on the dark side → 64 + 2·(64 − 106.7) = −21 → 0.
    expect(row).toEqual([64, 0, 255, 192]);
  });
});

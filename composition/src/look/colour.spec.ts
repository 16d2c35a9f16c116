import { gradePixel, gradeSettings, isNeutral, rotateHue } from './colour';

const grade = (rgb: number[], fields: Parameters<typeof gradeSettings>[0], position?: [number, number]) =>
  gradePixel(rgb, gradeSettings(fields), position).map((v) => Math.round(v * 255));
const RED = [1, 0, 0];
const ORANGE = [1, 0.5, 0.2];

describe('colour grade reference', () => {
  it('keeps every pixel with all fields at 0', () => {
    expect(isNeutral(gradeSettings({}))).toBe(true);
    expect(isNeutral(gradeSettings({ hue_rotate: '360deg' }))).toBe(true);
    expect(isNeutral(gradeSettings({ brightness: 1 }))).toBe(false);
    expect(grade(ORANGE, {})).toEqual([255, 128, 51]);
  });

  it('holds the anchors: saturation -100 grey, brightness -100 black, contrast -100 mid-grey, hue 180deg red → cyan', () => {
    const [r, g, b] = grade(ORANGE, { saturation: -100 });
    expect(r).toBe(g);
    expect(g).toBe(b);
    expect(grade(ORANGE, { brightness: -100 })).toEqual([0, 0, 0]);
    expect(grade([0.1, 0.9, 0.3], { contrast: -100 })).toEqual([128, 128, 128]);
    expect(grade(RED, { hue_rotate: '180deg' })).toEqual([0, 255, 255]);
    expect(grade(RED, { hue_rotate: 120 })).toEqual([0, 255, 0]);
    expect(grade(ORANGE, { brightness: 100 })).toEqual([255, 255, 255]);
  });

  it('exposure is in stops / 25, in linear light', () => {
    // +25 = one stop: linear light doubles. sRGB 0.5 is linear 0.214 → 0.428 → sRGB 0.686.
    expect(grade([0.5, 0.5, 0.5], { exposure: 25 })[0]).toBe(175);
    expect(grade([0.5, 0.5, 0.5], { exposure: -25 })[0]).toBe(92);
  });

  it('temperature warms (more red, less blue) and tint turns magenta (less green)', () => {
    expect(grade([0.5, 0.5, 0.5], { temperature: 100 })).toEqual([159, 128, 96]);
    expect(grade([0.5, 0.5, 0.5], { tint: 100 })).toEqual([128, 96, 128]);
    expect(grade([0.5, 0.5, 0.5], { tint: -100 })).toEqual([128, 159, 128]);
  });

  it('highlights touch bright tones, shadows dark ones', () => {
    expect(grade([0.9, 0.9, 0.9], { highlights: -100 })[0]).toBeLessThan(200);
    expect(grade([0.1, 0.1, 0.1], { highlights: -100 })).toEqual(grade([0.1, 0.1, 0.1], {}));
    expect(grade([0.1, 0.1, 0.1], { shadows: 100 })[0]).toBeGreaterThan(100);
    expect(grade([0.95, 0.95, 0.95], { shadows: 100 })[0]).toBe(242);
  });

  it('vibrance boosts dull colours more than saturated ones', () => {
    const spread = (rgb: number[]) => Math.max(...rgb) - Math.min(...rgb);
    const gain = (rgb: number[]) => spread(grade(rgb, { vibrance: 100 })) / spread(grade(rgb, {}));
    expect(gain([0.5, 0.45, 0.4])).toBeGreaterThan(1.8);
    expect(gain(ORANGE)).toBeLessThan(1.3);
  });

  it('color_overlay mixes by its alpha; vignette darkens the corners only', () => {
    expect(grade([0, 0, 0], { color_overlay: '#ff000080' })).toEqual([128, 0, 0]);
    expect(grade([0, 0, 0], { color_overlay: '#00ff00' })).toEqual([0, 255, 0]);
    expect(grade([1, 1, 1], { vignette: 100 }, [0.5, 0.5])).toEqual([255, 255, 255]);
    expect(grade([1, 1, 1], { vignette: 100 }, [0, 0])).toEqual([0, 0, 0]);
  });

  it('rotates hue in HSV keeping saturation and value', () => {
    expect(rotateHue([0.5, 0.25, 0.25], 180).map((v) => Math.round(v * 100))).toEqual([25, 50, 50]);
    expect(rotateHue([0.3, 0.3, 0.3], 90)).toEqual([0.3, 0.3, 0.3]);
  });
});

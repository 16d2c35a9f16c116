import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { easingFunction } from '../composition/src/motion/easing';
import { ffmpeg, Frame, frameAt, lavfiImage, pixelAt } from './helpers/media';
import { Checks, Rgb } from './helpers/checks';
import { withRenderApp } from './helpers/render-app';

/** How far a decoded channel may be from the expected one in this file's checks (encoding, scaling). */
const COLOUR_TOLERANCE = 6;


/** 64x64 tiles, 8 to a row, on a 512x256 canvas; elements 56x56 at the tile centre. */
const TILE = 64;
const SIZE = 56;
const centre = (n: number) => [TILE / 2 + TILE * (n % 8), TILE / 2 + TILE * Math.floor(n / 8)] as const;
const at = (n: number, rest: object) => ({ x: centre(n)[0], y: centre(n)[1], width: SIZE, height: SIZE, ...rest });
/** Pixel of tile `n`, offset from its centre. */
const probe = (frame: Frame, n: number, dx = 0, dy = 0) => frame.at(centre(n)[0] + dx, centre(n)[1] + dy);

const ORANGE = [255, 128, 51];
const BLUE = [0, 0, 255];

/** W3C Compositing and Blending Level 1: the result of blending source Cs over backdrop Cb (opaque). */
function blend(mode: string, cb: Rgb, cs: Rgb): number[] {
  const b = cb.map((v) => v / 255);
  const s = cs.map((v) => v / 255);
  const lum = (c: number[]) => 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2];
  const clipColor = (c: number[]) => {
    const l = lum(c);
    const n = Math.min(...c);
    const x = Math.max(...c);
    let out = c;
    if (n < 0) out = out.map((v) => l + ((v - l) * l) / (l - n));
    if (x > 1) out = out.map((v) => l + ((v - l) * (1 - l)) / (x - l));
    return out;
  };
  const setLum = (c: number[], l: number) => clipColor(c.map((v) => v + (l - lum(c))));
  const sat = (c: number[]) => Math.max(...c) - Math.min(...c);
  const setSat = (c: number[], sValue: number) => {
    const max = Math.max(...c);
    const min = Math.min(...c);
    if (max === min) return [0, 0, 0];
    return c.map((v) => (v === max ? sValue : v === min ? 0 : ((v - min) * sValue) / (max - min)));
  };
  const separable: Record<string, (cb: number, cs: number) => number> = {
    normal: (_, y) => y,
    multiply: (x, y) => x * y,
    screen: (x, y) => x + y - x * y,
    overlay: (x, y) => (x <= 0.5 ? 2 * x * y : 1 - 2 * (1 - x) * (1 - y)),
    darken: Math.min,
    lighten: Math.max,
    color_dodge: (x, y) => (x === 0 ? 0 : y === 1 ? 1 : Math.min(1, x / (1 - y))),
    color_burn: (x, y) => (x === 1 ? 1 : y === 0 ? 0 : 1 - Math.min(1, (1 - x) / y)),
    hard_light: (x, y) => (y <= 0.5 ? 2 * x * y : 1 - 2 * (1 - x) * (1 - y)),
    soft_light: (x, y) => {
      if (y <= 0.5) return x - (1 - 2 * y) * x * (1 - x);
      const d = x <= 0.25 ? ((16 * x - 12) * x + 4) * x : Math.sqrt(x);
      return x + (2 * y - 1) * (d - x);
    },
    difference: (x, y) => Math.abs(x - y),
    exclusion: (x, y) => x + y - 2 * x * y,
  };
  let result: number[];
  if (separable[mode]) result = b.map((x, i) => separable[mode](x, s[i]));
  else if (mode === 'hue') result = setLum(setSat(s, sat(b)), lum(b));
  else if (mode === 'saturation') result = setLum(setSat(b, sat(s)), lum(b));
  else if (mode === 'color') result = setLum(s, lum(b));
  else result = setLum(b, lum(s));
  return result.map((v) => Math.round(v * 255));
}

const BLEND_MODES = [
  'normal', 'multiply', 'screen', 'overlay', 'darken', 'lighten', 'color_dodge', 'color_burn',
  'hard_light', 'soft_light', 'difference', 'exclusion', 'hue', 'saturation', 'color', 'luminosity',
];

/** A 3D .cube of `size` points per axis mapping each colour through `map`. */
function cube(size: number, map: (r: number, g: number, b: number) => number[], header = ''): string {
  const lines = [header, `LUT_3D_SIZE ${size}`];
  for (let b = 0; b < size; b += 1) for (let g = 0; g < size; g += 1) for (let r = 0; r < size; r += 1) lines.push(map(r / (size - 1), g / (size - 1), b / (size - 1)).map((v) => v.toFixed(6)).join(' '));
  return `${lines.join('\n')}\n`;
}

/**
 * Issue 11, the look: every colour, frame and compositing field and every catalog effect, each
 * proven through the REST API (POST /v1/renders, poll, download, decode with ffmpeg, probe
 * pixels). Many features share one render: a grid of 64x64 tiles, one feature per tile.
 */
describe('render look: colour, frame, compositing and effects (through the REST API)', () => {
  const house = withRenderApp({
    name: 'look',
    fixtures: async (dir) => {
      /** A still drawn by a lavfi filter chain, saved as lossless png (rgb24 unless the chain says otherwise). */
      const image = (name: string, filter: string, format = 'rgb24') => lavfiImage(path.join(dir, name), filter, format);
      const solid = (name: string, hex: string) => image(name, `color=c=0x${hex}:s=${SIZE}x${SIZE}`);
      await solid('orange.png', 'ff8033');
      await solid('red.png', 'ff0000');
      await solid('grey.png', '808080');
      await solid('light.png', 'e6e6e6');
      await solid('dark.png', '191919');
      await solid('dull.png', '807366');
      await solid('white.png', 'ffffff');
      await solid('black.png', '000000');
      // Left half 64, right half 192: edges for sharpness and blur.
      await image('halves.png', `color=c=0x404040:s=${SIZE}x${SIZE},drawbox=x=28:y=0:w=28:h=${SIZE}:color=0xc0c0c0:t=fill`);
      // Fully transparent: only its backdrop blur shows.
      await image('clear.png', `color=c=0x00000000:s=${SIZE}x${SIZE},format=rgba`, 'rgba');
      // 2 px black and white vertical stripes, the backdrop to blur.
      await image('stripes.png', 'color=c=black:s=64x64,format=gray,geq=lum=255*lt(mod(X\\,4)\\,2)');
      // A horizontal ramp black → white, to see pixelate's blocks.
      await image('ramp.png', `color=c=black:s=${SIZE}x${SIZE},format=gray,geq=lum=X*255/${SIZE - 1}`);
      // 1 s green then 1 s red at 64x64 (BT.709, as in render-features).
      await ffmpeg(
        '-f', 'lavfi', '-i', 'color=c=0x00ff00:s=64x64:r=30:d=1', '-f', 'lavfi', '-i', 'color=c=0xff0000:s=64x64:r=30:d=1',
        '-filter_complex', '[0:v][1:v]concat=n=2:v=1,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[v]', '-map', '[v]',
        '-c:v', 'libx264', '-preset', 'ultrafast', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv',
        path.join(dir, 'clip.mp4'),
      );
      writeFileSync(path.join(dir, 'invert.cube'), cube(17, (r, g, b) => [1 - r, 1 - g, 1 - b], '# inverts every colour\nTITLE "Invert"\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1'));
      writeFileSync(path.join(dir, 'curve1d.cube'), 'LUT_1D_SIZE 3\n0 0 0\n0 0 0.5\n1 1 1\n');
      writeFileSync(path.join(dir, 'bad.cube'), 'TITLE "Broken"\nLUT_3D_SIZE 2\n0 0 0\n1 0 nope\n');
      writeFileSync(path.join(dir, 'huge.cube'), 'LUT_3D_SIZE 129\n');
    },
  });
  const url = house.mediaUrl;

  async function submit(body: Record<string, unknown>) {
    return house.api().post('/v1/renders').send(body);
  }

  /** The submit response of the last render() (its violations). */
  let lastSubmit: { ok: boolean; violations: { code: string; pointer: string }[] };

  /** Submits, polls to the end, downloads; returns the local output file. */
  async function render(name: string, body: Record<string, unknown>): Promise<string> {
    const rendered = await house.render(name, body);
    lastSubmit = rendered.submitted;
    return rendered.file;
  }

  const grid = (elements: object[], rest: object = {}) => ({ width: 512, height: 256, output_format: 'png', background_color: '#0000ff', elements, ...rest });
  const img = (name: string, n: number, rest: object = {}) => ({ type: 'image', source_url: url(name), ...at(n, rest) });

  it('grades colour: the anchors of every colour field, the LUT (3D and 1D, with intensity), on images', async () => {
    const file = await render('colour', grid([
      img('orange.png', 0, { saturation: -100 }),
      img('orange.png', 1, { brightness: -100 }),
      img('orange.png', 2, { contrast: -100 }),
      img('red.png', 3, { hue_rotate: '180deg' }),
      img('grey.png', 4, { exposure: 25 }),
      img('grey.png', 5, { temperature: 100 }),
      img('grey.png', 6, { tint: 100 }),
      img('dull.png', 7, { vibrance: 100 }),
      img('light.png', 8, { highlights: -100 }),
      img('dark.png', 9, { shadows: 100 }),
      img('halves.png', 10, { sharpness: 100 }),
      img('grey.png', 11, { noise: 100 }),
      img('white.png', 12, { vignette: 100 }),
      img('halves.png', 13, { blur: 4 }),
      img('black.png', 14, { color_overlay: '#00ff0080' }),
      img('orange.png', 15, { lut_url: url('invert.cube') }),
      img('orange.png', 16, { lut_url: url('invert.cube'), lut_intensity: 0.5 }),
      img('grey.png', 17, { lut_url: url('curve1d.cube') }),
      img('orange.png', 18, { saturation: 100 }),
      img('grey.png', 19, { brightness: 50 }),
      img('halves.png', 20, { contrast: 100 }),
      img('orange.png', 21, { hue_rotate: 90, saturation: -50, brightness: -20 }),
      img('orange.png', 22),
    ]));
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);
    const [sr, sg, sb] = probe(frame, 0);
    c.that('saturation -100: fully grey (R = G = B)', Math.max(sr, sg, sb) - Math.min(sr, sg, sb) <= 1, [sr, sg, sb]);
    c.colour('brightness -100: black', probe(frame, 1), [0, 0, 0], 1);
    c.colour('contrast -100: flat mid-grey', probe(frame, 2), [128, 128, 128], 2);
    c.colour('hue_rotate 180deg: red turns cyan', probe(frame, 3), [0, 255, 255], 2);
    c.colour('exposure 25 (one stop): grey 128 → 175', probe(frame, 4), [175, 175, 175], 3);
    c.colour('temperature 100: R ×1.25, B ×0.75', probe(frame, 5), [160, 128, 96], 3);
    c.colour('tint 100: G ×0.75 (magenta)', probe(frame, 6), [128, 96, 128], 3);
    const vib = probe(frame, 7);
    c.that('vibrance 100: a dull colour about twice as colourful', vib[0] - vib[2] >= 45, vib);
    c.that('highlights -100: a light grey darker', probe(frame, 8)[0] < 215, probe(frame, 8));
    c.that('shadows 100: a dark grey lighter', probe(frame, 9)[0] > 60, probe(frame, 9));
    const sharpDark = probe(frame, 10, -1);
    const sharpLight = probe(frame, 10, 0);
    c.that('sharpness 100: the dark side of the edge darker', sharpDark[0] < 50, sharpDark);
    c.that('sharpness 100: the light side of the edge lighter', sharpLight[0] > 205, sharpLight);
    c.colour('sharpness 100: flat areas unchanged', probe(frame, 10, -18), [64, 64, 64], 2);
    const noisy = [-10, -5, 0, 5, 10, 15].map((dx) => probe(frame, 11, dx, 3)[0]);
    c.that('noise 100: grey pixels scattered around 128', Math.max(...noisy) - Math.min(...noisy) > 20 && Math.abs(noisy.reduce((a, b) => a + b) / noisy.length - 128) < 40, noisy);
    c.colour('vignette 100: the centre untouched', probe(frame, 12), [255, 255, 255], 2);
    c.that('vignette 100: the corners dark', probe(frame, 12, -26, -26)[0] < 100, probe(frame, 12, -26, -26));
    const blurEdge = probe(frame, 13, 0);
    c.that('blur 4: the edge between 64 and 192 is soft', blurEdge[0] > 90 && blurEdge[0] < 170, blurEdge);
    c.colour('blur 4: far from the edge unchanged', probe(frame, 13, -14), [64, 64, 64], 4);
    c.colour('color_overlay #00ff0080 over black: half green', probe(frame, 14), [0, 128, 0], 2);
    c.colour('lut_url (inverting 3D cube): orange → its inverse', probe(frame, 15), [0, 127, 204], 3);
    c.colour('lut_intensity 0.5: half-way between a colour and its inverse', probe(frame, 16), [128, 128, 128], 3);
    c.colour('1D LUT: each channel through its own curve (mid-grey: red and green cut, blue kept)', probe(frame, 17), [1, 1, 128], 3);
    const sat = probe(frame, 18);
    c.that('saturation 100: more colourful (blue channel down, red stays)', sat[0] === 255 && sat[2] < 30, sat);
    c.colour('brightness 50: half-way to white', probe(frame, 19), [192, 192, 192], 2);
    c.colour('contrast 100: dark side darker', probe(frame, 20, -14), [0, 0, 0], 2);
    c.colour('contrast 100: light side lighter', probe(frame, 20, 14), [255, 255, 255], 2);
    const combined = probe(frame, 21);
    c.that('several fields together: still an image, changed', combined.join() !== ORANGE.join() && combined[1] > combined[2], combined);
    c.colour('no colour field: the image as it is', probe(frame, 22), ORANGE, 1);
    c.colour('the background between tiles', frame.at(TILE, TILE - 2), BLUE, 1);
    c.assertAll();
  });

  it('frames: crop keeps the box place and shows what is behind, border radius, border, shadow (also on text), backdrop blur, clip', async () => {
    const file = await render('frame', grid([
      { type: 'image', source_url: url('stripes.png'), ...at(13, { width: 64, height: 64 }) },
      img('red.png', 0, { crop_left: 28 }),
      img('red.png', 1, { crop_top: '25%', crop_bottom: '25%' }),
      img('red.png', 2, { border_radius: 20 }),
      img('red.png', 3, { border_width: 6, border_color: '#ffffff' }),
      img('red.png', 4, { border_radius: 28, border_width: 4, border_color: '#00ff00' }),
      { type: 'shape', fill_color: '#ffffff', ...at(5, { width: 40, height: 40, shadow_color: '#000000', shadow_x: 8, shadow_y: 8, shadow_blur: 0 }) },
      { type: 'video', source_url: url('clip.mp4'), out_point: 1, ...at(6, { width: 40, height: 40, shadow_color: '#ff0000', shadow_x: -8, shadow_y: 0 }) },
      { type: 'text', text: 'I', font_size: 48, font_weight: 900, fill_color: '#ffffff', x: centre(7)[0], y: centre(7)[1], shadow_color: '#ff0000', shadow_x: 6, shadow_y: 0 },
      img('clear.png', 13, { backdrop_blur: 6, width: 40, height: 40 }),
      { type: 'shape', fill_color: '#ffffff', ...at(9, { width: 40, height: 40, shadow_color: '#000000', shadow_x: 12, shadow_y: 0, clip: true }) },
      img('red.png', 10, { crop_right: '50%', border_radius: 10 }),
    ]));
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);
    c.colour('crop_left 28: the cut-away left half shows the background', probe(frame, 0, -14), BLUE, 2);
    c.colour('crop_left 28: the right half drawn where it was', probe(frame, 0, 14), [255, 0, 0], 2);
    c.colour('crop_left 28: the box right edge unchanged', probe(frame, 0, 26), [255, 0, 0], 2);
    c.colour('crop_top/bottom 25%: the top quarter cut', probe(frame, 1, 0, -20), BLUE, 2);
    c.colour('crop_top/bottom 25%: the bottom quarter cut', probe(frame, 1, 0, 20), BLUE, 2);
    c.colour('crop_top/bottom 25%: the middle drawn', probe(frame, 1, 0, 0), [255, 0, 0], 2);
    c.colour('border_radius 20: the corner shows the background', probe(frame, 2, -26, -26), BLUE, 2);
    c.colour('border_radius 20: the middle of an edge drawn', probe(frame, 2, 0, -26), [255, 0, 0], 2);
    c.colour('border_width 6: white along the edge, inside the box', probe(frame, 3, -25, 0), [255, 255, 255], 2);
    c.colour('border_width 6: the image inside the border', probe(frame, 3, -19, 0), [255, 0, 0], 2);
    c.colour('border_width 6: nothing outside the box', probe(frame, 3, -30, 0), BLUE, 2);
    c.colour('round border: follows the radius (corner is background)', probe(frame, 4, -26, -26), BLUE, 2);
    c.colour('round border: green at the edge middle', probe(frame, 4, 0, -26), [0, 255, 0], 3);
    c.colour('shadow 8,8: black below right of the shape', probe(frame, 5, 24, 24), [0, 0, 0], 2);
    c.colour('shadow 8,8: not above left', probe(frame, 5, -24, -24), BLUE, 2);
    c.colour('shadow on video: red to its left', probe(frame, 6, -24, 0), [255, 0, 0], 3);
    const text = frame.at(centre(7)[0] + 8, centre(7)[1]);
    c.that('shadow on text: red beside the glyph', text[0] > 200 && text[1] < 60 && text[2] < 60, text);
    const blurred = [-6, -5, -4, -3].map((dx) => probe(frame, 13, dx, 0)[0]);
    const sharp = [-31, -30, -29, -28].map((dx) => probe(frame, 13, dx, 0)[0]);
    c.that('backdrop_blur: the stripes behind the element averaged to grey', blurred.every((v) => v > 80 && v < 175), blurred);
    c.that('backdrop_blur: the stripes outside the element still sharp', Math.max(...sharp) > 240 && Math.min(...sharp) < 15, sharp);
    c.colour('clip: the shadow beyond the box is cut', probe(frame, 9, 24, 0), BLUE, 2);
    c.colour('clip: the shape itself drawn', probe(frame, 9, 0, 0), [255, 255, 255], 2);
    c.colour('crop with radius: the cut right half is background', probe(frame, 10, 14, 0), BLUE, 2);
    c.colour('crop with radius: the kept half rounded at its corner', probe(frame, 10, -26, -26), BLUE, 2);
    c.colour('crop with radius: the kept half drawn', probe(frame, 10, -14, 0), [255, 0, 0], 2);
    c.assertAll();
  });

  it('blends all 16 blend modes by the W3C formulas; masks every shape with feather, scale and centre', async () => {
    const backdrop = '#3380cc';
    const source = '#cc664d';
    const file = await render('compositing', grid([
      ...BLEND_MODES.flatMap((mode, n) => [
        { type: 'shape', fill_color: backdrop, ...at(n, { width: 60, height: 60 }) },
        { type: 'shape', fill_color: source, ...at(n, { width: 40, height: 40, blend_mode: mode }) },
      ]),
      img('red.png', 16, { mask_shape: 'ellipse' }),
      img('red.png', 17, { mask_shape: 'circle', width: 56, height: 40 }),
      img('red.png', 18, { mask_shape: 'rounded_rectangle' }),
      img('red.png', 19, { mask_shape: 'rectangle', mask: { scale: '50%' } }),
      img('red.png', 20, { mask_shape: 'ellipse', mask: { feather: 12 } }),
      img('red.png', 21, { mask_shape: 'circle', mask: { scale: '50%', center: { x: 14, y: 14 } } }),
      img('red.png', 22, { mask_shape: 'rectangle', mask: { scale: '50%', center: { x: '75%', y: '50%' } } }),
    ]));
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);
    BLEND_MODES.forEach((mode, n) => {
      c.colour(`blend_mode ${mode}`, probe(frame, n), blend(mode, [0x33, 0x80, 0xcc], [0xcc, 0x66, 0x4d]), 3);
      c.colour(`blend_mode ${mode}: the backdrop around it untouched`, probe(frame, n, 25, 0), [0x33, 0x80, 0xcc], 1);
    });
    c.colour('ellipse mask: centre kept', probe(frame, 16), [255, 0, 0], 2);
    c.colour('ellipse mask: box corner cut', probe(frame, 16, -25, -25), BLUE, 2);
    c.colour('ellipse mask: reaches the middle of the box edge', probe(frame, 16, 0, -26), [255, 0, 0], 4);
    c.colour('circle mask: diameter = the shorter side (left of it cut)', probe(frame, 17, -24, 0), BLUE, 2);
    c.colour('circle mask: inside', probe(frame, 17, -17, 0), [255, 0, 0], 2);
    c.colour('rounded rectangle mask: corner cut', probe(frame, 18, -27, -27), BLUE, 2);
    c.colour('rounded rectangle mask: near the corner along the edge kept', probe(frame, 18, -12, -27), [255, 0, 0], 3);
    c.colour('mask scale 50%: outside the half-size rectangle cut', probe(frame, 19, 18, 0), BLUE, 2);
    c.colour('mask scale 50%: inside kept', probe(frame, 19, 10, 0), [255, 0, 0], 2);
    const featherEdge = probe(frame, 20, 0, -26);
    c.that('mask feather 12: soft at the edge (partly red, partly blue)', featherEdge[0] > 20 && featherEdge[0] < 235 && featherEdge[2] > 20, featherEdge);
    c.colour('mask feather 12: solid in the middle', probe(frame, 20), [255, 0, 0], 3);
    c.colour('mask centre (14, 14): the circle moved to the top left', probe(frame, 21, -14, -14), [255, 0, 0], 2);
    c.colour('mask centre (14, 14): the box centre now outside', probe(frame, 21, 4, 4), BLUE, 2);
    c.colour('mask centre 75%: the rectangle on the right', probe(frame, 22, 14, 0), [255, 0, 0], 2);
    c.colour('mask centre 75%: the left half cut', probe(frame, 22, -14, 0), BLUE, 2);
    c.assertAll();
  });

  it('draws every catalog effect on images, text and shapes, and draws the same picture twice (seeded randomness)', async () => {
    const body = grid([
      img('halves.png', 0, { effects: [{ type: 'blur' }] }),
      img('orange.png', 1, { effects: [{ type: 'grayscale' }] }),
      img('grey.png', 2, { effects: [{ type: 'sepia' }] }),
      img('orange.png', 3, { effects: [{ type: 'invert' }] }),
      img('ramp.png', 4, { effects: [{ type: 'pixelate' }] }),
      img('white.png', 5, { effects: [{ type: 'vignette' }] }),
      img('grey.png', 6, { effects: [{ type: 'film_grain' }] }),
      img('halves.png', 7, { effects: [{ type: 'glitch' }] }),
      { type: 'shape', fill_color: '#ffffff', ...at(8, { width: 24, height: 24, effects: [{ type: 'chromatic_aberration' }] }) },
      img('grey.png', 9, { effects: [{ type: 'vhs' }] }),
      { type: 'shape', fill_color: '#ffffff', ...at(10, { width: 20, height: 20, effects: [{ type: 'glow' }] }) },
      { type: 'shape', fill_color: '#ffffff', ...at(11, { width: 20, height: 20, effects: [{ type: 'shake' }] }) },
      { type: 'text', text: 'AB', font_size: 30, font_weight: 900, fill_color: '#ffffff', x: centre(12)[0], y: centre(12)[1], effects: [{ type: 'invert' }] },
      img('orange.png', 13, { effects: [{ type: 'grayscale', intensity: 0.5 }] }),
      img('orange.png', 14, { effects: [{ type: 'invert', time: 1 }] }),
      { type: 'shape', fill_color: '#ffffff', ...at(15, { effects: [{ type: 'vignette' }] }) },
      { type: 'shape', fill_color: '#808080', ...at(16, { effects: [{ type: 'film_grain' }] }) },
      { type: 'shape', fill_color: '#ffffff', shape: 'ellipse', ...at(17, { effects: [{ type: 'pixelate' }] }) },
      img('white.png', 18, { effects: [{ type: 'chromatic_aberration' }] }),
    ], { background_color: '#000000', duration: 2 });
    // Queued together: the second job starts as the first ends, not after its download.
    const [file, again] = await Promise.all([render('effects', body), render('effects-again', body)]);
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);
    const blurEdge = probe(frame, 0);
    c.that('blur: the edge soft', blurEdge[0] > 90 && blurEdge[0] < 170, blurEdge);
    const [gr, gg, gb] = probe(frame, 1);
    c.that('grayscale: R = G = B', Math.max(gr, gg, gb) - Math.min(gr, gg, gb) <= 2, [gr, gg, gb]);
    const sepia = probe(frame, 2);
    c.colour('sepia on grey 128: warm brown (CSS sepia matrix)', sepia, [173, 154, 120], 3);
    c.colour('invert: 255 − value', probe(frame, 3), [0, 127, 204], 2);
    const block = [0, 1, 2].map((dx) => probe(frame, 4, dx, 0)[0]);
    const rampFar = probe(frame, 4, 20, 0)[0];
    c.that('pixelate: neighbouring pixels of a ramp equal inside a block, far ones differ', new Set(block).size === 1 && Math.abs(rampFar - block[0]) > 40, { block, rampFar });
    c.colour('vignette: the centre untouched', probe(frame, 5), [255, 255, 255], 3);
    c.that('vignette: the corners darker', probe(frame, 5, -26, -26)[0] < 170, probe(frame, 5, -26, -26));
    const grain = [-12, -6, 0, 6, 12].map((dx) => probe(frame, 6, dx, 2)[0]);
    c.that('film_grain: grey pixels scattered', Math.max(...grain) - Math.min(...grain) > 12, grain);
    const glitched = [-3, -2, -1, 0, 1, 2].map((dx) => probe(frame, 7, dx, 0));
    c.that('glitch: channels split at the edge (red ≠ blue somewhere)', glitched.some((p) => Math.abs(p[0] - p[2]) > 30), glitched);
    const caLeft = probe(frame, 8, -12, 0);
    const caRight = probe(frame, 8, 12, 0);
    c.that('chromatic_aberration: blue fringe on the left edge, red on the right', caLeft[2] > caLeft[0] + 60 && caRight[0] > caRight[2] + 60, { caLeft, caRight });
    const rows = [0, 1, 2, 3, 4, 5].map((dy) => probe(frame, 9, 0, dy)[1]);
    c.that('vhs: scanlines (rows alternate in brightness)', Math.max(...rows) - Math.min(...rows) > 15, rows);
    const glow = probe(frame, 10, 14, 0);
    c.that('glow: light outside the shape', glow[0] > 30, glow);
    c.colour('glow: the shape itself white', probe(frame, 10), [255, 255, 255], 2);
    const shaken = [-4, -3, -2, -1, 0, 1, 2, 3, 4].flatMap((dy) => [-14, -13, -12, -11, -10, 10, 11, 12, 13, 14].map((dx) => probe(frame, 11, dx, dy)[0]));
    const unshakenEdges = [probe(frame, 11, -9, 0)[0], probe(frame, 11, 9, 0)[0]];
    c.that('shake: the shape moved off its place', shaken.some((v) => v > 128) || unshakenEdges.some((v) => v < 128), { shaken: shaken.filter((v) => v > 128).length, unshakenEdges });
    const textInk = [];
    for (let dx = -20; dx <= 20; dx += 1) for (let dy = -12; dy <= 12; dy += 1) textInk.push(probe(frame, 12, dx, dy)[0]);
    c.that('invert on text: the white glyphs drawn black (only the box behind is transparent)', textInk.filter((v) => v > 128).length < 5, textInk.filter((v) => v > 128).length);
    const half = probe(frame, 13);
    c.that('grayscale intensity 0.5: half-way (still some colour)', half[0] - half[2] > 60 && half[0] - half[2] < 180, half);
    c.colour('effect time 1: not yet on at 0 s', probe(frame, 14), ORANGE, 2);
    c.colour('vignette on a shape: the centre untouched', probe(frame, 15), [255, 255, 255], 3);
    c.that('vignette on a shape: the corners darker', probe(frame, 15, -26, -26)[0] < 170, probe(frame, 15, -26, -26));
    const shapeGrain = [-12, -6, 0, 6, 12].map((dx) => probe(frame, 16, dx, 2)[0]);
    c.that('film_grain on a shape: grey pixels scattered', Math.max(...shapeGrain) - Math.min(...shapeGrain) > 12, shapeGrain);
    // The ellipse's edge in blocks: along a row, the values change only at block boundaries (14 px here).
    const edgeRow = Array.from({ length: 28 }, (_, dx) => probe(frame, 17, dx - 27, -20)[0]);
    const changes = edgeRow.filter((v, i) => i > 0 && v !== edgeRow[i - 1]).length;
    const imageLeft = probe(frame, 18, -28, 0);
    const imageRight = probe(frame, 18, 27, 0);
    c.that('chromatic_aberration on an image: no red at its left edge, no blue at its right edge', imageLeft[2] > imageLeft[0] + 60 && imageRight[0] > imageRight[2] + 60, { imageLeft, imageRight });
    c.that('pixelate on a shape: the curved edge drawn in blocks (few value changes along a row)', changes <= 3 && edgeRow.some((v) => v > 128), edgeRow);
    const second = await frameAt(again);
    c.that('two renders of one request give identical pixels (grain, glitch, vhs, shake)', Buffer.compare(frame.data, second.data) === 0, 'frames differ');
    c.assertAll();
  });

  it('animates over time: effect time windows, mask_keyframes with every kind of easing, a LUT on video (mp4)', async () => {
    const easings: { label: string; keyframe: object }[] = [
      { label: 'linear', keyframe: {} },
      { label: 'ease_in', keyframe: { easing: 'ease_in' } },
      { label: 'spring', keyframe: { spring: { stiffness: 80, damping: 8 } } },
      { label: 'back', keyframe: { easing: 'back_out', back: 3 } },
      { label: 'elastic', keyframe: { elastic: { amplitude: 1, period: 0.3 } } },
      { label: 'bezier', keyframe: { bezier: [0.1, 0.9, 0.2, 1] } },
    ];
    // 10 fps: every probed time (0, 0.25, 0.5, 0.75, 1.25 s) shows a frame of the same phase as at 30.
    const file = await render('timeline', {
      width: 512, height: 128, duration: 1.5, frame_rate: 10, background_color: '#0000ff',
      elements: [
        img('orange.png', 0, { effects: [{ type: 'invert', time: 0.5, duration: 0.5 }] }),
        img('orange.png', 1, { effects: [{ type: 'grayscale', time: 1 }] }),
        { type: 'video', source_url: url('clip.mp4'), out_point: 1.5, lut_url: url('invert.cube'), ...at(2, {}) },
        ...easings.map(({ keyframe }, i) => img('red.png', 8 + i, {
          mask_shape: 'rectangle',
          mask_keyframes: [{ time: 0, scale: '0%' }, { time: 1, scale: '100%', ...keyframe }],
        })),
      ],
    });
    const c = new Checks(COLOUR_TOLERANCE);
    const tolerance = 30;
    const f025 = await frameAt(file, 0.25);
    const f075 = await frameAt(file, 0.75);
    const f125 = await frameAt(file, 1.25);
    c.colour('effect window 0.5–1 s: off before (0.25 s)', probe(f025, 0), ORANGE, tolerance);
    c.colour('effect window 0.5–1 s: on inside (0.75 s)', probe(f075, 0), [0, 127, 204], tolerance);
    c.colour('effect window 0.5–1 s: off after (1.25 s)', probe(f125, 0), ORANGE, tolerance);
    const grey = probe(f125, 1);
    c.that('effect from 1 s to the end: on at 1.25 s', Math.abs(grey[0] - grey[2]) < 20, grey);
    c.colour('effect from 1 s: off at 0.75 s', probe(f075, 1), ORANGE, tolerance);
    c.colour('LUT on video: green frames inverted to magenta (0.25 s)', probe(f025, 2), [255, 0, 255], tolerance);
    c.colour('LUT on video: red frames inverted to cyan (1.25 s)', probe(f125, 2), [0, 255, 255], tolerance);
    // At 0.5 s the mask is eased(0.5) of full size: its half-width is 28 px × eased, centred on the tile.
    const f05 = await frameAt(file, 0.5);
    easings.forEach(({ label, keyframe }, i) => {
      const eased = Math.min(1, easingFunction(keyframe as Parameters<typeof easingFunction>[0])(0.5));
      const half = 28 * eased;
      const n = 8 + i;
      if (half > 5) c.colour(`mask_keyframes ${label}: inside the eased half-width (${half.toFixed(1)} px)`, probe(f05, n, Math.floor(half) - 4, 0), [255, 0, 0], tolerance);
      if (half < 24) c.colour(`mask_keyframes ${label}: outside the eased half-width (${half.toFixed(1)} px)`, probe(f05, n, Math.ceil(half) + 4, 0), BLUE, tolerance);
    });
    c.colour('mask_keyframes: nothing at 0 s', probe(await frameAt(file, 0), 8), BLUE, tolerance);
    c.colour('mask_keyframes: the full box after the last keyframe (1.25 s)', probe(f125, 8, 24, 24), [255, 0, 0], tolerance);
    c.assertAll();
  });

  it('shapes elements with track mattes (alpha, luma, inverted, a text, a moving source) that are not drawn themselves', async () => {
    const source = (id: string, n: number, rest: object) => ({ type: 'shape', id, fill_color: '#00ff00', shape: 'ellipse', ...at(n, rest) });
    const file = await render('mattes', grid([
      source('m0', 0, {}),
      img('red.png', 0, { matte: { source: 'm0' } }),
      source('m1', 1, {}),
      img('red.png', 1, { matte: { source: 'm1', invert: true } }),
      { type: 'image', id: 'm2', source_url: url('halves.png'), ...at(2, {}) },
      img('red.png', 2, { matte: { source: 'm2', mode: 'luma' } }),
      { type: 'image', id: 'm3', source_url: url('halves.png'), ...at(3, {}) },
      img('red.png', 3, { matte: { source: 'm3', mode: 'luma', invert: true } }),
      { type: 'text', id: 'm4', text: 'I', font_size: 56, font_weight: 900, fill_color: '#ffffff', x: centre(4)[0], y: centre(4)[1] },
      img('red.png', 4, { matte: { source: 'm4' } }),
      source('m5', 5, { visible: false }),
      img('red.png', 5, { matte: { source: 'm5' } }),
      source('m6', 6, { width: 20, height: 20, x: centre(6)[0] - 14, z_rotation: 45, opacity: 0.5 }),
      img('red.png', 6, { matte: { source: 'm6' } }),
      { type: 'shape', id: 'm7', fill_color: '#ffffff', ...at(7, { width: 24, height: 56, x_anchor: '0%', x: centre(7)[0] }) },
      { type: 'video', source_url: url('clip.mp4'), out_point: 1, ...at(7, {}), matte: { source: 'm7' } },
    ]));
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);
    const red = [255, 0, 0];
    c.colour('alpha matte: red inside the ellipse', probe(frame, 0), red, 2);
    c.colour('alpha matte: the box corner outside it cut', probe(frame, 0, -25, -25), BLUE, 2);
    c.colour('inverted alpha matte: the inside cut', probe(frame, 1), BLUE, 2);
    c.colour('inverted alpha matte: the corner drawn', probe(frame, 1, -25, -25), red, 2);
    c.colour('luma matte: dark half (64) lets a quarter through', probe(frame, 2, -14, 0), [64, 0, 191], 6);
    c.colour('luma matte: light half (192) lets three quarters through', probe(frame, 2, 14, 0), [192, 0, 63], 6);
    c.colour('inverted luma matte: the dark half lets three quarters through', probe(frame, 3, -14, 0), [191, 0, 64], 6);
    c.colour('text matte: red through the glyph', probe(frame, 4, 0, 4), red, 3);
    c.colour('text matte: cut beside the glyph', probe(frame, 4, -22, 4), BLUE, 2);
    c.colour('hidden matte source: nothing of the target drawn', probe(frame, 5), BLUE, 2);
    c.colour('turned, half-opaque source: half of the target at its centre', probe(frame, 6, -14, 0), [128, 0, 128], 4);
    c.colour('turned source: its unturned corner is outside the diamond', probe(frame, 6, -23, -9), BLUE, 2);
    c.colour('a video shaped by a rectangle matte: drawn right of the anchor', probe(frame, 7, 10, 0), [0, 255, 0], 30);
    c.colour('a video shaped by a rectangle matte: cut left of it', probe(frame, 7, -10, 0), BLUE, 2);
    const green = [];
    for (let x = 0; x < 512; x += 2) for (let y = 0; y < 64; y += 2) if (frame.at(x, y)[1] > 200 && frame.at(x, y)[0] < 60 && x < 448) green.push([x, y]);
    c.that('the matte sources themselves are not drawn (no green ellipse anywhere)', green.length === 0, green.slice(0, 5));
    c.that('the hidden source is reported', lastSubmit.violations.some((v) => v.code === 'MATTE_SOURCE_HIDDEN' && v.pointer === '/elements/11/matte/source'), lastSubmit.violations);
    c.assertAll();
  });

  it('keeps mask outsides transparent and blends over the layers below with alpha: true (webm)', async () => {
    const file = await render('alpha', {
      width: 128, height: 64, duration: 0.2, output_format: 'webm', alpha: true, background_color: '#00000000',
      elements: [
        img('red.png', 0, { mask_shape: 'ellipse' }),
        { type: 'shape', fill_color: '#808080', ...at(1, { width: 56, height: 56 }) },
        { type: 'shape', fill_color: '#ff0000', ...at(1, { width: 30, height: 30, blend_mode: 'multiply' }) },
      ],
    });
    const c = new Checks(COLOUR_TOLERANCE);
    const corner = await pixelAt(file, 0.05, 6, 6, { vp9Alpha: true });
    const middle = await pixelAt(file, 0.05, 32, 32, { vp9Alpha: true });
    const blended = await pixelAt(file, 0.05, 96, 32, { vp9Alpha: true });
    c.that('mask: outside the ellipse transparent (alpha 0)', corner[3] <= 5, corner);
    c.that('mask: inside opaque red', middle[3] >= 250 && middle[0] > 200 && middle[1] < 40, middle);
    c.that('multiply over grey with alpha: (128, 0, 0), opaque', Math.abs(blended[0] - 128) <= 20 && blended[1] < 25 && blended[3] >= 250, blended);
    c.assertAll();
  });

  it('refuses a malformed or oversized LUT at submit (422 invalid_source with the line) and lists the look as supported', async () => {
    const bad = await submit({ width: 64, height: 64, output_format: 'png', elements: [{ type: 'image', source_url: url('red.png'), lut_url: url('bad.cube') }] });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'invalid_source', details: { pointer: '/elements/0/lut_url' } });
    expect(bad.body.error.message).toContain('line 4');
    const huge = await submit({ width: 64, height: 64, output_format: 'png', elements: [{ type: 'image', source_url: url('red.png'), lut_url: url('huge.cube') }] });
    expect(huge.status).toBe(422);
    expect(huge.body.error.code).toBe('invalid_source');
    expect(huge.body.error.message).toContain('line 1: LUT_3D_SIZE 129 is outside 2..65');
    const missing = await submit({ width: 64, height: 64, output_format: 'png', elements: [{ type: 'image', source_url: url('red.png'), lut_url: url('none.cube') }] });
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('source_not_found');

    const capabilities = (await house.app.http.get('/v1/capabilities').expect(200)).body;
    expect(capabilities.effects.map((e: { name: string; supported: boolean }) => [e.name, e.supported])).toEqual(
      ['blur', 'grayscale', 'sepia', 'invert', 'pixelate', 'vignette', 'film_grain', 'glitch', 'chromatic_aberration', 'vhs', 'glow', 'shake'].map((name) => [name, true]),
    );
    expect(capabilities.blend_modes.every((mode: { supported: boolean }) => mode.supported)).toBe(true);
    expect(capabilities.blend_modes).toHaveLength(16);
    for (const type of ['video', 'image']) {
      const properties = capabilities.element_schemas[type].properties;
      for (const field of ['lut_url', 'brightness', 'hue_rotate', 'color_overlay', 'crop_left', 'border_radius', 'shadow_blur', 'backdrop_blur', 'blend_mode', 'mask_shape', 'mask', 'mask_keyframes', 'matte', 'clip', 'effects']) {
        expect([type, field, properties[field]['x-supported']]).toEqual([type, field, undefined]);
      }
    }
    expect(capabilities.element_schemas.video.properties.effects.items).toMatchObject({ properties: { type: { enum: expect.arrayContaining(['vhs', 'glow']) } } });
  });
});

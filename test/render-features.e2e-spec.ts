import * as path from 'node:path';
import { audioSamples, ffmpeg, Frame, frameAt, lavfiImage, probe, soundSpans, volumeDb } from './helpers/media';
import { Checks, Rgb } from './helpers/checks';
import { withRenderApp } from './helpers/render-app';

/** How far a decoded channel may be from the expected one in this file's checks (encoding, scaling). */
const COLOUR_TOLERANCE = 12;

const BLUE = [0, 0, 255];
const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const YELLOW = [255, 255, 0];
const CYAN = [0, 255, 255];
const WHITE = [255, 255, 255];

/** Tones of the fixtures, far enough apart (3 octaves) to be told apart with a low/high-pass. */
const CLIP_TONE_HZ = 440;
const AUDIO_TONE_HZ = 3520;
const LOW_BAND = 'lowpass=f=1250,lowpass=f=1250,lowpass=f=1250';
const HIGH_BAND = 'highpass=f=1250,highpass=f=1250,highpass=f=1250';

/** [x0, y0, x1, y1), canvas pixels. */
type Region = [number, number, number, number];

interface Ink {
  count: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
  /** Runs of consecutive rows holding ink (lines of text). */
  bands: { top: number; bottom: number }[];
  /** Ink pixels, relative to the region's corner, for comparing two renderings. */
  mask: Set<string>;
}

/** Where the pixels matching `isInk` lie inside `region`. */
function inkIn(frame: Frame, [x0, y0, x1, y1]: Region, isInk: (rgb: Rgb) => boolean): Ink {
  const ink: Ink = { count: 0, left: Infinity, right: -Infinity, top: Infinity, bottom: -Infinity, bands: [], mask: new Set() };
  for (let y = y0; y < y1; y += 1) {
    let rowHasInk = false;
    for (let x = x0; x < x1; x += 1) {
      if (!isInk(frame.at(x, y))) continue;
      rowHasInk = true;
      ink.count += 1;
      ink.mask.add(`${x - x0},${y - y0}`);
      ink.left = Math.min(ink.left, x);
      ink.right = Math.max(ink.right, x);
      ink.top = Math.min(ink.top, y);
      ink.bottom = Math.max(ink.bottom, y);
    }
    const last = ink.bands.at(-1);
    if (rowHasInk && last && last.bottom === y - 1) last.bottom = y;
    else if (rowHasInk) ink.bands.push({ top: y, bottom: y });
  }
  return ink;
}

const brightInk = (rgb: Rgb) => (rgb[0] + rgb[1] + rgb[2]) / 3 > 128;
const whiteInk = (rgb: Rgb) => rgb.every((channel) => channel > 200);
const redInk = (rgb: Rgb) => rgb[0] > 160 && rgb[1] < 90 && rgb[2] < 90;
const magentaInk = (rgb: Rgb) => rgb[0] > 200 && rgb[1] < 60 && rgb[2] > 200;

/** Pixels in one mask and not in the other (both relative to their regions). */
function maskDifference(a: Set<string>, b: Set<string>): number {
  let different = 0;
  for (const key of a) if (!b.has(key)) different += 1;
  for (const key of b) if (!a.has(key)) different += 1;
  return different;
}


/** Distance between the tops of consecutive lines of text. */
function linePitch(ink: Ink): number {
  const tops = ink.bands.map((band) => band.top);
  return (tops.at(-1)! - tops[0]) / (tops.length - 1);
}

/**
 * The render features of issue 3 item 3, each proven through the REST API: POST /v1/renders,
 * poll, download, then decode with ffmpeg and check pixels and sound. Stills (png, frame 0) where
 * time is not the point; two tiny 1.5 s mp4s for timing and audio.
 */
describe('render features (through the REST API)', () => {
  const house = withRenderApp({
    name: 'feature',
    fixtures: async (dir) => {
      /** A still image drawn by a lavfi filter chain, saved as lossless rgb png. */
      const image = (name: string, filter: string) => lavfiImage(path.join(dir, name), filter);
      // clip.mp4: 160x90 at 30 fps, green for its first second and red for its second, with a
      // 440 Hz tone. Converted to YUV with the BT.709 matrix and tagged BT.709: Chromium assumes
      // BT.709 for untagged video while ffmpeg assumes BT.601, which would shift the colours.
      await ffmpeg(
        '-f', 'lavfi', '-i', 'color=c=0x00ff00:s=160x90:r=30:d=1',
        '-f', 'lavfi', '-i', 'color=c=0xff0000:s=160x90:r=30:d=1',
        '-f', 'lavfi', '-i', `sine=frequency=${CLIP_TONE_HZ}:sample_rate=48000:duration=2`,
        '-filter_complex', '[0:v][1:v]concat=n=2:v=1,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[v]',
        '-map', '[v]', '-map', '2:a',
        '-c:v', 'libx264', '-preset', 'ultrafast', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv',
        '-c:a', 'aac', '-shortest', path.join(dir, 'clip.mp4'),
      );
      await ffmpeg('-f', 'lavfi', '-i', `sine=frequency=${AUDIO_TONE_HZ}:sample_rate=48000:duration=2`, path.join(dir, 'tone.wav'));
      await image('yellow.png', 'color=c=0xffff00:s=64x64');
      // A 2:1 magenta watermark, larger than the 20 % cap on a 320x180 canvas.
      await image('mark.png', 'color=c=0xff00ff:s=128x64');
      // Left half red, right half green / top half red, bottom half green: flips show.
      await image('halves.png', 'color=c=0xff0000:s=64x64,format=rgb24,drawbox=x=32:y=0:w=32:h=64:color=0x00ff00:t=fill');
      await image('tophalves.png', 'color=c=0xff0000:s=64x64,format=rgb24,drawbox=x=0:y=32:w=64:h=32:color=0x00ff00:t=fill');
      // 64x32 stripes, white | red (the middle half) | green: fits show which part is kept.
      await image(
        'stripes.png',
        'color=c=0xff0000:s=64x32,format=rgb24,drawbox=x=0:y=0:w=16:h=32:color=0xffffff:t=fill,drawbox=x=48:y=0:w=16:h=32:color=0x00ff00:t=fill',
      );
    },
  });
  const url = house.mediaUrl;

  /** Submits, polls to the end, downloads; returns the job and the local output file. */
  const render = (name: string, body: Record<string, unknown>) => house.render(name, body, 60_000);

  const still = (width: number, height: number, rest: Record<string, unknown>) => ({ width, height, output_format: 'png', ...rest });
  const box = (x: number | string, y: number | string, width: number | string, height: number | string) => ({ x, y, width, height });
  const shape = (fill_color: string, place: object, rest: object = {}) => ({ type: 'shape', fill_color, ...place, ...rest });

  it('lays out px and percent positions and sizes, anchors 0% vs 50%, x/y/z_rotation, x/y_scale, flips and visible: false', async () => {
    const { job, file } = await render('layout', still(320, 180, {
      background_color: '#0000ff',
      elements: [
        shape('#ff0000', box('25%', '50%', 40, 40)), // 60..100 x 70..110
        shape('#ffffff', box(10, 10, 24, 24), { x_anchor: '0%', y_anchor: '0%' }), // 10..34
        shape('#ffffff', box(50, 50, 24, 24), { x_anchor: '50%', y_anchor: '50%' }), // 38..62
        shape('#00ff00', box('37.5%', '25%', '12.5%', '20%')), // 100..140 x 27..63
        shape('#ffffff', box(200, 45, 40, 40), { z_rotation: '45deg' }), // a diamond, half-diagonal 28.3
        shape('#ffff00', box(280, 45, 40, 40), { x_scale: '50%', y_scale: '150%' }), // 270..290 x 15..75
        shape('#ffffff', box(81, 30, 30, 30), { x_rotation: '60deg' }), // 66..96 x 15..45, seen 15 px tall
        shape('#ffffff', box(249, 45, 30, 30), { y_rotation: 60 }), // 234..264 x 30..60, seen 15 px wide
        { type: 'image', source_url: url('halves.png'), ...box(40, 135, 40, 40) }, // 20..60 x 115..155
        { type: 'image', source_url: url('halves.png'), ...box(120, 135, 40, 40), flip_horizontal: true }, // 100..140
        { type: 'image', source_url: url('tophalves.png'), ...box(200, 135, 40, 40), flip_vertical: true }, // 180..220
        shape('#ffff00', box(280, 135, 60, 60), { visible: false }),
      ],
    }));
    expect(job.output).toMatchObject({ width: 320, height: 180 });
    const frame = await frameAt(file);
    expect([frame.width, frame.height]).toEqual([320, 180]);
    const c = new Checks(COLOUR_TOLERANCE);
    c.colour('red rectangle at x=25% y=50%', frame.at(80, 90), RED);
    c.colour('blue canvas elsewhere', frame.at(160, 100), BLUE);
    c.colour('anchor 0%: top-left corner at (10, 10)', frame.at(12, 12), WHITE);
    c.colour('anchor 0%: bottom-right corner at (34, 34)', frame.at(32, 32), WHITE);
    c.colour('anchor 0%: nothing right of it', frame.at(36, 22), BLUE);
    c.colour('anchor 0%: nothing below it', frame.at(22, 36), BLUE);
    c.colour('anchor 50%: top-left corner at (38, 38)', frame.at(40, 40), WHITE);
    c.colour('anchor 50%: bottom-right corner at (62, 62)', frame.at(60, 60), WHITE);
    c.colour('anchor 50%: nothing left of it', frame.at(36, 50), BLUE);
    c.colour('anchor 50%: nothing right of it', frame.at(64, 50), BLUE);
    c.colour('percent box: top-left inside', frame.at(102, 29), GREEN);
    c.colour('percent box: bottom-right inside', frame.at(138, 61), GREEN);
    c.colour('percent box: left of it', frame.at(97, 45), BLUE);
    c.colour('percent box: right of it', frame.at(143, 45), BLUE);
    c.colour('percent box: above it', frame.at(120, 24), BLUE);
    c.colour('percent box: below it', frame.at(120, 66), BLUE);
    c.colour('rotated square: tip below the centre', frame.at(200, 70), WHITE);
    c.colour('rotated square: tip right of the centre', frame.at(225, 45), WHITE);
    c.colour('rotated square: unrotated bottom-right corner now empty', frame.at(218, 63), BLUE);
    c.colour('rotated square: unrotated top-left corner now empty', frame.at(182, 27), BLUE);
    c.colour('x_rotation 60deg: centre', frame.at(81, 30), WHITE);
    c.colour('x_rotation 60deg: as wide as before', frame.at(70, 30), WHITE);
    c.colour('x_rotation 60deg: half as tall (top)', frame.at(81, 19), BLUE);
    c.colour('x_rotation 60deg: half as tall (bottom)', frame.at(81, 41), BLUE);
    c.colour('y_rotation 60: centre', frame.at(249, 45), WHITE);
    c.colour('y_rotation 60: as tall as before', frame.at(249, 33), WHITE);
    c.colour('y_rotation 60: half as wide (left)', frame.at(237, 45), BLUE);
    c.colour('y_rotation 60: half as wide (right)', frame.at(261, 45), BLUE);
    c.colour('y_scale 150%: taller at the top', frame.at(280, 18), YELLOW);
    c.colour('y_scale 150%: taller at the bottom', frame.at(280, 72), YELLOW);
    c.colour('x_scale 50%: narrower on the left', frame.at(265, 45), BLUE);
    c.colour('x_scale 50%: narrower on the right', frame.at(295, 45), BLUE);
    c.colour('x_scale 50%: still there near its edge', frame.at(288, 45), YELLOW);
    c.colour('unflipped image: left half red', frame.at(25, 135), RED);
    c.colour('unflipped image: right half green', frame.at(55, 135), GREEN);
    c.colour('flip_horizontal: left half green', frame.at(105, 135), GREEN);
    c.colour('flip_horizontal: right half red', frame.at(135, 135), RED);
    c.colour('flip_vertical: top half green', frame.at(200, 120), GREEN);
    c.colour('flip_vertical: bottom half red', frame.at(200, 150), RED);
    c.colour('visible: false draws nothing', frame.at(280, 135), BLUE);
    c.colour('visible: false draws nothing (its corner)', frame.at(255, 110), BLUE);
    c.assertAll();
  });

  it('blends opacity, orders by z_index, and draws ellipses, rounded rectangles and strokes', async () => {
    const { file } = await render('compositing', still(320, 180, {
      background_color: '#0000ff',
      elements: [
        shape('#ffffff', box(40, 45, 40, 40), { opacity: 0.5 }),
        shape('#ffffff', box(40, 135, 40, 40), { opacity: '25%' }),
        shape('#ff0000', box(110, 45, 40, 40), { z_index: 2 }), // first in the list, but in front
        shape('#00ff00', box(130, 45, 40, 40), { z_index: 1 }),
        shape('#ffff00', box(110, 135, 40, 40)), // equal z_index: the later one is in front
        shape('#00ffff', box(130, 135, 40, 40)),
        shape('#ffff00', box(200, 45, 60, 40), { shape: 'ellipse', z_index: 1 }), // 170..230 x 25..65
        shape('#ff0000', box(280, 45, 60, 60), { border_radius: 20 }), // 250..310 x 15..75
        shape('#ff0000', box(200, 135, 60, 60), { stroke_color: '#ffffff', stroke_width: 8 }), // 170..230 x 105..165
        shape('#00ff00', box(280, 135, 60, 60), { shape: 'ellipse', stroke_color: '#ffffff', stroke_width: 6 }), // 250..310 x 105..165
      ],
    }));
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);
    c.colour('opacity 0.5: white half over blue', frame.at(40, 45), [128, 128, 255]);
    c.colour('opacity "25%": white quarter over blue', frame.at(40, 135), [64, 64, 255]);
    c.colour('z_index 2 in front of z_index 1 where they overlap', frame.at(120, 45), RED);
    c.colour('z_index: the lower one shows where it is alone', frame.at(140, 45), GREEN);
    c.colour('equal z_index: the later element in front', frame.at(120, 135), CYAN);
    c.colour('equal z_index: the earlier one shows where it is alone', frame.at(100, 135), YELLOW);
    c.colour('ellipse centre', frame.at(200, 45), YELLOW);
    c.colour('ellipse reaches the middle of its box top', frame.at(200, 28), YELLOW);
    c.colour('ellipse reaches the middle of its box side', frame.at(172, 45), YELLOW);
    c.colour('outside the ellipse, inside its box top-left corner', frame.at(172, 27), BLUE);
    c.colour('outside the ellipse, inside its box bottom-right corner', frame.at(228, 63), BLUE);
    c.colour('border_radius: box corner transparent', frame.at(252, 17), BLUE);
    c.colour('border_radius: opposite box corner transparent', frame.at(308, 73), BLUE);
    c.colour('border_radius: centre filled', frame.at(280, 45), RED);
    c.colour('border_radius: middle of the top edge filled', frame.at(280, 17), RED);
    c.colour('border_radius: middle of the left edge filled', frame.at(252, 45), RED);
    c.colour('stroke inside the box, left', frame.at(174, 135), WHITE);
    c.colour('stroke inside the box, right', frame.at(226, 135), WHITE);
    c.colour('stroke inside the box, top', frame.at(200, 109), WHITE);
    c.colour('stroke inside the box, bottom', frame.at(200, 161), WHITE);
    c.colour('fill inside the stroke', frame.at(182, 135), RED);
    c.colour('fill at the centre', frame.at(200, 135), RED);
    c.colour('no stroke outside the box', frame.at(166, 135), BLUE);
    c.colour('no stroke above the box', frame.at(200, 101), BLUE);
    c.colour('stroked ellipse: fill at the centre', frame.at(280, 135), GREEN);
    c.colour('stroked ellipse: stroke at the top', frame.at(280, 108), WHITE);
    c.colour('stroked ellipse: stroke at the left', frame.at(253, 135), WHITE);
    c.colour('stroked ellipse: box corner empty', frame.at(252, 107), BLUE);
    c.colour('stroked ellipse: nothing above the box', frame.at(280, 102), BLUE);
    c.assertAll();
  });

  it('fits images: contain leaves bars, cover fills (cropping), fill stretches; cover by default; one size set: the media aspect or aspect_ratio', async () => {
    const stripes = (fit: string | undefined, place: object) => ({ type: 'image', source_url: url('stripes.png'), ...place, ...(fit ? { fit } : {}) });
    const { file } = await render('fit', still(320, 180, {
      background_color: '#0000ff',
      elements: [
        stripes('contain', box(50, 60, 60, 60)), // 20..80 x 30..90, the image 60x30 at y 45..75
        stripes('cover', box(130, 60, 60, 60)), // 100..160: only the red middle half shows
        stripes('fill', box(210, 60, 60, 60)), // 180..240: all three stripes, squashed
        stripes(undefined, box(290, 60, 40, 40)), // 270..310: cover
        { type: 'image', source_url: url('stripes.png'), x: 160, y: 150, width: 80 }, // 80x40 from the image's 2:1
        { type: 'image', source_url: url('yellow.png'), ...box('75%', '75%', 40, 40) },
        shape('#ffffff', { x: 50, y: 140, width: 60, aspect_ratio: 2 }), // 20..80 x 125..155
      ],
    }));
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);
    c.colour('contain: bar above the image', frame.at(50, 35), BLUE);
    c.colour('contain: bar below the image', frame.at(50, 86), BLUE);
    c.colour('contain: middle stripe', frame.at(50, 60), RED);
    c.colour('contain: left stripe kept', frame.at(24, 60), WHITE);
    c.colour('contain: right stripe kept', frame.at(76, 60), GREEN);
    c.colour('cover: top-left corner filled, with the middle stripe', frame.at(103, 33), RED);
    c.colour('cover: bottom-right corner filled, with the middle stripe', frame.at(157, 87), RED);
    c.colour('cover: left stripe cropped away', frame.at(103, 60), RED);
    c.colour('fill: top-left corner shows the left stripe', frame.at(183, 33), WHITE);
    c.colour('fill: bottom-left corner shows the left stripe', frame.at(183, 87), WHITE);
    c.colour('fill: bottom-right corner shows the right stripe', frame.at(237, 87), GREEN);
    c.colour('fill: middle stripe', frame.at(210, 60), RED);
    c.colour('default fit (cover): left edge red', frame.at(273, 60), RED);
    c.colour('default fit (cover): top edge red', frame.at(290, 43), RED);
    c.colour('width only: height follows the image (left stripe)', frame.at(123, 150), WHITE);
    c.colour('width only: height follows the image (right stripe)', frame.at(197, 150), GREEN);
    c.colour('width only: 40 px tall, top inside', frame.at(160, 133), RED);
    c.colour('width only: 40 px tall, nothing above', frame.at(160, 127), BLUE);
    c.colour('image at x=75% y=75%', frame.at(240, 135), YELLOW);
    c.colour('aspect_ratio 2: 30 px tall, top inside', frame.at(50, 127), WHITE);
    c.colour('aspect_ratio 2: 30 px tall, bottom inside', frame.at(50, 153), WHITE);
    c.colour('aspect_ratio 2: nothing above', frame.at(50, 122), BLUE);
    c.colour('aspect_ratio 2: nothing below', frame.at(50, 158), BLUE);
    c.colour('aspect_ratio 2: 60 px wide', frame.at(22, 140), WHITE);
    c.assertAll();
  });

  it('draws text in every shipped font family (each distinct from the others; Roboto Mono monospaced)', async () => {
    const families = ['Inter', 'Roboto', 'Open Sans', 'Montserrat', 'Lato', 'Playfair Display', 'Oswald', 'Roboto Mono'];
    const text = (content: string, x: number, y: number, rest: object) => ({ type: 'text', text: content, x, y, x_anchor: 0, y_anchor: 0, font_size: 20, fill_color: '#ffffff', ...rest });
    const mono = ['iii', 'iiiiii', 'MMM', 'MMMMMM'];
    const { file } = await render('fonts', still(480, 300, {
      background_color: '#000000',
      elements: [
        ...families.map((font_family, i) => text('Quick Wafting Zephyrs 42', 10, 6 + 36 * i, { font_family })),
        ...mono.map((content, i) => text(content, 340, 6 + 36 * i, { font_family: 'Roboto Mono' })),
      ],
    }));
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);
    const rows = families.map((_, i) => inkIn(frame, [0, 36 * i, 330, 36 * i + 36], brightInk));
    rows.forEach((row, i) => c.that(`${families[i]}: text drawn`, row.count > 200 && row.left >= 9 && row.top >= 36 * i + 6, row.count));
    for (let i = 0; i < families.length; i += 1) {
      for (let j = i + 1; j < families.length; j += 1) {
        const different = maskDifference(rows[i].mask, rows[j].mask);
        c.that(`${families[i]} and ${families[j]} render differently`, different > 200, `${different} pixels differ`);
      }
    }
    const [i3, i6, m3, m6] = mono.map((_, i) => inkIn(frame, [330, 36 * i, 480, 36 * i + 36], brightInk));
    const advanceI = (i6.right - i3.right) / 3;
    const advanceM = (m6.right - m3.right) / 3;
    c.near('Roboto Mono: advance of "M" equals that of "i"', advanceM, advanceI, 1);
    c.near('Roboto Mono: advance 0.6 em', advanceI, 12, 1);
    c.assertAll();
  });

  it('styles text: fill colour, background box with padding, stroke, wrapping in its box, line height, alignment, size (and its default), weight, italic, letter spacing, transform', async () => {
    const text = (content: string, x: number, y: number, rest: object = {}) => ({ type: 'text', text: content, x, y, x_anchor: 0, y_anchor: 0, font_size: 20, fill_color: '#ffffff', ...rest });
    const words = 'HHH EEE FFF TTT LLL EEE HHH';
    const { file } = await render('text', still(480, 360, {
      background_color: '#000000',
      elements: [
        text('Fill', 10, 10, { font_size: 40, font_weight: 900, fill_color: '#ffff00' }),
        text(words, 10, 80, { font_size: 16, width: 100 }),
        text(words, 10, 210, { font_size: 16, width: 100, line_height: 2 }),
        text('Box', 170, 14, { background_color: '#ff0000', background_x_padding: 10, background_y_padding: 4 }),
        text('Stroke', 170, 70, { font_size: 32, stroke_color: '#ff0000', stroke_width: 3 }),
        text('HHHH', 170, 130),
        text('HHHH', 170, 170, { letter_spacing: '50%' }),
        text('HH', 170, 215),
        text('HH', 240, 210, { font_size: 40 }),
        text('HHH', 170, 275, { font_size: 24, font_weight: 100 }),
        text('HHH', 240, 275, { font_size: 24, font_weight: 900 }),
        text('hello', 170, 315, { text_transform: 'uppercase' }),
        text('HELLO', 245, 315),
        text('Right', 330, 10, { width: 140, height: 40, x_alignment: 'right' }),
        text('Mid', 330, 70, { width: 140, height: 80, x_alignment: 'center', y_alignment: 'bottom' }),
        text('IIII', 330, 175, { font_size: 30 }),
        text('IIII', 330, 225, { font_size: 30, font_style: 'italic' }),
        text('HH', 330, 285, { font_size: undefined }), // default: canvas height / 20 = 18 px
        text('HH', 400, 285, { font_size: 360 / 20 }),
      ],
    }));
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);

    const fill = inkIn(frame, [0, 0, 160, 64], (rgb) => (rgb[0] + rgb[1] + rgb[2]) / 3 > 40);
    const yellow = inkIn(frame, [0, 0, 160, 64], (rgb) => Math.abs(rgb[0] - 255) <= 20 && Math.abs(rgb[1] - 255) <= 20 && rgb[2] <= 20);
    c.that('fill_color: solid yellow glyph pixels', yellow.count > 150, yellow.count);
    const offHue = inkIn(frame, [0, 0, 160, 64], (rgb) => rgb[0] + rgb[1] > 60 && (rgb[2] > 40 || Math.abs(rgb[0] - rgb[1]) > 40));
    c.that('fill_color: every ink pixel is a shade of yellow', offHue.count === 0 && fill.count > yellow.count, { offHue: offHue.count, ink: fill.count });

    const wrapped = inkIn(frame, [0, 72, 160, 202], brightInk);
    c.that('wrapping: several lines', wrapped.bands.length >= 2, wrapped.bands);
    c.that('wrapping: ink stays inside the 100 px box (x 10..110)', wrapped.left >= 9 && wrapped.right <= 111, [wrapped.left, wrapped.right]);
    c.that('wrapping: starts at the box top', wrapped.top >= 80 && wrapped.top <= 90, wrapped.top);
    if (wrapped.bands.length >= 2) c.near('line_height default 1.2: line pitch', linePitch(wrapped), 1.2 * 16, 1.5);
    const spaced = inkIn(frame, [0, 204, 160, 360], brightInk);
    c.that('line_height 2: several lines', spaced.bands.length >= 2, spaced.bands);
    if (spaced.bands.length >= 2) c.near('line_height 2: line pitch', linePitch(spaced), 2 * 16, 1.5);

    const boxWhite = inkIn(frame, [160, 0, 320, 60], whiteInk);
    const boxRed = inkIn(frame, [160, 0, 320, 60], redInk);
    c.that('background_color: a red box behind the text', boxRed.count > 300, boxRed.count);
    c.colour('background_color: the box in the left padding', frame.at(173, Math.round((boxWhite.top + boxWhite.bottom) / 2)), RED);
    c.that('background_color: starts at the element box (x 170)', boxRed.left >= 169 && boxRed.left <= 171, boxRed.left);
    c.that('background_x_padding 10: beyond the glyphs on both sides', boxWhite.left - boxRed.left >= 9 && boxRed.right - boxWhite.right >= 9, [boxRed.left, boxWhite.left, boxWhite.right, boxRed.right]);
    c.that('background_y_padding 4: beyond the glyphs above and below', boxWhite.top - boxRed.top >= 4 && boxRed.bottom - boxWhite.bottom >= 4, [boxRed.top, boxWhite.top, boxWhite.bottom, boxRed.bottom]);
    c.colour('background_color: nothing right of the box', frame.at(boxRed.right + 3, boxWhite.top), [0, 0, 0]);

    const strokeWhite = inkIn(frame, [160, 62, 320, 122], whiteInk);
    const strokeRed = inkIn(frame, [160, 62, 320, 122], redInk);
    c.that('stroke_color: red stroke drawn', strokeRed.count > 150, strokeRed.count);
    c.that('stroke_width 3: outside the glyphs on the left', strokeWhite.left - strokeRed.left >= 2 && strokeWhite.left - strokeRed.left <= 4, [strokeRed.left, strokeWhite.left]);
    c.that('stroke_width 3: outside the glyphs at the top', strokeWhite.top - strokeRed.top >= 2 && strokeWhite.top - strokeRed.top <= 4, [strokeRed.top, strokeWhite.top]);

    const plain = inkIn(frame, [160, 122, 320, 162], brightInk);
    const letterSpaced = inkIn(frame, [160, 162, 320, 202], brightInk);
    c.near('letter_spacing 50% of 20 px: 3 gaps 10 px wider', letterSpaced.right - letterSpaced.left - (plain.right - plain.left), 30, 2);

    const small = inkIn(frame, [160, 205, 230, 265], brightInk);
    const large = inkIn(frame, [230, 205, 320, 265], brightInk);
    c.near('font_size 40 vs 20: twice as tall', (large.bottom - large.top + 1) / (small.bottom - small.top + 1), 2, 0.15);
    c.near('font_size 40 vs 20: twice as wide', (large.right - large.left + 1) / (small.right - small.left + 1), 2, 0.15);

    const thin = inkIn(frame, [160, 268, 235, 310], brightInk);
    const heavy = inkIn(frame, [235, 268, 320, 310], brightInk);
    c.that('font_weight 900 much heavier than 100', heavy.count > 2 * thin.count && thin.count > 20, [thin.count, heavy.count]);

    const transformed = inkIn(frame, [170, 312, 245, 350], brightInk);
    const upper = inkIn(frame, [245, 312, 320, 350], brightInk);
    const difference = maskDifference(transformed.mask, upper.mask);
    c.that('text_transform uppercase: "hello" drawn as "HELLO"', transformed.count > 50 && difference <= 5, { difference, ink: transformed.count });

    const right = inkIn(frame, [320, 0, 480, 60], brightInk);
    c.that('x_alignment right: ink ends at the box right edge (470)', right.right >= 465 && right.right <= 470, right.right);
    c.that('x_alignment right: far from the box left edge (330)', right.left > 380, right.left);
    const mid = inkIn(frame, [320, 62, 480, 160], brightInk);
    c.near('x_alignment center: ink centred on the box (400)', (mid.left + mid.right) / 2, 400, 2);
    c.that('y_alignment bottom: in the last line box of the box (126..150)', mid.top >= 150 - 24 && mid.bottom <= 150, [mid.top, mid.bottom]);

    /** Horizontal shift of the ink's left edge from its top row to its bottom row. */
    const slant = (region: Region) => {
      const ink = inkIn(frame, region, brightInk);
      const leftmost = (y: number) => {
        for (let x = region[0]; x < region[2]; x += 1) if (brightInk(frame.at(x, y))) return x;
        return NaN;
      };
      return leftmost(ink.top + 1) - leftmost(ink.bottom - 1);
    };
    const upright = slant([320, 165, 480, 215]);
    const italic = slant([320, 215, 480, 265]);
    c.that('font_style normal: upright', Math.abs(upright) <= 1, upright);
    c.that('font_style italic: slanted to the right', italic >= 3, italic);
    const defaultSize = inkIn(frame, [320, 275, 400, 320], brightInk);
    const explicitSize = inkIn(frame, [390, 275, 480, 320], brightInk);
    const sizeDifference = maskDifference(defaultSize.mask, explicitSize.mask);
    c.that('font_size omitted: canvas height / 20', defaultSize.count > 50 && sizeDifference <= 5, { sizeDifference, ink: defaultSize.count });
    c.assertAll();
  });

  it('draws background_image_url (cover) under a CSS gradient string, elements above, the watermark on top, bottom right', async () => {
    const { file } = await render('background', still(320, 180, {
      background_color: '#000000',
      background_image_url: url('yellow.png'),
      background_gradient: 'linear-gradient(90deg, #ff0000 0%, #ff0000 25%, rgba(0, 0, 0, 0) 25%, rgba(0, 0, 0, 0) 75%, #00ff00 75%, #00ff00 100%)',
      watermark_url: url('mark.png'),
      elements: [shape('#ffffff', box(290, 150, 60, 60))], // covers the watermark's corner: 260..320 x 120..180
    }));
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);
    c.colour('gradient string: left colour', frame.at(20, 90), RED);
    c.colour('gradient string: right colour', frame.at(300, 60), GREEN);
    c.colour('background image through the transparent middle', frame.at(160, 90), YELLOW);
    c.colour('background image covers the canvas (top)', frame.at(160, 2), YELLOW);
    c.colour('background image covers the canvas (bottom)', frame.at(160, 177), YELLOW);
    c.colour('element above the background', frame.at(265, 125), WHITE);
    const mark = inkIn(frame, [0, 0, 320, 180], magentaInk);
    const width = mark.right - mark.left + 1;
    const height = mark.bottom - mark.top + 1;
    c.that('watermark drawn, above the element', mark.count > 0 && mark.left > 160 && mark.top > 90, mark);
    c.that('watermark at most 20 % of the canvas each way', width <= 0.2 * 320 + 1 && height <= 0.2 * 180 + 1, [width, height]);
    c.that('watermark scaled down to the cap (its width here)', Math.max(width / (0.2 * 320), height / (0.2 * 180)) >= 0.97, [width, height]);
    c.near('watermark keeps its 2:1 aspect', width / height, 2, 0.1);
    c.near('watermark 3 % of the width from the right edge', 320 - 1 - mark.right, 0.03 * 320, 1.5);
    c.near('watermark 3 % of the height from the bottom edge', 180 - 1 - mark.bottom, 0.03 * 180, 1.5);
    c.assertAll();
  });

  it('draws background_gradient in object form, left to right', async () => {
    const { file } = await render('gradient', still(320, 180, {
      background_gradient: { type: 'linear', angle: 90, stops: [{ color: '#ff0000', offset: 0 }, { color: '#0000ff', offset: 1 }] },
    }));
    const frame = await frameAt(file);
    const c = new Checks(COLOUR_TOLERANCE);
    c.colour('gradient object: left', frame.at(2, 90), RED);
    c.colour('gradient object: right', frame.at(317, 90), BLUE);
    c.colour('gradient object: half-way', frame.at(160, 90), [128, 0, 128], 8);
    c.colour('gradient object: same colour down a column (90deg)', frame.at(160, 5), frame.at(160, 175), 3);
    c.assertAll();
  });

  it('times an mp4: track sequencing, visible: false keeping its place, in_point + speed, fades; H.264 tv range, exact frames, the audio in its windows', async () => {
    const clip = url('clip.mp4');
    const { job, file } = await render('timing', {
      width: 160,
      height: 90,
      duration: 1.5,
      frame_rate: 30,
      background_color: '#0000ff',
      elements: [
        // Right half from 0.5 s, from source second 0.5 at double speed (green until source
        // second 1, then red), until source second 2 = 1.25 s.
        { type: 'video', source_url: clip, time: 0.5, in_point: 0.5, speed: 2, x: '75%', width: '50%', height: '100%' },
        shape('#ff0000', box('25%', 11, 60, 16), { track: 1, duration: 0.5 }), // 0 .. 0.5
        shape('#00ff00', box('25%', 11, 60, 16), { track: 1, duration: 0.5 }), // 0.5 .. 1
        shape('#ffff00', box('25%', 34, 60, 16), { track: 2, duration: 0.75, visible: false }), // 0 .. 0.75, not drawn
        shape('#00ffff', box('25%', 34, 60, 16), { track: 2, duration: 0.5 }), // 0.75 .. 1.25
        shape('#ffffff', box('25%', 56, 60, 16), { fade_out_duration: 1 }), // to the end (1.5), fading from 0.5
        shape('#ff0000', box('25%', '85%', 60, 16), { fade_in_duration: 1 }),
        { type: 'audio', source_url: clip, out_point: 0.3 },
      ],
    });
    expect(job.output).toMatchObject({ width: 160, height: 90, duration: 1.5 });
    const c = new Checks(COLOUR_TOLERANCE);
    const at = new Map<number, Frame>();
    for (const t of [0.25, 0.5, 0.6, 0.8, 0.9, 1, 1.15, 1.4]) at.set(t, await frameAt(file, t));
    const pixel = (t: number, x: number, y: number) => at.get(t)!.at(x, y);
    const tolerance = 30; // JPEG frames and H.264 4:2:0
    c.colour('track 1, first element at 0.25 s', pixel(0.25, 40, 11), RED, tolerance);
    c.colour('track 1, second element right after it (0.8 s)', pixel(0.8, 40, 11), GREEN, tolerance);
    c.colour('track 1, nothing after the second (1.15 s)', pixel(1.15, 40, 11), BLUE, tolerance);
    c.colour('track 2, invisible element draws nothing (0.25 s)', pixel(0.25, 40, 34), BLUE, tolerance);
    c.colour('track 2, invisible element still takes 0.75 s (0.6 s)', pixel(0.6, 40, 34), BLUE, tolerance);
    c.colour('track 2, next element after it (0.8 s)', pixel(0.8, 40, 34), CYAN, tolerance);
    c.colour('track 2, next element still there (1.15 s)', pixel(1.15, 40, 34), CYAN, tolerance);
    c.colour('track 2, next element over at 1.25 s (1.4 s)', pixel(1.4, 40, 34), BLUE, tolerance);
    c.colour('right half before the clip (0.25 s)', pixel(0.25, 120, 45), BLUE, tolerance);
    c.colour('clip at 0.6 s shows source second 0.7', pixel(0.6, 120, 45), GREEN, tolerance);
    c.colour('clip at 0.9 s shows source second 1.3', pixel(0.9, 120, 45), RED, tolerance);
    c.colour('clip over at source second 2 = 1.25 s (1.4 s)', pixel(1.4, 120, 45), BLUE, tolerance);
    c.colour('left edge during the clip (0.9 s)', pixel(0.9, 5, 45), BLUE, tolerance);
    c.colour('shape half faded in (0.5 s)', pixel(0.5, 40, 76), [128, 0, 128], tolerance);
    c.colour('fade-out not started (0.25 s)', pixel(0.25, 40, 56), WHITE, tolerance);
    c.colour('shape half faded out (1 s)', pixel(1, 40, 56), [128, 128, 255], tolerance);

    const levels = {
      audioElement: (await volumeDb(file, 0.05, 0.25)).max,
      gap: (await volumeDb(file, 0.35, 0.45)).max,
      videoSound: (await volumeDb(file, 0.6, 0.95)).max,
      afterClip: (await volumeDb(file, 1.32, 1.45)).max,
    };
    c.that('audio element sounds 0–0.3 s, silence, the video sound from 0.5 s, silence after it', levels.audioElement > -30 && levels.gap < -60 && levels.videoSound > -30 && levels.afterClip < -60, levels);

    const info = await probe(file);
    const video = info.streams.find((s) => s.codec_type === 'video');
    const audio = info.streams.find((s) => s.codec_type === 'audio');
    c.that('H.264 yuv420p in tv range', video?.codec_name === 'h264' && video.pix_fmt === 'yuv420p' && video.color_range === 'tv', video);
    c.that('45 frames at 30 fps', video?.nb_read_frames === '45' && video.r_frame_rate === '30/1', [video?.nb_read_frames, video?.r_frame_rate]);
    c.that('160x90', video?.width === 160 && video.height === 90, [video?.width, video?.height]);
    c.that('an AAC audio stream', audio?.codec_name === 'aac', audio?.codec_name);
    c.near('video stream duration', Number(video?.duration), 1.5, 0.001);
    c.near('container duration, exact to a frame', Number(info.format.duration), 1.5, 1 / 30);
    c.assertAll();
  });

  it('mixes the sound of audio and video elements in their windows; volume 50% lowers it 6 dB, volume 0 and visible: false mute', async () => {
    const clip = url('clip.mp4');
    const tone = url('tone.wav');
    // 10 fps: every window starts and ends on a frame, and the sound is what is measured here.
    const { file } = await render('audio', {
      width: 160,
      height: 90,
      duration: 1.5,
      frame_rate: 10,
      background_color: '#0000ff',
      elements: [
        { type: 'audio', source_url: tone, out_point: 0.6 }, // 0 .. 0.6
        { type: 'video', source_url: clip, time: 0.3, out_point: 0.6, x: '25%', width: '50%', height: '100%' }, // 0.3 .. 0.9
        { type: 'audio', source_url: tone, time: 0.9, out_point: 0.2, visible: false }, // 0.9 .. 1.1, not played
        { type: 'audio', source_url: tone, time: 1.1, out_point: 0.4, volume: '50%' }, // 1.1 .. 1.5
        { type: 'video', source_url: clip, time: 1.1, out_point: 0.4, volume: 0, x: '75%', width: '50%', height: '100%' },
      ],
    });
    const c = new Checks(COLOUR_TOLERANCE);
    const band = async (from: number, to: number) => ({
      tone: (await volumeDb(file, from, to, HIGH_BAND)).mean,
      clip: (await volumeDb(file, from, to, LOW_BAND)).mean,
    });
    const toneAlone = await band(0.05, 0.25);
    const both = await band(0.38, 0.55);
    const clipAlone = await band(0.65, 0.85);
    const gap = await volumeDb(file, 0.93, 1.07);
    const halfAndMuted = await band(1.15, 1.45);
    c.that(`audio element: its ${AUDIO_TONE_HZ} Hz tone alone (0.05–0.25 s)`, toneAlone.tone > -35 && toneAlone.clip < toneAlone.tone - 30, toneAlone);
    c.that('audio element and video sound mixed (0.38–0.55 s)', both.tone > -35 && both.clip > -35, both);
    c.that(`video element: its ${CLIP_TONE_HZ} Hz tone alone (0.65–0.85 s)`, clipAlone.clip > -35 && clipAlone.tone < clipAlone.clip - 30, clipAlone);
    c.that('silence after out_point, with the invisible audio element (0.93–1.07 s)', gap.max < -60, gap);
    c.near('volume 50%: the tone 6 dB lower (1.15–1.45 s)', halfAndMuted.tone, toneAlone.tone - 6.02, 1.5);
    c.that('volume 0: the video playing beside it is silent', halfAndMuted.clip < halfAndMuted.tone - 30, halfAndMuted);
    // The same, to the millisecond: each sound starts and stops with its element (±15 ms).
    const expectedSpans = { tone: [{ start: 0, end: 0.6 }, { start: 1.1, end: 1.5 }], clip: [{ start: 0.3, end: 0.9 }] };
    const spans = {
      tone: soundSpans(await audioSamples(file, 48000, HIGH_BAND), 48000),
      clip: soundSpans(await audioSamples(file, 48000, LOW_BAND), 48000),
    };
    const aligned = (actual: { start: number; end: number }[], expected: { start: number; end: number }[]) =>
      actual.length === expected.length && actual.every((span, i) => Math.abs(span.start - expected[i].start) <= 0.015 && Math.abs(span.end - expected[i].end) <= 0.015);
    c.that(`sound in step with the picture: tone ${JSON.stringify(expectedSpans.tone)}`, aligned(spans.tone, expectedSpans.tone), spans.tone);
    c.that(`sound in step with the picture: video ${JSON.stringify(expectedSpans.clip)}`, aligned(spans.clip, expectedSpans.clip), spans.clip);
    c.colour('the first video plays from 0.3 s (0.6 s)', (await frameAt(file, 0.6)).at(40, 45), GREEN, 30);
    c.colour('the first video ends at its out_point (1 s)', (await frameAt(file, 1)).at(40, 45), BLUE, 30);
    c.colour('the muted video plays (1.3 s)', (await frameAt(file, 1.3)).at(120, 45), GREEN, 30);
    c.assertAll();
  });
});

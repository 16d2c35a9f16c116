import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { TEXT_PRESETS } from '../../composition/src/motion/text-split';
import type { TranscriptWords } from '../../composition/src/schema/resolve';
import { BLEND_MODES, EFFECTS, FONTS, MASK_SHAPES, MOTIONS, TRANSITIONS } from '../../composition/src/schema/vocabulary';

/**
 * The parity corpus: render requests that together use every element type and feature of the
 * composition (each shipped font, every motion preset, transition, effect, blend mode, text
 * animation…), packed as grids of small tiles into a few 320x180 requests of 1–2 s, each with the
 * frames to compare (mid-transition and mid-animation ones included). Any two ways of drawing a
 * request (server vs browser <Player>, or two server render paths) are compared on these frames.
 * Media come from `makeCorpusFixtures` (ffmpeg lavfi), served by the caller (test/helpers/media.ts).
 */
export interface CorpusEntry {
  name: string;
  /** What the request exercises, for the report. */
  covers: string;
  request: Record<string, unknown>;
  /** Frames (at the request's frame rate) compared. */
  frames: number[];
  /** Boxes [x0, y0, x1, y1] not compared, each one listed with its reason in CORPUS_EXCLUSIONS. */
  ignore?: [number, number, number, number][];
  /** Words of the caption sources, as the render worker resolves them (source → words, seconds). */
  transcripts?: TranscriptWords;
}

/** A feature left out of the comparison on purpose, and why (see composition/README.md, limits). */
export interface CorpusExclusion {
  feature: string;
  reason: string;
}

export const CORPUS_SIZE = { width: 320, height: 180 } as const;
const FPS = 10;

const run = promisify(execFile);

/** The media the corpus uses, written into `dir`: file names are what `url()` receives. */
export async function makeCorpusFixtures(dir: string): Promise<void> {
  const ffmpeg = (...args: string[]) => run('ffmpeg', ['-v', 'error', '-y', ...args]);
  // clip.mp4: 160x90, 30 fps, 3 s of moving test pattern with a 440 Hz tone; BT.709 as Chromium assumes.
  await ffmpeg(
    '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=30:duration=3',
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=3',
    '-vf', 'scale=out_color_matrix=bt709:out_range=tv,format=yuv420p',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '15', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv',
    '-c:a', 'aac', '-shortest', path.join(dir, 'clip.mp4'),
  );
  // photo.png: a colourful still (hues, a ramp, detail) for the colour fields and effects.
  await ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=160x90:rate=1', '-frames:v', '1', path.join(dir, 'photo.png'));
  // backdrop.png: the canvas-sized background image.
  await ffmpeg('-f', 'lavfi', '-i', 'smptebars=size=320x180:rate=1', '-frames:v', '1', path.join(dir, 'backdrop.png'));
  // logo.png: a half-transparent badge for the watermark.
  await ffmpeg('-f', 'lavfi', '-i', 'color=c=0xffcc00@0.8:s=48x24,format=rgba', '-frames:v', '1', path.join(dir, 'logo.png'));
  // beat.wav: a tone loud for 0.25 s of every 0.5 s, for audio-reactive animation.
  await ffmpeg('-f', 'lavfi', '-i', "sine=frequency=220:sample_rate=48000:duration=2,volume='if(lt(mod(t,0.5),0.25),4,0.05)':eval=frame", path.join(dir, 'beat.wav'));
  writeFileSync(path.join(dir, 'warm.cube'), cube(9, (r, g, b) => [Math.min(1, r * 1.1 + 0.05), g, b * 0.8]));
}

/** A 3D .cube of `size` points per axis mapping each colour through `map`. */
function cube(size: number, map: (r: number, g: number, b: number) => number[]): string {
  const lines = ['TITLE "Warm"', `LUT_3D_SIZE ${size}`];
  for (let b = 0; b < size; b += 1) for (let g = 0; g < size; g += 1) for (let r = 0; r < size; r += 1) lines.push(map(r / (size - 1), g / (size - 1), b / (size - 1)).map((v) => v.toFixed(6)).join(' '));
  return `${lines.join('\n')}\n`;
}

/** Centre of tile `n` of a `columns` x `rows` grid over the canvas, and the tile size. */
function tile(n: number, columns: number, rows: number) {
  const w = CORPUS_SIZE.width / columns;
  const h = CORPUS_SIZE.height / rows;
  return { x: (n % columns) * w + w / 2, y: Math.floor(n / columns) * h + h / 2, w, h };
}

const base = (rest: Record<string, unknown>) => ({ ...CORPUS_SIZE, frame_rate: FPS, background_color: '#101828', ...rest });

/** Every corpus request; `url(name)` is where fixture `name` is served. */
export function parityCorpus(url: (name: string) => string): CorpusEntry[] {
  const shape = (id: string, fill_color: string, x: number, y: number, width: number, height: number, rest: object = {}) =>
    ({ type: 'shape', id, fill_color, x, y, width, height, ...rest });
  const photo = (n: number, columns: number, rows: number, rest: object = {}) => {
    const t = tile(n, columns, rows);
    return { type: 'image', source_url: url('photo.png'), x: t.x, y: t.y, width: t.w - 6, height: t.h - 6, ...rest };
  };

  return [
    {
      name: 'shapes-and-gradient',
      covers: 'shape (rectangle, ellipse, stroke, border radius, shadow, opacity, rotation, scale, flip, z_index, fades), linear gradient object',
      frames: [3, 8],
      request: base({
        duration: 1,
        background_gradient: { type: 'linear', angle: '135deg', stops: [{ color: '#1e3a8a', offset: 0 }, { color: '#9333ea', offset: 0.6 }, { color: '#f97316', offset: 1 }] },
        elements: [
          shape('rect', '#ef4444', 40, 30, 60, 40),
          shape('ellipse', '#22c55e', 120, 30, 60, 40, { shape: 'ellipse' }),
          shape('stroked', '#3b82f6', 200, 30, 60, 40, { stroke_color: '#ffffff', stroke_width: 4, border_radius: 10 }),
          shape('shadowed', '#eab308', 280, 30, 60, 40, { shadow_color: '#000000aa', shadow_blur: 8, shadow_x: 4, shadow_y: 4 }),
          shape('faint', '#ffffff', 40, 90, 60, 40, { opacity: 0.4 }),
          shape('turned', '#14b8a6', 120, 90, 50, 30, { z_rotation: '30deg' }),
          shape('scaled', '#f472b6', 200, 90, 60, 40, { x_scale: '50%', y_scale: '120%' }),
          shape('tilted', '#a3e635', 280, 90, 50, 35, { y_rotation: '40deg', flip_horizontal: true }),
          shape('under', '#0ea5e9', 50, 150, 50, 40, { z_index: 2 }),
          shape('over', '#f43f5e', 70, 150, 50, 40, { z_index: 1 }),
          shape('fading-in', '#ffffff', 160, 150, 60, 40, { fade_in_duration: 0.6 }),
          shape('fading-out', '#fb923c', 260, 150, 60, 40, { duration: 1, fade_out_duration: 0.6, x_anchor: '0%', y_anchor: '100%', x: 230, y: 170 }),
        ],
      }),
    },
    {
      name: 'images-and-background',
      covers: 'image (cover, contain, fill, rotated, faded), background image, radial CSS gradient with alpha, watermark',
      frames: [0, 5],
      // Tile 0's cover-fitted image: see CORPUS_EXCLUSIONS.
      ignore: [[0, 0, 107, 90]],
      request: base({
        duration: 1,
        background_image_url: url('backdrop.png'),
        background_gradient: 'radial-gradient(circle at 30% 40%, rgba(255,255,255,0.5) 0%, rgba(16,24,40,0.9) 70%)',
        watermark_url: url('logo.png'),
        elements: [
          // Tile 0 is drawn but not compared: see CORPUS_EXCLUSIONS.
          photo(0, 3, 2, { fit: 'cover', height: 50 }),
          photo(1, 3, 2, { fit: 'contain', height: 80 }),
          photo(2, 3, 2, { fit: 'fill', height: 50 }),
          photo(3, 3, 2, { z_rotation: '-12deg', width: 70, height: 40 }),
          photo(4, 3, 2, { opacity: 0.6, fade_in_duration: 0.8 }),
        ],
      }),
    },
    {
      name: 'fonts',
      covers: `text in each shipped font (${FONTS.map((f) => f.family).join(', ')}), regular and bold/italic`,
      frames: [0],
      request: base({
        duration: 1,
        elements: FONTS.flatMap((font, i) => {
          const t = tile(i, 2, 4);
          const style = font.italic ? { font_style: 'italic' } : {};
          return [
            { type: 'text', text: `${font.family} Ag 123`, font_family: font.family, font_size: 15, x: t.x, y: t.y - 10, fill_color: '#f8fafc' },
            { type: 'text', text: 'Quick brown fox', font_family: font.family, font_size: 13, font_weight: 700, ...style, x: t.x, y: t.y + 9, fill_color: '#fde68a' },
          ];
        }),
      }),
    },
    {
      name: 'text-styles',
      covers: 'text: alignment, wrapping box, line height, letter spacing, transforms, stroke, line background, shadow, sizes',
      frames: [0],
      request: base({
        duration: 1,
        elements: [
          { type: 'text', text: 'Left aligned text that wraps in its box', x: 80, y: 35, width: 140, height: 60, font_size: 14, x_alignment: 'left', y_alignment: 'top', line_height: 1.4 },
          { type: 'text', text: 'centred and bottom', x: 240, y: 35, width: 140, height: 60, font_size: 14, x_alignment: 'center', y_alignment: 'bottom', fill_color: '#93c5fd' },
          { type: 'text', text: 'spaced capitals', x: 80, y: 95, font_size: 14, letter_spacing: 3, text_transform: 'uppercase', font_family: 'Montserrat' },
          { type: 'text', text: 'Outlined', x: 240, y: 95, font_size: 26, font_weight: 900, fill_color: '#facc15', stroke_color: '#1d4ed8', stroke_width: 2 },
          { type: 'text', text: 'On a pill', x: 80, y: 150, font_size: 16, background_color: '#dc2626', background_x_padding: 8, background_y_padding: 4, background_border_radius: 8 },
          { type: 'text', text: 'shadow', x: 240, y: 150, font_size: 22, font_family: 'Playfair Display', shadow_color: '#000000', shadow_blur: 4, shadow_x: 2, shadow_y: 2, x_alignment: 'right', width: 120 },
        ],
      }),
    },
    {
      name: 'video-and-audio',
      covers: 'video (trim, speed, fit, fades, volume), speed ramp (playback_rate_keyframes), audio element, audio-reactive group (amplitude)',
      frames: [3, 12],
      request: base({
        duration: 1.5,
        elements: [
          { type: 'video', id: 'plain', source_url: url('clip.mp4'), x: 80, y: 45, width: 150, height: 80, volume: 0.5 },
          { type: 'video', id: 'trimmed', source_url: url('clip.mp4'), in_point: 1, out_point: 3, speed: 2, x: 240, y: 45, width: 150, height: 80, fade_in_duration: 0.5 },
          { type: 'video', id: 'ramped', source_url: url('clip.mp4'), out_point: 3, x: 80, y: 135, width: 150, height: 80, playback_rate_keyframes: [{ time: 0, rate: 0.5 }, { time: 1, rate: 2 }], volume: 0 },
          { type: 'audio', source_url: url('beat.wav'), volume: 1 },
          shape('pulse', '#f97316', 240, 135, 40, 40, { shape: 'ellipse' }),
        ],
        groups: [{ id: 'listen', members: ['pulse'], pivot: { x: 240, y: 135 }, animations: [{ audio: { feature: 'amplitude', scale: 1.5 } }] }],
      }),
    },
    {
      name: 'look-colour',
      covers: 'colour fields on images (brightness, contrast, saturation, exposure, sharpness, blur, noise, vignette, hue_rotate, temperature, tint, vibrance, highlights, shadows, color_overlay), a 3D .cube LUT with intensity',
      frames: [4],
      request: base({
        duration: 1,
        elements: [
          photo(0, 4, 4, { brightness: 40 }),
          photo(1, 4, 4, { contrast: 60 }),
          photo(2, 4, 4, { saturation: -80 }),
          photo(3, 4, 4, { exposure: 30 }),
          photo(4, 4, 4, { sharpness: 80 }),
          photo(5, 4, 4, { blur: 2 }),
          photo(6, 4, 4, { noise: 60 }),
          photo(7, 4, 4, { vignette: 80 }),
          photo(8, 4, 4, { hue_rotate: '120deg' }),
          photo(9, 4, 4, { temperature: 70 }),
          photo(10, 4, 4, { tint: -60 }),
          photo(11, 4, 4, { vibrance: 80 }),
          photo(12, 4, 4, { highlights: -70, shadows: 60 }),
          photo(13, 4, 4, { color_overlay: '#2563eb80' }),
          photo(14, 4, 4, { lut_url: url('warm.cube') }),
          photo(15, 4, 4, { lut_url: url('warm.cube'), lut_intensity: 0.5, saturation: 30 }),
        ],
      }),
    },
    {
      name: 'look-frame-and-compositing',
      covers: `crop, border radius, border, shadow, backdrop blur, clip, masks (${MASK_SHAPES.join(', ')}, feathered, keyframed), track mattes (alpha, luma, inverted), blend modes (${BLEND_MODES.join(', ')})`,
      frames: [6],
      request: base({
        duration: 1,
        background_gradient: { type: 'linear', angle: '90deg', stops: [{ color: '#0f766e', offset: 0 }, { color: '#be185d', offset: 1 }] },
        elements: [
          photo(0, 8, 5, { crop_left: 10, crop_top: '20%' }),
          photo(1, 8, 5, { border_radius: 10, border_color: '#ffffff', border_width: 3 }),
          photo(2, 8, 5, { shadow_color: '#000000', shadow_blur: 6, shadow_x: 3, shadow_y: 3 }),
          shape('stripes', '#ffffff', tile(3, 8, 5).x, tile(3, 8, 5).y, 30, 30, { stroke_color: '#000000', stroke_width: 6 }),
          photo(3, 8, 5, { backdrop_blur: 5, opacity: 0.3, width: 24, height: 24 }),
          photo(4, 8, 5, { clip: true, x_scale: '160%' }),
          ...MASK_SHAPES.map((mask_shape, i) => photo(5 + i, 8, 5, { mask_shape })),
          photo(9, 8, 5, { mask_shape: 'ellipse', mask: { feather: 8 } }),
          photo(10, 8, 5, { mask_shape: 'circle', mask_keyframes: [{ time: 0, scale: '20%' }, { time: 1, scale: '100%', easing: 'cubic_out' }] }),
          { type: 'text', id: 'matte-a', text: 'M', font_size: 36, font_weight: 900, ...xy(tile(11, 8, 5)) },
          photo(11, 8, 5, { matte: { source: 'matte-a' } }),
          shape('matte-l', '#808080', tile(12, 8, 5).x, tile(12, 8, 5).y, 30, 28, { shape: 'ellipse' }),
          photo(12, 8, 5, { matte: { source: 'matte-l', mode: 'luma' } }),
          shape('matte-i', '#ffffff', tile(13, 8, 5).x, tile(13, 8, 5).y, 20, 20),
          photo(13, 8, 5, { matte: { source: 'matte-i', invert: true } }),
          ...BLEND_MODES.flatMap((blend_mode, i) => {
            const t = tile(16 + i, 8, 5);
            return [shape(`under-${blend_mode}`, '#3380cc', t.x, t.y, t.w - 6, t.h - 6), shape(`blend-${blend_mode}`, '#cc664d', t.x + 6, t.y + 4, t.w - 16, t.h - 14, { blend_mode })];
          }),
        ],
      }),
    },
    {
      name: 'effects',
      covers: `every catalog effect (${EFFECTS.join(', ')}) on images, one with a time window`,
      frames: [2, 7],
      request: base({
        duration: 1,
        elements: [
          ...EFFECTS.map((type, i) => photo(i, 4, 4, { effects: [{ type, intensity: 0.8 }] })),
          photo(12, 4, 4, { effects: [{ type: 'grayscale', time: 0.5, duration: 0.5 }, { type: 'blur', intensity: 0.5 }] }),
          { type: 'text', text: 'Glow', font_size: 22, font_weight: 800, fill_color: '#38bdf8', ...xy(tile(13, 4, 4)), effects: [{ type: 'glow' }] },
          shape('shaken', '#ffffff', tile(14, 4, 4).x, tile(14, 4, 4).y, 30, 20, { effects: [{ type: 'shake' }] }),
        ],
      }),
    },
    {
      name: 'motion-presets',
      covers: `every motion preset (${MOTIONS.join(', ')}), reversed, looped and exit motions, easings`,
      frames: [2, 6, 12],
      request: base({
        duration: 1.5,
        elements: [
          ...MOTIONS.map((type, i) => {
            const t = tile(i, 4, 4);
            return shape(`m-${type}`, '#f97316', t.x, t.y, 36, 24, { motion: [{ type, ...(type === 'pan' || type === 'zoom' ? {} : { duration: 1 }) }] });
          }),
          shape('exit', '#22c55e', tile(11, 4, 4).x, tile(11, 4, 4).y, 36, 24, { motion: [{ type: 'slide', time: 'end', reversed: true, direction: 'left', duration: 0.8 }] }),
          shape('looped', '#3b82f6', tile(12, 4, 4).x, tile(12, 4, 4).y, 36, 24, { motion: [{ type: 'pulse', loop: true, duration: 0.4 }] }),
          shape('elastic', '#a855f7', tile(13, 4, 4).x, tile(13, 4, 4).y, 36, 24, { motion: [{ type: 'scale', easing: 'elastic_out', duration: 1.2 }] }),
          shape('spring', '#eab308', tile(14, 4, 4).x, tile(14, 4, 4).y, 36, 24, { motion: [{ type: 'slide', direction: 'down', easing: 'spring' }] }),
          { type: 'image', source_url: url('photo.png'), ...xy(tile(15, 4, 4)), width: 60, height: 34, motion: [{ type: 'zoom' }, { type: 'fade', duration: 0.6 }] },
        ],
      }),
    },
    {
      name: 'keyframes-and-groups',
      covers: 'custom keyframe animations (position, scale, rotation, opacity, per-keyframe easing), groups (pivot, rotation, scale, opacity, nested parent, stack layout, spin, member-scoped animation), a word_pop title — the motion parity check of render-motion, generalised',
      frames: [2, 6, 12],
      request: base({
        duration: 1.5,
        custom_animations: {
          element: [
            { name: 'arc', keyframes: [{ offset: 0, x: -100, y: 40, z_rotation: -90, easing: 'back_out' }, { offset: 1, x: 0, y: 0, z_rotation: 0 }] },
            { name: 'breathe', keyframes: [{ offset: 0, x_scale: '60%', y_scale: '60%', opacity: 0.2 }, { offset: 0.5, x_scale: '120%', y_scale: '90%', opacity: 1, easing: 'ease_in_out' }, { offset: 1, x_scale: '100%', y_scale: '100%' }] },
          ],
        },
        elements: [
          shape('slide', '#f97316', 60, 40, 60, 40, { motion: [{ type: 'slide', direction: 'right', easing: 'cubic_out' }, { type: 'fade', duration: 0.5 }] }),
          shape('arc', '#22c55e', 160, 40, 40, 40, { motion: [{ custom: 'arc', duration: 1.2 }] }),
          shape('breathe', '#38bdf8', 250, 40, 50, 30, { motion: [{ custom: 'breathe', duration: 1.2 }] }),
          shape('g1', '#ffffff', 40, 130, 20, 20),
          shape('g2', '#38bdf8', 80, 130, 20, 20),
          shape('s1', '#ef4444', 0, 0, 16, 30),
          shape('s2', '#eab308', 0, 0, 24, 30),
          shape('s3', '#22c55e', 0, 0, 16, 30),
          shape('n1', '#a855f7', 250, 110, 24, 24),
          shape('n2', '#f472b6', 290, 110, 24, 24),
          { type: 'text', id: 'title', text: 'Words pop in', x: 250, y: 160, font_size: 18, font_weight: 700, animation_preset: 'word_pop' },
        ],
        groups: [
          { id: 'pair', members: ['g1', 'g2'], pivot: { x: 60, y: 130 }, animations: [{ type: 'spin', duration: 1.5, easing: 'linear' }] },
          { id: 'row', layout: { type: 'stack', direction: 'row', gap: 6, origin: { x: 130, y: 115 } }, members: ['s1', 's2', 's3'], animations: [{ type: 'slide', direction: 'up', scope: 'members', spacing: 0.2, duration: 0.6 }] },
          { id: 'inner', members: ['n1', 'n2'], pivot: { x: 270, y: 110 }, rotation_degrees: 20, scale: '80%' },
          { id: 'outer', members: ['n1'], parent: 'inner', opacity: 0.7, translate: { x: 0, y: 10 } },
        ],
      }),
    },
    {
      name: 'text-animations',
      covers: `every built-in text animation (${Object.keys(TEXT_PRESETS).join(', ')}) and custom letter/word/line splits`,
      frames: [4, 10],
      request: base({
        duration: 1.5,
        custom_animations: {
          text: [{ name: 'tumble', split: 'letter', stagger: 0.05, duration: 0.5, keyframes: [{ offset: 0, z_rotation: '90deg', y: '-50%', opacity: 0 }, { offset: 1, z_rotation: '0deg', y: '0%', opacity: 1 }] }],
        },
        elements: [...Object.keys(TEXT_PRESETS), 'tumble'].map((animation_preset, i) => {
          const t = tile(i, 2, 5);
          return { type: 'text', text: animation_preset === 'slide_up_lines' ? 'Two lines\nslide up' : `${animation_preset} text`, animation_preset, font_size: 14, font_weight: 600, x: t.x, y: t.y };
        }),
      }),
    },
    {
      name: 'transitions',
      covers: `every transition (${TRANSITIONS.join(', ')}) between two elements on a track`,
      frames: [6, 9],
      request: base({
        duration: 1.5,
        elements: TRANSITIONS.flatMap((type, i) => {
          const t = tile(i, 4, 4);
          const track = i + 1;
          return [
            { type: 'image', id: `from-${type}`, source_url: url('photo.png'), x: t.x, y: t.y, width: t.w - 6, height: t.h - 6, track, duration: 1 },
            shape(`to-${type}`, '#22c55e', t.x, t.y, t.w - 6, t.h - 6, { track, duration: 0.9 }),
          ];
        }),
        transitions: TRANSITIONS.map((type) => ({ type, from_id: `from-${type}`, to_id: `to-${type}`, duration: 0.6 })),
      }),
    },
    {
      name: 'captions-and-waveforms',
      covers: 'captions from a transcript (pages, highlighted word, highlight box, word reveal, word_pop), waveform bars of an element and a line of the mix',
      // 0.35 s: "hello" highlighted; 0.65 s: "world"; 1.25 s: the second page; 0.15/0.45 s: the beat loud, then quiet.
      frames: [1, 3, 4, 6, 12],
      transcripts: {
        beat: [
          { text: 'hello', start: 0.1, end: 0.5 },
          { text: 'world', start: 0.6, end: 1.0 },
          { text: 'seven', start: 1.2, end: 1.4 },
          { text: 'apples', start: 1.45, end: 1.8 },
        ],
      },
      request: base({
        duration: 1.5,
        elements: [
          { type: 'audio', id: 'beat', source_url: url('beat.wav') },
          { type: 'waveform', source: 'beat', style: 'bars', bar_count: 16, mirror: true, fill_color: '#facc15', x: 80, y: 60, width: 140, height: 90, bar_radius: 2 },
          { type: 'waveform', style: 'line', fill_color: '#38bdf8', stroke_width: 2, x: 240, y: 60, width: 140, height: 90 },
          {
            type: 'text', transcript: { source: 'beat', max_words: 2, highlight_color: '#ef4444' },
            font_family: 'Montserrat', font_size: 20, font_weight: 800, fill_color: '#ffffff', text_transform: 'uppercase', x: 80, y: 140,
          },
          {
            type: 'text', transcript: { source: 'beat', max_words: 3, highlight_color: '#111111', highlight_background: '#facc15', reveal: 'word' },
            animation_preset: 'word_pop', font_size: 16, font_weight: 700, fill_color: '#ffffff', x: 240, y: 140,
          },
        ],
      }),
    },
    {
      name: 'motion-blur',
      covers: 'request-level motion blur over moving shapes and text',
      frames: [3, 7],
      request: base({
        duration: 1,
        motion_blur: { samples: 4, shutter: 0.5 },
        elements: [
          shape('dash', '#ffffff', 60, 50, 30, 30, { motion: [{ type: 'slide', direction: 'right', easing: 'linear' }] }),
          shape('turn', '#f97316', 200, 50, 60, 20, { motion: [{ type: 'spin', easing: 'linear' }] }),
          { type: 'text', text: 'Blurred', x: 160, y: 130, font_size: 28, font_weight: 800, motion: [{ type: 'slide', direction: 'up', easing: 'linear' }] },
        ],
      }),
    },
  ];
}

function xy(t: { x: number; y: number }) {
  return { x: t.x, y: t.y };
}

/** Cases not compared, with the reason (see composition/README.md, "Preview = render"). */
export const CORPUS_EXCLUSIONS: CorpusExclusion[] = [
  {
    feature: 'an <Img> with fit cover from a 160x90 picture in tile 0 of images-and-background (the box [0, 0, 107, 90] is not compared)',
    reason:
      'the server render itself is not repeatable there: runs of the same request drew that tile in two versions ' +
      '(about 1–1.4 % of the frame\'s pixels, up to 154/255 apart along its colour edges), one of them equal to the Player\'s; ' +
      'a 100.67x80 box and a 94.67x50 one both showed it. A raster choice of Chromium on the server, not a preview/render ' +
      'mismatch; cover-fitted images are compared in every other tile.',
  },
];

import { z } from 'zod';
import { CAPTION_DEFAULTS } from '../captions/pages';
import { checkEasing, easingFields } from './easing-fields';
import { REQUEST_LIMITS } from './limits';
import {
  angle, color, fraction, length, nonNegativeLength, percent, point, positiveSeconds, reference, seconds, url,
} from './primitives';
import {
  BLEND_MODES, DIRECTIONS, EASINGS, EFFECTS, FONT_FAMILIES, IMAGE_FITS, MASK_SHAPES, MATTE_MODES,
  MOTIONS, SHAPES, TEXT_TRANSFORMS, WAVEFORM_STYLES, X_ALIGNMENTS, Y_ALIGNMENTS,
} from './vocabulary';

/**
 * Element schemas, built from field groups shared across element types (the video element is the
 * template; Creatomate's names where the interface is silent). Every object is strict.
 */

/** Fill of the word being spoken when `highlight_color` is omitted. */
export const DEFAULT_HIGHLIGHT_COLOR = '#ffd400';

const adjustment = z.number().min(-100).max(100);
const volume = z.union([z.number().min(0).max(2), percent(0, 200)], {
  error: 'Input should be a number from 0 to 2 or a percent string from "0%" to "200%"',
});

const effectSchema = z.strictObject({
  type: z.enum(EFFECTS),
  intensity: fraction.optional(),
  time: seconds.optional().describe('Start in seconds from the element start'),
  duration: positiveSeconds.optional(),
});

const motionTime = z.union([seconds, z.enum(['start', 'end'])], {
  error: 'Input should be seconds from the element start, "start" or "end"',
});

export const motionSchema = z
  .strictObject({
    type: z.enum(MOTIONS).optional(),
    custom: reference.optional().describe('Name of an entry in custom_animations'),
    time: motionTime.optional(),
    duration: positiveSeconds.optional(),
    ...easingFields,
    reversed: z.boolean().optional(),
    direction: z.enum(DIRECTIONS).optional(),
    loop: z.boolean().optional(),
  })
  .superRefine((motion, ctx) => {
    if ((motion.type === undefined) === (motion.custom === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['type'], message: 'Set exactly one of "type" or "custom"', params: { type: 'value_error' } });
    }
    checkEasing(motion, ctx);
  });

const maskKeyframe = z.strictObject({
  time: seconds,
  feather: z.number().min(0).optional(),
  scale: percent(0).optional(),
  center: point.optional(),
  easing: z.enum(EASINGS).optional(),
  spring: z.strictObject({ mass: z.number().gt(0).optional(), stiffness: z.number().gt(0).optional(), damping: z.number().min(0).optional() }).optional(),
  back: z.number().min(0).optional().describe('Overshoot amount'),
  elastic: z.strictObject({ amplitude: z.number().min(0).optional(), period: z.number().gt(0).optional() }).optional(),
  bezier: z.tuple([z.number(), z.number(), z.number(), z.number()]).optional().describe('Cubic bezier control points [x1, y1, x2, y2]'),
});

const identity = {
  id: reference.optional().describe('Referenced by transitions, groups and violations'),
  name: z.string().max(REQUEST_LIMITS.name_length).optional(),
  track: z.int().min(1).max(1000).optional().describe('Elements on one track without "time" play one after another'),
  time: seconds.optional().describe('Start in seconds; omitted: after the previous element on the track, else 0'),
  visible: z.boolean().optional().meta({ default: true }),
};

const fades = {
  fade_in_duration: seconds.optional().describe('Seconds of fade from transparent (and silent) at the start'),
  fade_out_duration: seconds.optional().describe('Seconds of fade to transparent (and silent) at the end'),
};

/** Length of a non-media element. */
const ownDuration = {
  duration: positiveSeconds.optional().describe('Seconds; omitted: until the composition ends'),
};

const mediaTiming = {
  source_url: url,
  in_point: seconds.optional().describe('Source second where the clip starts'),
  out_point: positiveSeconds.optional().describe('Source second where the clip ends; sets the clip length'),
  speed: z.number().gt(0).max(16).optional().meta({ default: 1 }),
  playback_rate_keyframes: z.array(z.strictObject({ time: seconds, rate: z.number().gt(0).max(16) })).max(REQUEST_LIMITS.list_items).optional(),
  volume: volume.optional().meta({ default: 1 }),
};

const layout = {
  x: length.optional().describe('Anchor point, px or percent of the canvas width').meta({ default: '50%' }),
  y: length.optional().describe('Anchor point, px or percent of the canvas height').meta({ default: '50%' }),
  width: nonNegativeLength.optional().describe('px or percent of the canvas width'),
  height: nonNegativeLength.optional().describe('px or percent of the canvas height'),
  aspect_ratio: z.number().gt(0).optional().describe('width / height, used when only one of them is set'),
  x_anchor: length.optional().describe('px or percent of the element width').meta({ default: '50%' }),
  y_anchor: length.optional().describe('px or percent of the element height').meta({ default: '50%' }),
  x_rotation: angle.optional(),
  y_rotation: angle.optional(),
  z_rotation: angle.optional(),
  x_scale: percent().optional().meta({ default: '100%' }),
  y_scale: percent().optional().meta({ default: '100%' }),
  flip_horizontal: z.boolean().optional(),
  flip_vertical: z.boolean().optional(),
  opacity: fraction.optional().meta({ default: 1 }),
  z_index: z.int().min(-10000).max(10000).optional().describe('Higher is in front; ties keep array order').meta({ default: 0 }),
};

const colorGrading = {
  lut_url: url.optional(),
  lut_intensity: z.number().min(0).max(1).optional(),
  brightness: adjustment.optional(),
  contrast: adjustment.optional(),
  saturation: adjustment.optional(),
  exposure: adjustment.optional(),
  sharpness: z.number().min(0).max(100).optional(),
  blur: z.number().min(0).optional().describe('px'),
  noise: z.number().min(0).max(100).optional(),
  vignette: z.number().min(0).max(100).optional(),
  hue_rotate: angle.optional(),
  temperature: adjustment.optional(),
  tint: adjustment.optional(),
  vibrance: adjustment.optional(),
  highlights: adjustment.optional(),
  shadows: adjustment.optional(),
  color_overlay: color.optional(),
};

const shadow = {
  shadow_color: color.optional(),
  shadow_blur: z.number().min(0).optional(),
  shadow_x: z.number().optional(),
  shadow_y: z.number().optional(),
};

const frame = {
  crop_top: nonNegativeLength.optional(),
  crop_bottom: nonNegativeLength.optional(),
  crop_left: nonNegativeLength.optional(),
  crop_right: nonNegativeLength.optional(),
  border_radius: z.number().min(0).optional(),
  border_color: color.optional(),
  border_width: z.number().min(0).optional(),
  ...shadow,
  backdrop_blur: z.number().min(0).optional(),
};

const compositing = {
  blend_mode: z.enum(BLEND_MODES).optional(),
  mask_shape: z.enum(MASK_SHAPES).optional(),
  mask: z.strictObject({ feather: z.number().min(0).optional(), scale: percent(0).optional(), center: point.optional() }).optional(),
  mask_keyframes: z.array(maskKeyframe).max(REQUEST_LIMITS.list_items).optional(),
  matte: z.strictObject({ source: reference.describe('Element id'), mode: z.enum(MATTE_MODES).optional(), invert: z.boolean().optional() }).optional(),
  clip: z.boolean().optional(),
};

const behaviors = {
  effects: z.array(effectSchema).max(REQUEST_LIMITS.list_items).optional(),
  motion: z.array(motionSchema).max(REQUEST_LIMITS.list_items).optional(),
};

/**
 * Auto-ducking: the element's volume drops by `amount_db` while the elements it ducks under are
 * audible (their sound, analysed once per source, not merely their timeline span), or, with
 * "speech", while voice activity is detected in the request's other sound elements.
 */
export const duckSchema = z.strictObject({
  under: z
    .union([z.literal('speech'), z.array(reference).min(1).max(REQUEST_LIMITS.list_items)], {
      error: 'Input should be "speech" or a list of ids of audio/video elements',
    })
    .describe('"speech" (voice detected in the other sound elements) or ids of audio/video elements'),
  amount_db: z.number().gt(0).max(60).optional().describe('How much quieter, dB').meta({ default: 12 }),
  attack: seconds.max(10).optional().describe('Seconds of ramp down, ending where the sound starts (the render looks ahead)').meta({ default: 0.2 }),
  release: seconds.max(10).optional().describe('Seconds of ramp back up, starting where the sound ends').meta({ default: 0.5 }),
});

/** out_point must come after in_point; both are source seconds. */
function checkTrim(media: { in_point?: number; out_point?: number }, ctx: z.RefinementCtx): void {
  if (media.out_point !== undefined && media.out_point <= (media.in_point ?? 0)) {
    ctx.addIssue({ code: 'custom', path: ['out_point'], message: 'out_point must be greater than in_point', params: { type: 'value_error' } });
  }
}

export const videoElementSchema = z
  .strictObject({
    type: z.literal('video'),
    ...identity,
    ...mediaTiming,
    duck: duckSchema.optional(),
    ...fades,
    ...colorGrading,
    ...frame,
    ...compositing,
    ...layout,
    ...behaviors,
  })
  .superRefine(checkTrim);

export const audioElementSchema = z
  .strictObject({ type: z.literal('audio'), ...identity, ...mediaTiming, duck: duckSchema.optional(), ...fades })
  .superRefine(checkTrim);

export const imageElementSchema = z.strictObject({
  type: z.literal('image'),
  ...identity,
  ...ownDuration,
  ...fades,
  source_url: url,
  fit: z.enum(IMAGE_FITS).optional().meta({ default: 'cover' }),
  ...colorGrading,
  ...frame,
  ...compositing,
  ...layout,
  ...behaviors,
});

/** Captions: the words of speech instead of `text`, drawn page by page as they are spoken. */
export const transcriptSchema = z.strictObject({
  source: reference.describe(
    'Id of a video or audio element of this request (its speech is transcribed when the render runs, once per source URL per workspace) or the id of a completed transcribe task of the workspace (its word times count from this element\'s start)',
  ),
  max_words: z.int().min(1).max(50).optional().describe('Words per caption line').meta({ default: CAPTION_DEFAULTS.maxWords }),
  max_chars: z.int().min(1).max(500).optional().describe('Characters per caption line (a longer single word keeps its own line)').meta({ default: CAPTION_DEFAULTS.maxChars }),
  max_lines: z.int().min(1).max(10).optional().describe('Lines on screen at once').meta({ default: CAPTION_DEFAULTS.maxLines }),
  highlight_color: color.optional().describe('Fill of the word being spoken').meta({ default: DEFAULT_HIGHLIGHT_COLOR }),
  highlight_background: color.optional().describe('Rounded box behind the word being spoken; omitted: none'),
  reveal: z.enum(['page', 'word']).optional().describe('page: a caption shows its words at once; word: each word appears as it is spoken').meta({ default: 'page' }),
});

export const textElementSchema = z.strictObject({
  type: z.literal('text'),
  ...identity,
  ...ownDuration,
  ...fades,
  text: z.string().max(REQUEST_LIMITS.text_length).optional().describe('Required unless transcript is set'),
  transcript: transcriptSchema.optional().describe('Captions from speech instead of text; every text style applies, animation_preset plays on each caption'),
  font_family: z.string().min(1).max(100).optional()
    .describe('A shipped family, any Google Fonts family by its name ("Lobster", "Noto Sans JP"; the list: font_catalogue.families of GET /v1/capabilities), or a family of the request\'s fonts')
    .meta({ default: 'Inter', examples: [...FONT_FAMILIES] }),
  font_size: z.union([z.number().gt(0).max(2000), z.literal('auto')], { error: 'Input should be a size in px (> 0, at most 2000) or "auto"' })
    .optional().describe('px, or "auto": the largest size between min_font_size and max_font_size at which the wrapped text fits its box (width and height set); default: canvas height / 20'),
  min_font_size: z.number().gt(0).max(2000).optional().describe('px; the smallest size font_size "auto" may choose').meta({ default: 8 }),
  max_font_size: z.number().gt(0).max(2000).optional().describe('px; the largest size font_size "auto" may choose; default: the box height'),
  font_weight: z.int().min(100).max(900).multipleOf(100).optional().meta({ default: 400 }),
  font_style: z.enum(['normal', 'italic']).optional().meta({ default: 'normal' }),
  fill_color: color.optional().meta({ default: '#ffffff' }),
  x_alignment: z.enum(X_ALIGNMENTS).optional().meta({ default: 'left' }),
  y_alignment: z.enum(Y_ALIGNMENTS).optional().meta({ default: 'top' }),
  line_height: z.union([z.number().gt(0), percent(0)], { error: 'Input should be a multiple of the font size (1.2) or a percent string ("120%")' })
    .optional().describe('Multiple of the font size').meta({ default: 1.2 }),
  letter_spacing: length.optional().describe('px or percent of the font size').meta({ default: 0 }),
  text_transform: z.enum(TEXT_TRANSFORMS).optional(),
  text_wrap: z.boolean().optional().describe('Wrap lines at the box width').meta({ default: true }),
  stroke_color: color.optional(),
  stroke_width: z.number().min(0).optional().describe('px, drawn outside the glyphs'),
  background_color: color.optional().describe('Drawn behind each line of text'),
  background_x_padding: z.number().min(0).optional().describe('px'),
  background_y_padding: z.number().min(0).optional().describe('px'),
  background_border_radius: z.number().min(0).optional().describe('px'),
  animation_preset: reference.optional().describe('Name of a text entry in custom_animations'),
  ...shadow,
  ...compositing,
  ...layout,
  width: nonNegativeLength.optional().describe('px or percent of the canvas width; omitted: fits the text'),
  height: nonNegativeLength.optional().describe('px or percent of the canvas height; omitted: fits the text'),
  ...behaviors,
}).superRefine((text, ctx) => {
  if (text.font_size === 'auto' && (text.width === undefined || text.height === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['font_size'], message: 'font_size "auto" fits the text to its box: set width and height', params: { type: 'value_error' } });
  }
  if (text.min_font_size !== undefined && text.max_font_size !== undefined && text.min_font_size > text.max_font_size) {
    ctx.addIssue({ code: 'custom', path: ['min_font_size'], message: `min_font_size (${text.min_font_size}) is above max_font_size (${text.max_font_size})`, params: { type: 'value_error' } });
  }
  if ((text.text === undefined) === (text.transcript === undefined)) {
    const both = text.text !== undefined;
    ctx.addIssue({
      code: 'custom',
      path: [both ? 'transcript' : 'text'],
      message: both ? 'Set either "text" or "transcript", not both' : 'A text element needs "text" (or "transcript" for captions from speech)',
      params: { type: both ? 'value_error' : 'missing' },
    });
  }
});

export const shapeElementSchema = z.strictObject({
  type: z.literal('shape'),
  ...identity,
  ...ownDuration,
  ...fades,
  shape: z.enum(SHAPES).optional().meta({ default: 'rectangle' }),
  fill_color: color.optional().meta({ default: '#ffffff' }),
  stroke_color: color.optional(),
  stroke_width: z.number().min(0).optional().describe('px, drawn inside the shape box'),
  border_radius: z.number().min(0).optional().describe('px, rectangles only'),
  ...shadow,
  ...compositing,
  ...layout,
  ...behaviors,
});

/** An audiogram: bars (or a line) that follow the spectrum of a sound element or of the whole mix. */
export const waveformElementSchema = z.strictObject({
  type: z.literal('waveform'),
  ...identity,
  ...ownDuration,
  ...fades,
  source: reference.optional().describe('Id of the audio/video element to show; omitted: the mix of every sound element'),
  style: z.enum(WAVEFORM_STYLES).optional().meta({ default: 'bars' }),
  fill_color: color.optional().meta({ default: '#ffffff' }),
  bar_count: z.int().min(2).max(256).optional().describe('Frequency bands, low on the left (log-spaced 50 Hz–12 kHz)').meta({ default: 32 }),
  bar_gap: z.number().min(0).max(0.9).optional().describe('Share of each band slot left empty').meta({ default: 0.3 }),
  bar_radius: z.number().min(0).optional().describe('px, bars only').meta({ default: 0 }),
  mirror: z.boolean().optional().describe('Grow from the middle both ways instead of up from the bottom').meta({ default: false }),
  smoothing: fraction.optional().describe('0: each frame on its own; towards 1: levels fall back more slowly').meta({ default: 0.5 }),
  stroke_width: z.number().gt(0).optional().describe('px, line style only').meta({ default: 3 }),
  ...shadow,
  ...compositing,
  ...layout,
  ...behaviors,
});

export const ELEMENT_SCHEMAS = {
  video: videoElementSchema,
  audio: audioElementSchema,
  text: textElementSchema,
  image: imageElementSchema,
  shape: shapeElementSchema,
  waveform: waveformElementSchema,
} as const;

export const elementSchema = z.discriminatedUnion('type', [
  videoElementSchema,
  audioElementSchema,
  textElementSchema,
  imageElementSchema,
  shapeElementSchema,
  waveformElementSchema,
]);

export type VideoElement = z.infer<typeof videoElementSchema>;
export type AudioElement = z.infer<typeof audioElementSchema>;
export type TextElement = z.infer<typeof textElementSchema>;
export type Transcript = z.infer<typeof transcriptSchema>;
export type ImageElement = z.infer<typeof imageElementSchema>;
export type ShapeElement = z.infer<typeof shapeElementSchema>;
export type WaveformElement = z.infer<typeof waveformElementSchema>;
export type Duck = z.infer<typeof duckSchema>;
export type Element = z.infer<typeof elementSchema>;
export type VisualElement = VideoElement | TextElement | ImageElement | ShapeElement | WaveformElement;

/**
 * The closed vocabularies of the render request: enum values that the schema accepts and the
 * capabilities catalog lists. Kept apart from the zod schema so the catalog can describe them.
 */

export const ELEMENT_TYPES = ['video', 'audio', 'text', 'image', 'shape', 'waveform'] as const;
export type ElementType = (typeof ELEMENT_TYPES)[number];

export const WAVEFORM_STYLES = ['bars', 'line'] as const;

/** Formats with a sound track (the ones `audio_normalize` applies to). */
export const AUDIO_FORMATS = ['mp4', 'webm', 'mov'] as const;

export const OUTPUT_FORMATS = ['mp4', 'webm', 'mov', 'gif', 'png', 'jpg'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Formats that can carry an alpha channel (`alpha: true`). */
export const ALPHA_FORMATS: readonly OutputFormat[] = ['webm', 'mov'];

export const FORMAT_DESCRIPTIONS: Record<OutputFormat, string> = {
  mp4: 'H.264 video + AAC audio',
  webm: 'VP9 video + Opus audio; real alpha channel with alpha: true',
  mov: 'ProRes 4444 with alpha when alpha: true, else H.264',
  gif: 'animated GIF, no audio',
  png: 'a still: one frame',
  jpg: 'a still: one frame',
};

/**
 * Fonts the service ships (bundled @fontsource packages, rendered offline). `weights` are the
 * faces present; any other weight falls back to the nearest one by CSS font matching.
 */
export const FONTS = [
  { family: 'Inter', weights: [100, 200, 300, 400, 500, 600, 700, 800, 900], italic: true },
  { family: 'Roboto', weights: [100, 200, 300, 400, 500, 600, 700, 800, 900], italic: true },
  { family: 'Open Sans', weights: [300, 400, 500, 600, 700, 800], italic: true },
  { family: 'Montserrat', weights: [100, 200, 300, 400, 500, 600, 700, 800, 900], italic: true },
  { family: 'Lato', weights: [100, 300, 400, 700, 900], italic: true },
  { family: 'Playfair Display', weights: [400, 500, 600, 700, 800, 900], italic: true },
  { family: 'Oswald', weights: [200, 300, 400, 500, 600, 700], italic: false },
  { family: 'Roboto Mono', weights: [100, 200, 300, 400, 500, 600, 700], italic: true },
] as const;
export const FONT_FAMILIES = FONTS.map((font) => font.family) as [FontFamily, ...FontFamily[]];
export type FontFamily = (typeof FONTS)[number]['family'];

export const SHAPES = ['rectangle', 'ellipse'] as const;
export const IMAGE_FITS = ['cover', 'contain', 'fill'] as const;
export const X_ALIGNMENTS = ['left', 'center', 'right'] as const;
export const Y_ALIGNMENTS = ['top', 'center', 'bottom'] as const;
export const TEXT_TRANSFORMS = ['none', 'uppercase', 'lowercase', 'capitalize'] as const;

export const EFFECTS = [
  'blur', 'grayscale', 'sepia', 'invert', 'pixelate', 'vignette', 'film_grain', 'glitch',
  'chromatic_aberration', 'vhs', 'glow', 'shake',
] as const;

export const MOTIONS = [
  'fade', 'slide', 'scale', 'spin', 'wiggle', 'bounce', 'pan', 'zoom', 'wipe', 'shake', 'pulse',
] as const;

export const TRANSITIONS = [
  'cross_dissolve', 'fade_to_black', 'fade_to_white', 'wipe_left', 'wipe_right', 'wipe_up',
  'wipe_down', 'slide_left', 'slide_right', 'slide_up', 'slide_down', 'zoom', 'circle_open',
] as const;

/** The CSS mix-blend-mode names, in snake_case. */
export const BLEND_MODES = [
  'normal', 'multiply', 'screen', 'overlay', 'darken', 'lighten', 'color_dodge', 'color_burn',
  'hard_light', 'soft_light', 'difference', 'exclusion', 'hue', 'saturation', 'color', 'luminosity',
] as const;

export const EASINGS = [
  'linear', 'ease_in', 'ease_out', 'ease_in_out', 'quadratic_in', 'quadratic_out',
  'quadratic_in_out', 'cubic_in', 'cubic_out', 'cubic_in_out', 'back_in', 'back_out',
  'back_in_out', 'elastic_in', 'elastic_out', 'bounce_in', 'bounce_out', 'spring',
] as const;

export const MASK_SHAPES = ['rectangle', 'rounded_rectangle', 'ellipse', 'circle'] as const;
export const MATTE_MODES = ['alpha', 'luma'] as const;
export const DIRECTIONS = ['left', 'right', 'up', 'down'] as const;
export const AUDIO_FEATURES = ['amplitude', 'bass', 'mid', 'treble'] as const;

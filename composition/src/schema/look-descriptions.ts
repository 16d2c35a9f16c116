import type { EFFECTS } from './vocabulary';

/** What each catalog effect draws at `intensity` 1 (composition/src/look/effects.tsx). */
export const EFFECT_DESCRIPTIONS: Record<(typeof EFFECTS)[number], string> = {
  blur: 'Gaussian blur; radius 2 % of the canvas height × intensity',
  grayscale: 'towards grey (R = G = B at intensity 1)',
  sepia: 'towards sepia tones',
  invert: 'colours inverted (255 − value at intensity 1)',
  pixelate: 'square blocks of 5 % of the canvas height × intensity, one colour each',
  vignette: 'darker towards the corners (down to 15 % brightness at intensity 1)',
  film_grain: 'seeded monochrome grain, new every frame',
  glitch: 'seeded jolts every frame, some hard: horizontal bands slide sideways and the colour channels split',
  chromatic_aberration: 'red shifted right and blue left by 0.6 % of the canvas height × intensity',
  vhs: 'colour bleed, horizontal softness, scanlines, seeded noise and slightly faded colour',
  glow: 'a blurred, brightened copy of the element added around and over it',
  shake: 'seeded camera shake: up to 1.5 % of the canvas height and 0.6° each frame',
};

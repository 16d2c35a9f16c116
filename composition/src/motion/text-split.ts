import type { TextElement } from '../schema/elements';
import type { RenderRequest } from '../schema/request';
import type { EasingSpec } from './easing';
import { resolveKeyframes, type KeyframeInput, type ResolvedKeyframe } from './keyframes';

/**
 * Text animation: the text split into letters (grapheme clusters, so emoji and combining marks
 * stay whole), words (runs between white space) or lines (as wrapped on screen), each part
 * playing the same keyframes `stagger` seconds after the one before it (in reading order, so
 * right-to-left text starts at its right). Chosen by `animation_preset` (a built-in preset or a
 * `custom_animations.text` entry) or by `motion[].custom` naming a text entry.
 */

export type SplitUnit = 'letter' | 'word' | 'line';

export interface TextAnimationDefinition {
  split: SplitUnit;
  stagger: number;
  duration: number;
  keyframes: KeyframeInput[];
  description?: string;
}

export interface TextAnimation {
  split: SplitUnit;
  stagger: number;
  /** Seconds one part takes. */
  duration: number;
  keyframes: ResolvedKeyframe[];
  /** Seconds from the element start where the first part starts. */
  start: number;
  easing: EasingSpec;
  backwards: boolean;
  loop: boolean;
  /** Played so that the last part finishes as the element ends (`time: "end"`). */
  atEnd: boolean;
}

/** The built-in text presets (`text_animations` catalog). */
export const TEXT_PRESETS: Record<string, TextAnimationDefinition> = {
  typewriter: {
    split: 'letter', stagger: 0.05, duration: 0.001,
    keyframes: [{ offset: 0, opacity: 0 }, { offset: 1, opacity: 1 }],
    description: 'letters appear one by one, 20 a second',
  },
  fade_letters: {
    split: 'letter', stagger: 0.04, duration: 0.4,
    keyframes: [{ offset: 0, opacity: 0 }, { offset: 1, opacity: 1 }],
    description: 'letters fade in one after another',
  },
  word_pop: {
    split: 'word', stagger: 0.12, duration: 0.4,
    keyframes: [
      { offset: 0, x_scale: '0%', y_scale: '0%', opacity: 0, easing: 'back_out' },
      { offset: 1, x_scale: '100%', y_scale: '100%', opacity: 1 },
    ],
    description: 'words pop in from nothing, overshooting a little',
  },
  rise_words: {
    split: 'word', stagger: 0.1, duration: 0.5,
    keyframes: [{ offset: 0, y: '60%', opacity: 0, easing: 'cubic_out' }, { offset: 1, y: '0%', opacity: 1 }],
    description: 'words rise into place and fade in',
  },
  slide_up_lines: {
    split: 'line', stagger: 0.15, duration: 0.5,
    keyframes: [{ offset: 0, y: '100%', opacity: 0, easing: 'cubic_out' }, { offset: 1, y: '0%', opacity: 1 }],
    description: 'lines slide up into place one after another',
  },
  drop_letters: {
    split: 'letter', stagger: 0.03, duration: 0.6,
    keyframes: [{ offset: 0, y: '-120%', opacity: 0, easing: 'bounce_out' }, { offset: 0.3, opacity: 1 }, { offset: 1, y: '0%' }],
    description: 'letters drop from above and bounce',
  },
};

type TextEntry = NonNullable<NonNullable<RenderRequest['custom_animations']>['text']>[number];

const DEFAULT_PART_SECONDS = 0.5;
const DEFAULT_STAGGER = 0.05;

/** The text animation of a text element, or null. */
export function resolveTextAnimation(element: TextElement, customs: ReadonlyMap<string, TextEntry>): TextAnimation | null {
  const byName = (name: string): TextAnimationDefinition | undefined => {
    const entry = customs.get(name);
    if (entry) return { split: entry.split, stagger: entry.stagger ?? DEFAULT_STAGGER, duration: entry.duration ?? DEFAULT_PART_SECONDS, keyframes: entry.keyframes };
    return TEXT_PRESETS[name];
  };
  const motion = element.motion?.find((candidate) => candidate.custom !== undefined && customs.has(candidate.custom));
  const definition = motion ? byName(motion.custom!) : element.animation_preset ? byName(element.animation_preset) : undefined;
  if (!definition) return null;
  const duration = motion?.duration ?? definition.duration;
  const { easing, spring, back, elastic, bezier } = motion ?? {};
  return {
    split: definition.split,
    stagger: definition.stagger,
    duration,
    keyframes: resolveKeyframes(definition.keyframes),
    start: typeof motion?.time === 'number' ? motion.time : 0,
    easing: { easing, spring, back, elastic, bezier },
    backwards: motion?.reversed ?? false,
    loop: motion?.loop ?? false,
    atEnd: motion?.time === 'end',
  };
}

/** Seconds from the element start where part `index` of `count` starts. */
export function partStart(animation: Pick<TextAnimation, 'start' | 'stagger' | 'duration' | 'atEnd'>, index: number, count: number, elementSeconds: number): number {
  if (animation.atEnd) return elementSeconds - (animation.duration + (count - 1) * animation.stagger) + index * animation.stagger;
  return animation.start + index * animation.stagger;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** User-perceived characters: a flag, a family emoji or an e with a combining accent stays whole. */
export function splitGraphemes(text: string): string[] {
  return Array.from(graphemes.segment(text), (segment) => segment.segment);
}

/** Words and the white space between them, in order (white space kept so wrapping is unchanged). */
export function splitWords(text: string): { text: string; space: boolean }[] {
  return (text.match(/\s+|[^\s]+/g) ?? []).map((part) => ({ text: part, space: /^\s/.test(part) }));
}

const RTL_STRONG = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10bff}\u{1e800}-\u{1ebff}]/u;
// Letters of the left-to-right scripts (combining marks are not strongly directional).
const LTR_STRONG =
  /(?=\p{L})[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Armenian}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Thai}\p{Script=Lao}\p{Script=Tibetan}\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;

/** The direction of the first strongly directional character (Unicode bidi, simplified). */
export function textDirection(text: string): 'ltr' | 'rtl' {
  for (const character of text) {
    if (RTL_STRONG.test(character)) return 'rtl';
    if (LTR_STRONG.test(character)) return 'ltr';
  }
  return 'ltr';
}

/** Scripts whose letters join their neighbours (Arabic, Syriac, N'Ko, Mongolian…). */
const JOINING = /[\u0600-\u06ff\u0700-\u074f\u0750-\u077f\u07c0-\u07ff\u0860-\u08ff\u1800-\u18af\ufb50-\ufdff\ufe70-\ufeff]/;

/**
 * A letter of a word drawn in its own box, with zero-width joiners towards neighbours of a
 * joining script, so Arabic letters keep the shapes they have inside the word.
 */
export function joinedLetter(letters: readonly string[], index: number): string {
  const joins = (letter: string | undefined) => letter !== undefined && JOINING.test(letter);
  const here = letters[index];
  if (!joins(here)) return here;
  return `${joins(letters[index - 1]) ? '\u200d' : ''}${here}${joins(letters[index + 1]) ? '\u200d' : ''}`;
}

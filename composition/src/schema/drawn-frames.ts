import { partStart, splitGraphemes, splitWords } from '../motion/text-split';
import type { RenderRequest } from './request';
import { secondsToFrames, type ResolvedElement, type ResolvedRequest } from './resolve';

/**
 * Which frames of a render the browser has to draw: a frame whose drawn content is identical to
 * the frame before it (same elements on screen, nothing moving, no video, nothing that changes
 * with time) is "held" — the encoder repeats the previous picture. Pure, so it can be tested and
 * the worker can decide the render path before opening the page.
 *
 * Conservative by construction: anything not known to stand still (video, group animations, looping
 * text animations, effects, masks keyframes, mattes, per-frame noise, motion blur) counts as changing
 * on every frame it is visible; fades, motions, text animations and transitions one frame beyond
 * their windows.
 */
export interface DrawnFrames {
  /** Frames to draw, ascending; always starts at 0. */
  frames: number[];
  /** For each drawn frame, how many output frames show it (itself plus the held ones). */
  holds: number[];
  durationInFrames: number;
}

export function drawnFrames(request: RenderRequest, resolved: ResolvedRequest): DrawnFrames {
  const total = resolved.durationInFrames;
  const changes = new Uint8Array(total);
  changes[0] = 1;
  const mark = (from: number, to: number) => {
    for (let frame = Math.max(0, Math.floor(from)); frame <= Math.min(total - 1, Math.ceil(to)); frame++) changes[frame] = 1;
  };
  if (request.motion_blur) mark(0, total - 1);
  const fps = resolved.fps;
  for (const element of resolved.elements) {
    if (element.type === 'audio') continue; // heard, not drawn
    const end = element.from + element.durationInFrames;
    mark(element.from, element.from);
    mark(end, end);
    if (changesThroughout(element, request)) {
      mark(element.from, end);
      continue;
    }
    if (element.fadeInFrames > 0) mark(element.from, element.from + element.fadeInFrames + 1);
    if (element.fadeOutFrames > 0) mark(end - element.fadeOutFrames - 1, end);
    const text = textAnimationWindow(element);
    if (text) mark(element.from + Math.floor(text.start * fps) - 1, element.from + Math.ceil(text.end * fps) + 1);
    for (const motion of element.animation?.motions ?? []) {
      const start = element.from + secondsToFrames(motion.start, fps);
      mark(start - 1, start + secondsToFrames(motion.duration, fps) + 1);
    }
    for (const transition of element.animation?.transitions ?? []) {
      mark(secondsToFrames(transition.window.start, fps) - 1, secondsToFrames(transition.window.end, fps) + 1);
    }
  }
  for (const transition of resolved.transitions) {
    mark(secondsToFrames(transition.window.start, fps) - 1, secondsToFrames(transition.window.end, fps) + 1);
  }
  const frames: number[] = [];
  const holds: number[] = [];
  for (let frame = 0; frame < total; frame++) {
    if (changes[frame]) {
      frames.push(frame);
      holds.push(1);
    } else holds[holds.length - 1]++;
  }
  return { frames, holds, durationInFrames: total };
}

const STILL_ELEMENT_TYPES: ReadonlySet<string> = new Set(['image', 'shape', 'text']);

/** Whether an element may look different on every frame it is visible. */
export function changesThroughout(element: Exclude<ResolvedElement, { type: 'audio' }>, request: RenderRequest): boolean {
  // Only element types known to draw the same picture on every frame may be held; a new type
  // (a waveform follows the sound) changes until it is listed here.
  if (!STILL_ELEMENT_TYPES.has(element.type)) return true;
  const source = request.elements?.[element.index];
  if (!source || (source.type !== 'image' && source.type !== 'shape' && source.type !== 'text')) return true;
  if (source.type === 'text' && source.transcript) return true; // captions follow the words
  const animation = element.animation;
  if (animation?.groups) return true;
  if (animation?.text && !textAnimationWindow(element)) return true;
  if (animation?.motions.some((motion) => motion.loop)) return true;
  if (source.effects?.length || source.mask_keyframes?.length || source.matte) return true;
  if ('noise' in source && (source.noise ?? 0) > 0) return true;
  return false;
}

/**
 * Seconds from the element's start within which its text animation changes anything (the parts'
 * windows from the first one's start to the last one's end); before it every part shows the first
 * keyframe, after it the last. null: no text animation, or one that never settles (a loop).
 * Lines are counted by the page as laid out: at most the words, so both counts bound the window.
 */
export function textAnimationWindow(element: Exclude<ResolvedElement, { type: 'audio' }>): { start: number; end: number } | null {
  const animation = element.animation?.text;
  if (element.type !== 'text' || !animation || animation.loop) return null;
  const words = splitWords(element.text).filter((word) => !word.space);
  // Capitalised letters are split after the transform: ß becomes two.
  const letters = (text: string) => splitGraphemes(text).length;
  const counts =
    animation.split === 'letter'
      ? [words.reduce((sum, word) => sum + Math.max(letters(word.text), letters(word.text.toUpperCase())), 0)]
      : animation.split === 'word'
        ? [words.length]
        : [1, Math.max(1, words.length)];
  // As the page computes it (AnimatedText): the element's frames over the rate.
  const elementSeconds = element.durationSeconds;
  let start = Infinity;
  let end = -Infinity;
  for (const count of counts) {
    for (const part of [0, Math.max(0, count - 1)]) {
      const at = partStart(animation, part, Math.max(1, count), elementSeconds);
      start = Math.min(start, at);
      end = Math.max(end, at + animation.duration);
    }
  }
  return { start, end };
}

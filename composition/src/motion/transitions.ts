import type { RenderRequest } from '../schema/request';
import type { TRANSITIONS } from '../schema/vocabulary';
import { easingFunction } from './easing';
import { REST, state, type MotionState } from './state';

/**
 * Transitions between two elements (`transitions[]`).
 *
 * Timing: a transition takes the last `duration` seconds (default 0.5) of `from`, and `to` must
 * already show then. When `to` follows `from` on the same `track` without a `time` of its own,
 * the track starts it `duration` before `from` ends, so the two overlap as the transition needs
 * and everything after them on the track (and an inferred composition duration) moves `duration`
 * earlier — the way video editors and Remotion's TransitionSeries count. With explicit times,
 * the window is the part of those last `duration` seconds where both show; elements that do not
 * overlap get a TRANSITION_ELEMENTS_APART violation and cut without a transition.
 *
 * Drawing: `to` draws directly in front of `from` while the transition runs, at the front-most
 * place of the two (or, with `z_index`, where an element of that z_index would). Progress is
 * linear, slides and zoom ease in and out.
 */

export type TransitionName = (typeof TRANSITIONS)[number];
export const DEFAULT_TRANSITION_SECONDS = 0.5;

export const TRANSITION_DESCRIPTIONS: Record<TransitionName, string> = {
  cross_dissolve: 'to fades in over from',
  fade_to_black: 'the picture dips to black at the middle, from before it, to after',
  fade_to_white: 'the picture dips to white at the middle, from before it, to after',
  wipe_left: 'to is revealed by an edge travelling left',
  wipe_right: 'to is revealed by an edge travelling right',
  wipe_up: 'to is revealed by an edge travelling up',
  wipe_down: 'to is revealed by an edge travelling down',
  slide_left: 'to pushes from out to the left, entering from the right',
  slide_right: 'to pushes from out to the right, entering from the left',
  slide_up: 'to pushes from out upwards, entering from below',
  slide_down: 'to pushes from out downwards, entering from above',
  zoom: 'to zooms in from 130 % while fading in over from',
  circle_open: 'to is revealed by a circle growing from its centre',
};

/** How much the track starts `to` earlier, keyed by the index of `to`: transitions' durations. */
export function trackOverlaps(request: RenderRequest): Map<number, { fromIndex: number; seconds: number }> {
  const elements = request.elements ?? [];
  const indexById = new Map<string, number>();
  elements.forEach((element, index) => {
    if (element.id !== undefined && !indexById.has(element.id)) indexById.set(element.id, index);
  });
  const overlaps = new Map<number, { fromIndex: number; seconds: number }>();
  for (const transition of request.transitions ?? []) {
    const fromIndex = indexById.get(transition.from_id);
    const toIndex = indexById.get(transition.to_id);
    if (fromIndex === undefined || toIndex === undefined || fromIndex === toIndex) continue;
    overlaps.set(toIndex, { fromIndex, seconds: transition.duration ?? DEFAULT_TRANSITION_SECONDS });
  }
  return overlaps;
}

export interface TransitionWindow {
  /** Composition seconds. */
  start: number;
  end: number;
}

/**
 * Where a transition runs, from the two elements' spans (composition seconds), or null when they
 * do not overlap.
 */
export function transitionWindow(from: TransitionWindow, to: TransitionWindow, seconds: number): TransitionWindow | null {
  const start = Math.max(from.end - seconds, to.start, from.start);
  const end = Math.min(from.end, to.end);
  return end - start > 1e-6 ? { start, end } : null;
}

/** 0..1 through the window at composition time `seconds`. */
export function transitionProgress(window: TransitionWindow, seconds: number): number {
  return Math.min(1, Math.max(0, (seconds - window.start) / (window.end - window.start)));
}

const easeInOut = easingFunction('ease_in_out');

/**
 * What the transition does to `from` (role "from") or `to` (role "to") at `progress`; canvas
 * size for slides. Offsets are in canvas pixels.
 */
export function transitionState(type: TransitionName, role: 'from' | 'to', progress: number, canvas: { width: number; height: number }): MotionState {
  const p = progress;
  const hidden = 1 - p;
  switch (type) {
    case 'cross_dissolve':
      return role === 'to' ? state({ opacity: p }) : REST;
    case 'fade_to_black':
    case 'fade_to_white':
      // The dip itself is the overlay (overlayOpacity); each side shows only in its half.
      return state({ opacity: (role === 'from') === p < 0.5 ? 1 : 0 });
    case 'wipe_left':
      return role === 'to' ? state({ inset: { top: 0, right: 0, bottom: 0, left: hidden } }) : REST;
    case 'wipe_right':
      return role === 'to' ? state({ inset: { top: 0, right: hidden, bottom: 0, left: 0 } }) : REST;
    case 'wipe_up':
      return role === 'to' ? state({ inset: { top: hidden, right: 0, bottom: 0, left: 0 } }) : REST;
    case 'wipe_down':
      return role === 'to' ? state({ inset: { top: 0, right: 0, bottom: hidden, left: 0 } }) : REST;
    case 'slide_left':
    case 'slide_right':
    case 'slide_up':
    case 'slide_down': {
      const eased = easeInOut(p);
      const horizontal = type === 'slide_left' || type === 'slide_right';
      const sign = type === 'slide_left' || type === 'slide_up' ? -1 : 1;
      const size = horizontal ? canvas.width : canvas.height;
      const offset = role === 'from' ? sign * size * eased : -sign * size * (1 - eased);
      return horizontal ? state({ x: { px: offset, percent: 0 } }) : state({ y: { px: offset, percent: 0 } });
    }
    case 'zoom': {
      if (role === 'from') return REST;
      const eased = easeInOut(p);
      const scale = 1.3 - 0.3 * eased;
      return state({ scaleX: scale, scaleY: scale, opacity: eased });
    }
    case 'circle_open':
      return role === 'to' ? state({ circle: p }) : REST;
  }
}

/** Opacity of the black or white picture a dip shows at `progress`, peaking at the middle. */
export function overlayOpacity(type: TransitionName, progress: number): number {
  if (type !== 'fade_to_black' && type !== 'fade_to_white') return 0;
  return 1 - Math.abs(2 * progress - 1);
}

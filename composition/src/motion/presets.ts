import type { DIRECTIONS, MOTIONS } from '../schema/vocabulary';
import type { EasingName } from './easing';
import { state, type MotionState } from './state';

/**
 * The motion presets of the `motions` catalog as pure functions of progress.
 *
 * Three kinds:
 * - `entry` presets (fade, slide, scale, spin, bounce, wipe) move the element from an "away"
 *   state (progress 0) to where it rests (progress 1). Played at the element's end they exit:
 *   the same motion backwards, travelling in `direction`.
 * - `continuous` presets (pan, zoom) drift across their whole duration (by default the rest of
 *   the element's life): pan moves the element 10 % of its size in `direction`, zoom scales it
 *   from 100 % to 120 %.
 * - `cycle` presets (wiggle, shake, pulse) start and end at rest and repeat naturally with `loop`.
 */

export type MotionName = (typeof MOTIONS)[number];
export type Direction = (typeof DIRECTIONS)[number];
export type PresetKind = 'entry' | 'continuous' | 'cycle';

export interface PresetDefinition {
  kind: PresetKind;
  easing: EasingName;
  /** Seconds; null: until the element ends. */
  seconds: number | null;
  direction: Direction | null;
  description: string;
}

export const PRESETS: Record<MotionName, PresetDefinition> = {
  fade: { kind: 'entry', easing: 'linear', seconds: 1, direction: null, description: 'opacity 0 → 1' },
  slide: { kind: 'entry', easing: 'cubic_out', seconds: 1, direction: 'up', description: 'travels its own width or height in `direction` into place' },
  scale: { kind: 'entry', easing: 'cubic_out', seconds: 1, direction: null, description: 'grows from 0 to its size about its anchor' },
  spin: { kind: 'entry', easing: 'cubic_out', seconds: 1, direction: 'right', description: 'one turn into place; right = clockwise, left = counter-clockwise' },
  bounce: { kind: 'entry', easing: 'bounce_out', seconds: 1, direction: 'down', description: 'drops its own height in `direction` and bounces to rest' },
  wipe: { kind: 'entry', easing: 'linear', seconds: 1, direction: 'right', description: 'revealed by an edge travelling in `direction`' },
  pan: { kind: 'continuous', easing: 'linear', seconds: null, direction: 'left', description: 'drifts 10 % of its size in `direction`' },
  zoom: { kind: 'continuous', easing: 'linear', seconds: null, direction: null, description: 'scales from 100 % to 120 % (reversed: 120 % to 100 %)' },
  wiggle: { kind: 'cycle', easing: 'linear', seconds: 1, direction: null, description: 'rocks ±8° three times' },
  shake: { kind: 'cycle', easing: 'linear', seconds: 0.5, direction: 'right', description: 'jolts ±3 % of its size, horizontally (left/right) or vertically (up/down), ten times' },
  pulse: { kind: 'cycle', easing: 'linear', seconds: 1, direction: null, description: 'swells to 110 % and back' },
};

const VECTORS: Record<Direction, [number, number]> = { left: [-1, 0], right: [1, 0], up: [0, -1], down: [0, 1] };
export const OPPOSITE: Record<Direction, Direction> = { left: 'right', right: 'left', up: 'down', down: 'up' };

/**
 * The state of preset `name` at `progress`: eased progress 0..1 (may overshoot) for entry and
 * continuous presets, position 0..1 within one cycle for cycle presets.
 */
export function presetState(name: MotionName, progress: number, direction: Direction | null | undefined): MotionState {
  const dir = direction ?? PRESETS[name].direction ?? 'right';
  const [dx, dy] = VECTORS[dir];
  const away = 1 - progress;
  switch (name) {
    case 'fade':
      return state({ opacity: clamp01(progress) });
    case 'slide':
    case 'bounce':
      // Starts one box-size against the direction of travel.
      return state({ x: { px: 0, percent: -dx * 100 * away }, y: { px: 0, percent: -dy * 100 * away } });
    case 'scale':
      return state({ scaleX: Math.max(0, progress), scaleY: Math.max(0, progress) });
    case 'spin':
      return state({ rotation: (dir === 'left' ? 1 : -1) * 360 * away });
    case 'wipe': {
      const hidden = clamp01(away);
      // The edge travels in `direction`: the side it travels towards is still hidden.
      return state({ inset: { top: dy < 0 ? hidden : 0, bottom: dy > 0 ? hidden : 0, left: dx < 0 ? hidden : 0, right: dx > 0 ? hidden : 0 } });
    }
    case 'pan':
      return state({ x: { px: 0, percent: dx * 10 * (progress - 0.5) }, y: { px: 0, percent: dy * 10 * (progress - 0.5) } });
    case 'zoom':
      return state({ scaleX: 1 + 0.2 * progress, scaleY: 1 + 0.2 * progress });
    case 'wiggle':
      return state({ rotation: 8 * Math.sin(2 * Math.PI * 3 * progress) * Math.sin(Math.PI * progress) });
    case 'shake': {
      const jolt = 3 * Math.sin(2 * Math.PI * 10 * progress) * Math.sin(Math.PI * progress);
      return dx !== 0 ? state({ x: { px: 0, percent: jolt } }) : state({ y: { px: 0, percent: jolt } });
    }
    case 'pulse': {
      const swell = 1 + 0.1 * (1 - Math.cos(2 * Math.PI * progress)) / 2;
      return state({ scaleX: swell, scaleY: swell });
    }
  }
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

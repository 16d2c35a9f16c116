import type { ResolvedTiming } from '../schema/resolve';
import type { ElementMotionStyle } from './element-style';
import { fadeMultiplier } from './fades';

/**
 * The part of an element's opacity that changes with time: its fades times its motion style's
 * opacity (transitions, motions, groups). ElementBox draws with it and the worker's frame planner
 * (schema/blended-frames.ts) blends frames by it, so both read the same number.
 */
export function varyingOpacity(frame: number, timing: Pick<ResolvedTiming, 'durationInFrames' | 'fadeInFrames' | 'fadeOutFrames'>, motion: Pick<ElementMotionStyle, 'opacity'>): number {
  return fadeMultiplier(frame, timing) * motion.opacity;
}

import type { ResolvedTiming } from '../schema/resolve';

/**
 * 0..1 multiplier for opacity (visuals) and volume (sound) from the element's fades, at `frame`
 * counted from the element's first frame. Pure (no Remotion), so the worker's frame planner
 * (schema/blended-frames.ts) evaluates the very function the layers draw with.
 */
export function fadeMultiplier(frame: number, timing: Pick<ResolvedTiming, 'durationInFrames' | 'fadeInFrames' | 'fadeOutFrames'>): number {
  const { durationInFrames, fadeInFrames, fadeOutFrames } = timing;
  const fadeIn = fadeInFrames > 0 ? clamp01((frame - 0) / fadeInFrames) : 1;
  const fadeOut = fadeOutFrames > 0 ? 1 - clamp01((frame - (durationInFrames - fadeOutFrames)) / fadeOutFrames) : 1;
  return Math.min(fadeIn, fadeOut);
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

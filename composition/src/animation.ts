import { interpolate } from 'remotion';
import type { ResolvedTiming } from './schema';

const CLAMP = { extrapolateLeft: 'clamp', extrapolateRight: 'clamp' } as const;

/**
 * 0..1 multiplier for opacity (visuals) and volume (sound) from the element's fades, at `frame`
 * counted from the element's first frame.
 */
export function fadeMultiplier(frame: number, timing: Pick<ResolvedTiming, 'durationInFrames' | 'fadeInFrames' | 'fadeOutFrames'>): number {
  const { durationInFrames, fadeInFrames, fadeOutFrames } = timing;
  const fadeIn = fadeInFrames > 0 ? interpolate(frame, [0, fadeInFrames], [0, 1], CLAMP) : 1;
  const fadeOut = fadeOutFrames > 0 ? interpolate(frame, [durationInFrames - fadeOutFrames, durationInFrames], [1, 0], CLAMP) : 1;
  return Math.min(fadeIn, fadeOut);
}

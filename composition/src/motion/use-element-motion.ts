import { createContext, useContext } from 'react';
import { useCurrentFrame, useVideoConfig } from 'remotion';
import type { ResolvedBox, ResolvedTiming } from '../schema/resolve';
import { elementMotionStyle, STILL, type AudioLevels, type ElementMotionStyle } from './element-style';

/** Levels of the composition's sound at a composition time (seconds), when any animation listens. */
export const AudioLevelsContext = createContext<((seconds: number) => AudioLevels) | null>(null);

/** The element's animation at the current frame, as CSS pieces for ElementBox. */
export function useElementMotion(timing: ResolvedTiming, box: ResolvedBox): ElementMotionStyle {
  const frame = useCurrentFrame();
  const { fps, width, height } = useVideoConfig();
  const levelsAt = useContext(AudioLevelsContext);
  if (!timing.animation) return STILL;
  const levels = levelsAt ? levelsAt((timing.from + frame) / fps) : null;
  return elementMotionStyle(timing, box, frame, fps, { width, height }, levels);
}

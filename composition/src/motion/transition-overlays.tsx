import type React from 'react';
import { AbsoluteFill, useCurrentFrame, useVideoConfig } from 'remotion';
import type { ResolvedTransition } from './animation';
import { overlayOpacity, transitionProgress } from './transitions';

/** The black or white picture that dip transitions (fade_to_black/white) pass through. */
export const TransitionOverlays: React.FC<{ transitions: ResolvedTransition[]; zIndex: number }> = ({ transitions, zIndex }) => {
  const frame = useCurrentFrame();
  const { fps } = useVideoConfig();
  const seconds = frame / fps;
  return (
    <>
      {transitions.map((transition) => {
        if (seconds < transition.window.start || seconds > transition.window.end) return null;
        const opacity = overlayOpacity(transition.type, transitionProgress(transition.window, seconds));
        if (opacity <= 0) return null;
        return (
          <AbsoluteFill
            key={transition.index}
            style={{ backgroundColor: transition.type === 'fade_to_white' ? '#ffffff' : '#000000', opacity, zIndex }}
          />
        );
      })}
    </>
  );
};

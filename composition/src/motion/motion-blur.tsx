import type React from 'react';
import { createContext } from 'react';
import { AbsoluteFill, Freeze, useCurrentFrame } from 'remotion';

/**
 * Motion blur (`motion_blur`): the scene drawn `samples` times at instants spread evenly over the
 * open shutter (`shutter` × one frame interval, ending at the frame's own instant, never before
 * the composition's start), each copy
 * laid over the ones before it with opacity 1/(k + 1), which leaves the mean of all samples.
 * Cost: every frame draws the whole scene `samples` times. Only the first copy plays sound.
 */
export const DEFAULT_MOTION_BLUR = { samples: 8, shutter: 0.5 } as const;

/** False inside the copies of the scene that must stay silent. */
export const AudibleContext = createContext(true);

export const MotionBlur: React.FC<{ samples?: number; shutter?: number; children: React.ReactNode }> = ({ samples, shutter, children }) => {
  const frame = useCurrentFrame();
  const count = samples ?? DEFAULT_MOTION_BLUR.samples;
  const open = shutter ?? DEFAULT_MOTION_BLUR.shutter;
  const copies: React.ReactNode[] = [];
  for (let k = 0; k < count; k += 1) {
    // Sample k lies k/(count − 1) of the way back across the open shutter.
    const offset = count === 1 ? 0 : (open * k) / (count - 1);
    copies.push(
      // Each copy isolates its own paint order (elements carry z-indexes).
      <AbsoluteFill key={k} style={{ opacity: 1 / (k + 1), isolation: 'isolate' }}>
        {k === 0 ? children : (
          <AudibleContext.Provider value={false}>
            {/* The shutter does not open before the first frame. */}
            <Freeze frame={Math.max(0, frame - offset)}>{children}</Freeze>
          </AudibleContext.Provider>
        )}
      </AbsoluteFill>,
    );
  }
  return <>{copies}</>;
};

import type React from 'react';
import { useContext } from 'react';
import { useCurrentFrame, useVideoConfig } from 'remotion';
import { LookFrame } from '../look/context';
import { FixedOpacityContext } from '../motion/fixed-opacity';
import { useElementMotion } from '../motion/use-element-motion';
import { varyingOpacity } from '../motion/varying-opacity';
import type { RelativeLength, ResolvedBox, ResolvedTiming } from '../schema';

function css(length: RelativeLength): string {
  return `${length.value}${length.unit}`;
}

/**
 * Places an element: its anchor point at (x, y), rotated and scaled around that anchor, with the
 * element's opacity and fades. Must sit inside the element's <Sequence> (frames count from its start).
 */
export const ElementBox: React.FC<{ box: ResolvedBox; timing: ResolvedTiming; children: React.ReactNode }> = ({ box, timing, children }) => {
  const frame = useCurrentFrame();
  const { width: canvasWidth, height: canvasHeight } = useVideoConfig();
  const motion = useElementMotion(timing, box);
  const fixedOpacity = useContext(FixedOpacityContext);
  const anchorX = css(box.xAnchor);
  const anchorY = css(box.yAnchor);
  // x/y rotations need depth; a viewer about two canvas sizes away looks natural.
  const perspective = box.xRotation || box.yRotation ? `perspective(${2 * Math.max(canvasWidth, canvasHeight)}px) ` : '';
  return (
    <div
      style={{
        position: 'absolute',
        left: box.x,
        top: box.y,
        width: box.width ?? 'max-content',
        maxWidth: box.width === null ? canvasWidth : undefined,
        height: box.height ?? 'auto',
        transformOrigin: `${anchorX} ${anchorY}`,
        transform: `${motion.groups} translate(-${anchorX}, -${anchorY}) ${motion.translate} ${perspective}rotateX(${box.xRotation}deg) rotateY(${box.yRotation}deg) rotateZ(${box.zRotation}deg) scale(${box.scaleX}, ${box.scaleY}) ${motion.rotateScale}`,
        opacity: box.opacity * (fixedOpacity ?? varyingOpacity(frame, timing, motion)),
        clipPath: motion.clipPath,
        zIndex: motion.zIndex,
      }}
    >
      <LookFrame width={box.width} height={box.height}>{children}</LookFrame>
    </div>
  );
};

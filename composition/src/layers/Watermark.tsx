import type React from 'react';
import { AbsoluteFill, Img, useVideoConfig } from 'remotion';

/**
 * Above everything, bottom right: at most 20 % of the canvas each way, 3 % from the edges (of the
 * width from the right, of the height from the bottom). In pixels: CSS percent padding would take
 * both from the width, and percent max sizes would shrink by the padding.
 */
export const Watermark: React.FC<{ src: string }> = ({ src }) => {
  const { width, height } = useVideoConfig();
  return (
    <AbsoluteFill style={{ justifyContent: 'flex-end', alignItems: 'flex-end', padding: `${0.03 * height}px ${0.03 * width}px` }}>
      <Img src={src} style={{ maxWidth: 0.2 * width, maxHeight: 0.2 * height, objectFit: 'contain', display: 'block' }} />
    </AbsoluteFill>
  );
};

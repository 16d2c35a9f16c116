import type React from 'react';
import { AbsoluteFill, Img } from 'remotion';

/** Above everything, bottom right: at most 20 % of the canvas each way, 3 % from the edges. */
export const Watermark: React.FC<{ src: string }> = ({ src }) => (
  <AbsoluteFill style={{ justifyContent: 'flex-end', alignItems: 'flex-end', padding: '3%' }}>
    <Img src={src} style={{ maxWidth: '20%', maxHeight: '20%', objectFit: 'contain', display: 'block' }} />
  </AbsoluteFill>
);

import type React from 'react';
import { Img } from 'remotion';
import type { ResolvedImage } from '../schema';
import { ElementBox } from './ElementBox';

export const ImageLayer: React.FC<{ element: ResolvedImage; src: string }> = ({ element, src }) => (
  <ElementBox box={element.box} timing={element}>
    <Img src={src} style={{ width: '100%', height: '100%', objectFit: element.fit, display: 'block' }} />
  </ElementBox>
);

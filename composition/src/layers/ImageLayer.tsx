import type React from 'react';
import { CanvasImage, Img } from 'remotion';
import { useGradeEffects } from '../look/context';
import type { ResolvedImage } from '../schema';
import { ElementBox } from './ElementBox';

/** An image in its box; drawn on a canvas (at the box size) when a colour grade applies. */
export const ImageLayer: React.FC<{ element: ResolvedImage; src: string }> = ({ element, src }) => {
  const effects = useGradeEffects();
  return (
    <ElementBox box={element.box} timing={element}>
      {effects.length > 0 ? (
        <CanvasImage
          src={src}
          width={Math.max(1, Math.round(element.box.width))}
          height={Math.max(1, Math.round(element.box.height))}
          fit={element.fit}
          effects={effects}
          style={{ width: '100%', height: '100%', display: 'block' }}
        />
      ) : (
        <Img src={src} style={{ width: '100%', height: '100%', objectFit: element.fit, display: 'block' }} />
      )}
    </ElementBox>
  );
};

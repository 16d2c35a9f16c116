import type React from 'react';
import { useCallback, useState } from 'react';
import { CanvasImage, Img, useRemotionEnvironment } from 'remotion';
import { useGradeEffects } from '../look/context';
import { reportPreviewProblem, whyUnreadable } from '../preview-problems';
import type { ResolvedImage } from '../schema';
import { ElementBox } from './ElementBox';

/**
 * An image in its box; drawn on a canvas (at the box size) when a colour grade applies. A canvas
 * may only read a picture whose host allows the page's origin (CORS): in a `<Player>` a picture
 * the page cannot read is reported and shown ungraded; a render still fails on it.
 */
export const ImageLayer: React.FC<{ element: ResolvedImage; src: string }> = ({ element, src }) => {
  const effects = useGradeEffects(element.box.width);
  const { isPlayer } = useRemotionEnvironment();
  const [ungraded, setUngraded] = useState<string | null>(null);
  // Stable: CanvasImage reloads the picture when its onError changes.
  const reportUngraded = useCallback(() => {
    setUngraded(src);
    void whyUnreadable(src).then(({ reason }) =>
      reportPreviewProblem({ kind: 'image', url: src, message: `the image ${src} cannot be graded in this page: ${reason}. It is shown without its colour grade and effects.` }),
    );
  }, [src]);
  return (
    <ElementBox box={element.box} timing={element}>
      {effects.length > 0 && ungraded !== src ? (
        <CanvasImage
          src={src}
          width={Math.max(1, Math.round(element.box.width))}
          height={Math.max(1, Math.round(element.box.height))}
          fit={element.fit}
          effects={effects}
          onError={isPlayer ? reportUngraded : undefined}
          style={{ width: '100%', height: '100%', display: 'block' }}
        />
      ) : (
        <Img src={src} style={{ width: '100%', height: '100%', objectFit: element.fit, display: 'block' }} />
      )}
    </ElementBox>
  );
};

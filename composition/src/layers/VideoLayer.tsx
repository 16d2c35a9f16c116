import { Video } from '@remotion/media';
import type React from 'react';
import { useContext } from 'react';
import { useVideoConfig } from 'remotion';
import { useGradeEffects } from '../look/context';
import { mediaVolumeAt } from '../motion/media-volume';
import { AudibleContext } from '../motion/motion-blur';
import { RemappedMedia } from '../motion/remapped-media';
import type { ResolvedVideo } from '../schema';
import { ElementBox } from './ElementBox';

/** A video clip, covering its box; its sound fades with the picture. */
export const VideoLayer: React.FC<{ element: ResolvedVideo; src: string }> = ({ element, src }) => {
  const effects = useGradeEffects(element.box.width);
  // Silent in the extra copies motion blur draws.
  const audible = useContext(AudibleContext);
  const { fps } = useVideoConfig();
  return (
    <ElementBox box={element.box} timing={element}>
      {element.rateKeyframes ? (
        <RemappedMedia element={element} src={src} muted={!audible} effects={effects} />
      ) : (
        <Video
          src={src}
          trimBefore={element.trimBefore}
          trimAfter={element.trimAfter}
          playbackRate={element.playbackRate}
          muted={element.volume === 0 || !audible}
          volume={(frame) => mediaVolumeAt(element, frame, fps)}
          objectFit="cover"
          effects={effects}
          style={{ width: '100%', height: '100%', display: 'block' }}
        />
      )}
    </ElementBox>
  );
};

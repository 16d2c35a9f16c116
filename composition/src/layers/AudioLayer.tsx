import { Audio } from '@remotion/media';
import type React from 'react';
import { useContext } from 'react';
import { useVideoConfig } from 'remotion';
import { mediaVolumeAt } from '../motion/media-volume';
import { AudibleContext } from '../motion/motion-blur';
import { RemappedMedia } from '../motion/remapped-media';
import type { ResolvedAudio } from '../schema';

export const AudioLayer: React.FC<{ element: ResolvedAudio; src: string }> = ({ element, src }) => {
  // Silent in the extra copies motion blur draws.
  const audible = useContext(AudibleContext);
  const { fps } = useVideoConfig();
  if (element.rateKeyframes) return <RemappedMedia element={element} src={src} muted={!audible} />;
  return (
    <Audio
      src={src}
      trimBefore={element.trimBefore}
      trimAfter={element.trimAfter}
      playbackRate={element.playbackRate}
      muted={element.volume === 0 || !audible}
      volume={(frame) => mediaVolumeAt(element, frame, fps)}
    />
  );
};

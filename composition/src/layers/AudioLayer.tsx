import { Audio } from '@remotion/media';
import type React from 'react';
import { fadeMultiplier } from '../animation';
import type { ResolvedAudio } from '../schema';

export const AudioLayer: React.FC<{ element: ResolvedAudio; src: string }> = ({ element, src }) => (
  <Audio
    src={src}
    trimBefore={element.trimBefore}
    trimAfter={element.trimAfter}
    playbackRate={element.playbackRate}
    muted={element.volume === 0}
    volume={(frame) => element.volume * fadeMultiplier(frame, element)}
  />
);

import { Audio, Video } from '@remotion/media';
import type React from 'react';
import { getRemotionEnvironment, Sequence, useCurrentFrame, useVideoConfig } from 'remotion';
import type { ResolvedAudio, ResolvedVideo } from '../schema/resolve';
import { mediaVolumeAt } from './media-volume';
import { sourceSeconds } from './time-remap';

/**
 * A clip under a speed ramp. The render plays each output frame as its own one-frame piece that
 * starts at the source second the ramp's integral gives and runs at that frame's mean rate, so
 * the picture shows exactly that source frame and the sound is the matching source span, frame
 * after frame without gaps. The Player, which cannot remount media every frame, plays pieces of a
 * quarter second at their mean rate (exact at every piece boundary).
 */
export const RemappedMedia: React.FC<{
  element: ResolvedVideo | ResolvedAudio;
  src: string;
  muted: boolean;
  effects?: React.ComponentProps<typeof Video>['effects'];
}> = ({ element, src, muted, effects }) => {
  const frame = useCurrentFrame();
  const { fps } = useVideoConfig();
  const step = getRemotionEnvironment().isRendering ? 1 : Math.max(1, Math.round(fps / 4));
  const first = Math.floor(frame / step) * step;
  const start = sourceSeconds(element, first / fps, fps);
  const end = sourceSeconds(element, (first + step) / fps, fps);
  const rate = ((end - start) * fps) / step;
  const volume = (local: number) => mediaVolumeAt(element, first + local, fps);
  return (
    <Sequence key={first} from={first} durationInFrames={step} layout="none">
      {element.type === 'video' ? (
        <Video
          src={src}
          trimBefore={start * fps}
          playbackRate={rate}
          muted={muted || element.volume === 0}
          volume={volume}
          objectFit="cover"
          effects={effects}
          style={{ width: '100%', height: '100%', display: 'block' }}
        />
      ) : (
        <Audio src={src} trimBefore={start * fps} playbackRate={rate} muted={muted || element.volume === 0} volume={volume} />
      )}
    </Sequence>
  );
};

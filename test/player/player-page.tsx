// A page showing the composition in @remotion/player, for comparing its frames with the server's.
// Built by esbuild (test/helpers/player.ts); the first request arrives as window.__props, later
// ones through window.show().
import { Player, type PlayerRef } from '@remotion/player';
import { createRef } from 'react';
import { createRoot } from 'react-dom/client';
import { Main } from '../../composition/src/Main';
import { playerPropsFor } from '../../composition/src/player-props';
import type { CompositionProps } from '../../composition/src/schema';

declare global {
  interface Window {
    __props: CompositionProps;
    /** Shows another request (a fresh Player) at frame 0. */
    show: (props: CompositionProps) => void;
    seekTo: (frame: number) => void;
    /** The frame the Player shows and whether it waits for media (the buffer state of its layers). */
    playerState: () => { frame: number | null; buffering: boolean };
  }
}

const root = createRoot(document.getElementById('root')!);
let player = createRef<PlayerRef>();
let buffering = false;
let shown = 0;

window.show = (props) => {
  // The same helper a frontend uses: size, rate and length from the server's resolveRequest.
  const { inputProps, compositionWidth, compositionHeight, fps, durationInFrames } = playerPropsFor(props.request, props.media, props.transcripts, props.fontFaces);
  player = createRef<PlayerRef>();
  buffering = false;
  shown += 1;
  root.render(
    <Player
      key={shown}
      ref={(ref) => {
        (player as { current: PlayerRef | null }).current = ref;
        ref?.addEventListener('waiting', () => (buffering = true));
        ref?.addEventListener('resume', () => (buffering = false));
      }}
      component={Main}
      inputProps={inputProps}
      compositionWidth={compositionWidth}
      compositionHeight={compositionHeight}
      fps={fps}
      durationInFrames={durationInFrames}
      style={{ width: compositionWidth, height: compositionHeight }}
      acknowledgeRemotionLicense
    />,
  );
};
window.seekTo = (frame) => player.current?.seekTo(frame);
window.playerState = () => ({ frame: player.current?.getCurrentFrame() ?? null, buffering });
window.show(window.__props);

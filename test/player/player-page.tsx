// A page showing the composition in @remotion/player, for comparing its frames with the server's.
// Built by esbuild (test/helpers/player.ts); the request arrives as window.__props.
import { Player, type PlayerRef } from '@remotion/player';
import { createRef } from 'react';
import { createRoot } from 'react-dom/client';
import { Main } from '../../composition/src/Main';
import { resolveRequest, type CompositionProps } from '../../composition/src/schema';

declare global {
  interface Window {
    __props: CompositionProps;
    seekTo: (frame: number) => void;
  }
}

const props = window.__props;
const { width, height, fps, durationInFrames } = resolveRequest(props.request, props.media);
const player = createRef<PlayerRef>();
createRoot(document.getElementById('root')!).render(
  <Player
    ref={player}
    component={Main}
    inputProps={props}
    compositionWidth={width}
    compositionHeight={height}
    fps={fps}
    durationInFrames={durationInFrames}
    style={{ width, height }}
    acknowledgeRemotionLicense
  />,
);
window.seekTo = (frame) => player.current?.seekTo(frame);

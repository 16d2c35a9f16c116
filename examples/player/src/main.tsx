import { Player, type PlayerRef } from '@remotion/player';
import { Main, playerPropsFor } from '@video-render-service/composition';
import { createRef } from 'react';
import { createRoot } from 'react-dom/client';
import { request } from './request';

const player = createRef<PlayerRef>();
const props = playerPropsFor(request);

createRoot(document.getElementById('root')!).render(
  <Player
    ref={player}
    component={Main}
    {...props}
    style={{ width: props.compositionWidth, height: props.compositionHeight }}
    controls
    loop
    acknowledgeRemotionLicense
  />,
);

// Lets a test (or the console) drive the preview: window.previewPlayer.seekTo(30).
(window as unknown as { previewPlayer: typeof player }).previewPlayer = player;

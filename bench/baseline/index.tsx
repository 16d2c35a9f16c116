// What a user would write by hand with Remotion for the bench's 1080p case: <OffthreadVideo>,
// <Img>, a div and text. The bench renders it with a plain renderMedia() call as the baseline.
import React from 'react';
import { AbsoluteFill, Composition, Img, interpolate, OffthreadVideo, registerRoot, useCurrentFrame } from 'remotion';

type Props = { clip: string; logo: string };

const Scene: React.FC<Props> = ({ clip, logo }) => {
  const frame = useCurrentFrame();
  return (
    <AbsoluteFill style={{ background: 'linear-gradient(90deg, #1d4ed8, #9333ea)' }}>
      <div style={{ position: 'absolute', left: 1152, top: 432, width: 384, height: 216, background: '#ef4444' }} />
      <OffthreadVideo src={clip} style={{ position: 'absolute', left: 192, top: 270, width: 960, height: 540 }} />
      <Img src={logo} style={{ position: 'absolute', left: interpolate(frame, [0, 300], [100, 1500]), top: 60, width: 200, height: 200 }} />
      <div style={{ position: 'absolute', left: 0, right: 0, top: 900, textAlign: 'center', color: 'white', fontSize: 72, fontFamily: 'DejaVu Sans', opacity: interpolate(frame, [0, 30], [0, 1], { extrapolateRight: 'clamp' }) }}>
        Render service benchmark
      </div>
    </AbsoluteFill>
  );
};

const Root: React.FC = () => (
  <Composition id="Baseline" component={Scene} width={1920} height={1080} fps={30} durationInFrames={300} defaultProps={{ clip: '', logo: '' }} />
);

registerRoot(Root);

import type React from 'react';
import { Composition } from 'remotion';
import { FreshPerRequest } from './FreshPerRequest';
import { COMPOSITION_ID, resolveRequest, type CompositionProps } from './schema';

/** Shown in Remotion Studio when no input props are given. */
const SAMPLE_PROPS: CompositionProps = {
  request: {
    width: 1280,
    height: 720,
    duration: 3,
    background_color: '#1d4ed8',
    elements: [
      { type: 'shape', x: '25%', y: '50%', width: '20%', height: '30%', fill_color: '#ef4444', border_radius: 24, fade_in_duration: 0.5 },
      { type: 'text', text: 'Hello from the render service', x: '60%', font_family: 'Montserrat', font_weight: 700, font_size: 56, width: '40%', x_alignment: 'center' },
    ],
  },
  media: {},
};

export const Root: React.FC = () => (
  <Composition
    id={COMPOSITION_ID}
    component={FreshPerRequest}
    defaultProps={SAMPLE_PROPS}
    calculateMetadata={({ props }) => {
      const { width, height, fps, durationInFrames } = resolveRequest(props.request, props.media ?? {});
      return { width, height, fps, durationInFrames };
    }}
  />
);

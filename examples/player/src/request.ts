import type { RenderRequest } from '@video-render-service/composition';

/** The same JSON a client would POST to /v1/renders. */
export const request: RenderRequest = {
  width: 640,
  height: 360,
  duration: 2,
  frame_rate: 30,
  background_color: '#1d4ed8',
  elements: [
    { type: 'shape', x: '50%', y: '50%', width: 200, height: 120, fill_color: '#ef4444', fade_in_duration: 0.5 },
    { type: 'text', text: 'Preview', y: '15%', font_family: 'Montserrat', font_weight: 700, font_size: 40 },
  ],
};

/** What the editor holds when the page opens: a short request that shows text, a shape and motion. */
export const SAMPLE_REQUEST = {
  width: 640,
  height: 360,
  duration: 3,
  frame_rate: 30,
  background_color: '#0f172a',
  elements: [
    { type: 'shape', x: '50%', y: '58%', width: 260, height: 90, fill_color: '#f97316', fade_in_duration: 0.6 },
    { type: 'text', text: 'Hello, playground', y: '30%', font_family: 'Montserrat', font_weight: 700, font_size: 44 },
  ],
};

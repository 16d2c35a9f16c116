import { ELEMENT_SCHEMAS } from './elements';
import { findUnsupported, UNSUPPORTED_ELEMENT_FIELDS, UNSUPPORTED_REQUEST_FIELDS } from './unsupported';

describe('findUnsupported', () => {
  it('lists no request-level feature as undrawn', () => {
    expect(UNSUPPORTED_REQUEST_FIELDS).toEqual([]);
  });

  it('draws every element field of the schema: the look and motion included', () => {
    for (const type of ['video', 'audio', 'text', 'image', 'shape'] as const) expect([type, UNSUPPORTED_ELEMENT_FIELDS[type]]).toEqual([type, []]);
    for (const field of ['motion', 'playback_rate_keyframes', 'lut_url', 'blend_mode', 'mask_keyframes', 'effects']) expect(Object.keys(ELEMENT_SCHEMAS.video.shape)).toContain(field);
  });

  it('finds nothing in a request using motion, transitions, groups, blur and the look', () => {
    expect(findUnsupported({
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b' }],
      groups: [{ id: 'g', members: ['a'] }],
      motion_blur: { samples: 4 },
      custom_animations: { element: [{ name: 'c', keyframes: [{ offset: 0 }, { offset: 1 }] }] },
      background_gradient: 'linear-gradient(red, blue)',
      elements: [
        { type: 'shape', id: 'a', fill_color: '#ff0000', motion: [{ type: 'fade' }], blend_mode: 'multiply' },
        { type: 'video', id: 'b', source_url: 'https://example.com/a.mp4', brightness: 10, effects: [{ type: 'blur' }], playback_rate_keyframes: [{ time: 0, rate: 2 }] },
        { type: 'text', text: 'hi', stroke_color: '#000000', animation_preset: 'typewriter' },
      ],
    })).toEqual([]);
  });
});

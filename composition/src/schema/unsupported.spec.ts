import { findUnsupported, UNSUPPORTED_ELEMENT_FIELDS, UNSUPPORTED_REQUEST_FIELDS } from './unsupported';

describe('findUnsupported', () => {
  it('lists request-level features the renderer does not draw yet', () => {
    expect(UNSUPPORTED_REQUEST_FIELDS).toEqual([]);
  });

  it('keeps the drawn video fields supported and flags the rest of the spec list', () => {
    expect(UNSUPPORTED_ELEMENT_FIELDS.video).toEqual(expect.arrayContaining(['effects', 'lut_url', 'blend_mode', 'crop_top', 'mask', 'border_radius', 'shadow_color', 'clip']));
    for (const drawn of ['time', 'track', 'in_point', 'out_point', 'speed', 'volume', 'x', 'x_anchor', 'z_rotation', 'x_scale', 'flip_vertical', 'opacity', 'z_index', 'fade_in_duration', 'motion', 'playback_rate_keyframes']) {
      expect(UNSUPPORTED_ELEMENT_FIELDS.video).not.toContain(drawn);
    }
    expect(UNSUPPORTED_ELEMENT_FIELDS.shape).not.toContain('border_radius');
    expect(UNSUPPORTED_ELEMENT_FIELDS.text).toEqual(expect.arrayContaining(['shadow_color', 'effects']));
    expect(UNSUPPORTED_ELEMENT_FIELDS.text).not.toContain('animation_preset');
    expect(UNSUPPORTED_ELEMENT_FIELDS.audio).toEqual([]);
  });

  it('reports each present unsupported field with loc, pointer and the field name', () => {
    const issues = findUnsupported({
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b' }],
      groups: [],
      motion_blur: null,
      elements: [
        { type: 'shape', id: 'a', fill_color: '#ff0000' },
        { type: 'video', id: 'b', source_url: 'https://example.com/a.mp4', brightness: 10, effects: [{ type: 'blur' }] },
      ],
    });
    expect(issues).toEqual([
      { type: 'unsupported_feature', loc: ['body', 'elements', 1, 'video', 'brightness'], msg: '"brightness" on video elements is not supported by the renderer yet', pointer: '/elements/1/brightness' },
      { type: 'unsupported_feature', loc: ['body', 'elements', 1, 'video', 'effects'], msg: '"effects" on video elements is not supported by the renderer yet', pointer: '/elements/1/effects' },
    ]);
  });

  it('finds nothing in a request the renderer draws fully', () => {
    expect(findUnsupported({ background_gradient: 'linear-gradient(red, blue)', elements: [{ type: 'text', text: 'hi', stroke_color: '#000000' }] })).toEqual([]);
  });
});

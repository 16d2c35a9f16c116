import { findUnsupported, UNSUPPORTED_ELEMENT_FIELDS, UNSUPPORTED_REQUEST_FIELDS } from './unsupported';

describe('findUnsupported', () => {
  it('lists request-level features the renderer does not draw yet', () => {
    expect(UNSUPPORTED_REQUEST_FIELDS).toEqual(['transitions', 'groups', 'motion_blur', 'custom_animations']);
  });

  it('keeps the drawn video fields supported and flags the rest of the spec list', () => {
    expect(UNSUPPORTED_ELEMENT_FIELDS.video).toEqual(expect.arrayContaining(['motion', 'playback_rate_keyframes']));
    const look = [
      'lut_url', 'lut_intensity', 'brightness', 'contrast', 'saturation', 'exposure', 'sharpness', 'blur', 'noise', 'vignette', 'hue_rotate',
      'temperature', 'tint', 'vibrance', 'highlights', 'shadows', 'color_overlay', 'crop_top', 'crop_bottom', 'crop_left', 'crop_right',
      'border_radius', 'border_color', 'border_width', 'shadow_color', 'shadow_blur', 'shadow_x', 'shadow_y', 'backdrop_blur', 'blend_mode',
      'mask_shape', 'mask', 'mask_keyframes', 'matte', 'clip', 'effects',
    ];
    for (const type of ['video', 'image'] as const) expect(UNSUPPORTED_ELEMENT_FIELDS[type].filter((field) => look.includes(field))).toEqual([]);
    for (const type of ['text', 'shape'] as const) {
      expect(UNSUPPORTED_ELEMENT_FIELDS[type].filter((field) => field.startsWith('shadow_') || ['blend_mode', 'mask', 'matte', 'clip', 'effects'].includes(field))).toEqual([]);
    }
    for (const drawn of ['time', 'track', 'in_point', 'out_point', 'speed', 'volume', 'x', 'x_anchor', 'z_rotation', 'x_scale', 'flip_vertical', 'opacity', 'z_index', 'fade_in_duration']) {
      expect(UNSUPPORTED_ELEMENT_FIELDS.video).not.toContain(drawn);
    }
    expect(UNSUPPORTED_ELEMENT_FIELDS.shape).not.toContain('border_radius');
    expect(UNSUPPORTED_ELEMENT_FIELDS.text).toEqual(expect.arrayContaining(['animation_preset']));
    expect(UNSUPPORTED_ELEMENT_FIELDS.audio).toEqual(['playback_rate_keyframes']);
  });

  it('reports each present unsupported field with loc, pointer and the field name', () => {
    const issues = findUnsupported({
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b' }],
      groups: [],
      motion_blur: null,
      elements: [
        { type: 'shape', id: 'a', fill_color: '#ff0000' },
        { type: 'video', id: 'b', source_url: 'https://example.com/a.mp4', brightness: 10, effects: [{ type: 'blur' }], motion: [{ type: 'fade' }] },
      ],
    });
    expect(issues).toEqual([
      { type: 'unsupported_feature', loc: ['body', 'transitions'], msg: '"transitions" is not supported by the renderer yet', pointer: '/transitions' },
      { type: 'unsupported_feature', loc: ['body', 'elements', 1, 'video', 'motion'], msg: '"motion" on video elements is not supported by the renderer yet', pointer: '/elements/1/motion' },
    ]);
  });

  it('finds nothing in a request the renderer draws fully', () => {
    expect(findUnsupported({ background_gradient: 'linear-gradient(red, blue)', elements: [{ type: 'text', text: 'hi', stroke_color: '#000000' }] })).toEqual([]);
  });
});

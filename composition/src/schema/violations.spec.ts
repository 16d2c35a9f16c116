import type { RenderRequest } from './request';
import { findViolations, truncateViolations, type Violation } from './violations';

const CLIP = 'https://example.com/clip.mp4';

function codes(request: RenderRequest, media = {}): string[] {
  return findViolations(request, media).map((violation) => violation.code);
}

describe('findViolations', () => {
  it('finds nothing in a sound request', () => {
    expect(findViolations({ elements: [{ type: 'shape', id: 'a' }, { type: 'text', id: 'b', text: 'hi' }], transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b' }] })).toEqual([]);
  });

  it('reports self-transitions and unknown transition ids at the offending value', () => {
    const violations = findViolations({
      elements: [{ type: 'shape', id: 'a' }],
      transitions: [
        { type: 'cross_dissolve', from_id: 'a', to_id: 'a' },
        { type: 'cross_dissolve', from_id: 'a', to_id: 'ghost' },
      ],
    });
    expect(violations).toEqual([
      { code: 'TRANSITION_SELF', severity: 'error', message: expect.stringContaining('"a"'), pointer: '/transitions/0/to_id', element_ids: ['a'] },
      { code: 'TRANSITION_UNKNOWN_ELEMENT', severity: 'error', message: expect.stringContaining('"ghost"'), pointer: '/transitions/1/to_id', element_ids: ['a', 'ghost'] },
    ]);
  });

  it('reports duplicate ids and unknown group members', () => {
    const violations = findViolations({
      elements: [{ type: 'shape', id: 'a' }, { type: 'shape', id: 'a' }],
      groups: [{ id: 'g', members: ['a', 'b'] }],
    });
    expect(violations.map(({ code, pointer }) => [code, pointer])).toEqual([
      ['DUPLICATE_ELEMENT_ID', '/elements/1/id'],
      ['GROUP_UNKNOWN_MEMBER', '/groups/0/members/1'],
    ]);
  });

  it('reports elements fully off the canvas, taking anchors, scale and rotation into account', () => {
    const base = { width: 1000, height: 500 };
    expect(findViolations({ ...base, elements: [{ type: 'shape', id: 'far', x: 2000, width: 100, height: 100 }] })).toEqual([
      expect.objectContaining({ code: 'ELEMENT_OFF_CANVAS', severity: 'error', pointer: '/elements/0/x', element_ids: ['far'] }),
    ]);
    expect(codes({ ...base, elements: [{ type: 'shape', y: '-10%', width: 100, height: 100 }] })).toEqual(['ELEMENT_OFF_CANVAS']);
    expect(codes({ ...base, elements: [{ type: 'shape', x: -40, width: 100, height: 100 }] })).toEqual([]);
    expect(codes({ ...base, elements: [{ type: 'shape', x: -40, width: 100, height: 100, x_anchor: '100%' }] })).toEqual(['ELEMENT_OFF_CANVAS']);
    expect(codes({ ...base, elements: [{ type: 'shape', x: -80, width: 100, height: 100, x_scale: '200%' }] })).toEqual([]);
    expect(codes({ ...base, elements: [{ type: 'shape', x: -60, width: 100, height: 100, z_rotation: 45 }] })).toEqual([]);
  });

  it('reports elements that start at or after the end, or last less than a frame', () => {
    const violations = findViolations({
      duration: 2,
      elements: [
        { type: 'shape', time: 2, duration: 1 },
        { type: 'shape', duration: 0.001 },
        { type: 'video', source_url: CLIP, in_point: 5 },
        { type: 'shape', time: 5, visible: false },
      ],
    }, { [CLIP]: { duration: 4 } });
    expect(violations.map(({ code, pointer }) => [code, pointer])).toEqual([
      ['ELEMENT_STARTS_AFTER_END', '/elements/0/time'],
      ['ELEMENT_ZERO_DURATION', '/elements/1'],
      ['ELEMENT_ZERO_DURATION', '/elements/2/in_point'],
    ]);
  });

  it('lists errors, then warnings, then info', () => {
    const violations = findViolations({
      duration: 1,
      output_format: 'webm',
      alpha: true,
      elements: [
        { type: 'video', source_url: CLIP, out_point: 9 },
        { type: 'text', text: 'x', font_family: 'Oswald', font_weight: 900 },
        { type: 'shape', id: 'gone', x: -5000 },
        { type: 'shape', opacity: 0 },
      ],
    }, { [CLIP]: { duration: 3, has_video: false } });
    expect(violations.map(({ code, severity }) => `${severity} ${code}`)).toEqual([
      'error ELEMENT_OFF_CANVAS',
      'warning OUT_POINT_BEYOND_SOURCE',
      'warning SOURCE_WITHOUT_VIDEO',
      'warning ELEMENT_NEVER_VISIBLE',
      'warning ALPHA_BACKGROUND_OPAQUE',
      'info ELEMENT_CUT_AT_END',
      'info FONT_WEIGHT_UNAVAILABLE',
    ]);
    expect(codes({ output_format: 'webm', alpha: true, background_color: '#00000000' })).toEqual([]);
  });
});

describe('truncateViolations', () => {
  const many = (count: number, severity: Violation['severity'] = 'error'): Violation[] =>
    Array.from({ length: count }, (_, index) => ({ code: 'X', severity, message: `${index}`, pointer: `/elements/${index}`, element_ids: [] }));

  it('keeps short lists as they are', () => {
    expect(truncateViolations(many(40))).toHaveLength(40);
  });

  it('keeps the first 40, errors first, and appends a marker with the full count', () => {
    const list = [...many(30, 'info'), ...many(15, 'error')];
    const truncated = truncateViolations(list);
    expect(truncated).toHaveLength(41);
    expect(truncated.slice(0, 15).every((violation) => violation.severity === 'error')).toBe(true);
    expect(truncated[40]).toEqual({ code: 'VIOLATIONS_TRUNCATED', severity: 'info', message: expect.stringContaining('45'), pointer: '', element_ids: [], total: 45 });
    expect(truncateViolations(many(5), 3)).toHaveLength(4);
  });
});

describe('findViolations: the look', () => {
  const shape = (rest: object) => ({ type: 'shape' as const, width: 10, height: 10, ...rest });
  const codes = (request: Parameters<typeof findViolations>[0]) => findViolations(request).map((v) => [v.code, v.severity, v.pointer]);

  it('flags mattes naming no element, themselves, a hidden element, audio or a video', () => {
    expect(codes({ elements: [shape({ id: 'a', matte: { source: 'nope' } })] })).toEqual([['MATTE_UNKNOWN_SOURCE', 'error', '/elements/0/matte/source']]);
    expect(codes({ elements: [shape({ id: 'a', matte: { source: 'a' } })] })).toEqual([['MATTE_SELF', 'error', '/elements/0/matte/source']]);
    expect(codes({ elements: [shape({ id: 'm', visible: false }), shape({ id: 'a', matte: { source: 'm' } })] })).toEqual([['MATTE_SOURCE_HIDDEN', 'error', '/elements/1/matte/source']]);
    expect(codes({ elements: [{ type: 'audio', id: 'm', source_url: 'https://example.com/a.mp3', out_point: 1 }, shape({ id: 'a', matte: { source: 'm' } })] })[0]).toEqual(['MATTE_SOURCE_AUDIO', 'error', '/elements/1/matte/source']);
    expect(codes({ elements: [{ type: 'video', id: 'm', source_url: 'https://example.com/a.mp4', out_point: 1 }, shape({ id: 'a', matte: { source: 'm', mode: 'luma' } })] })).toEqual([['MATTE_SOURCE_VIDEO_BOX', 'warning', '/elements/1/matte/source']]);
    expect(codes({ elements: [shape({ id: 'm', effects: [{ type: 'blur' }] }), shape({ id: 'a', matte: { source: 'm' } })] })).toEqual([['MATTE_SOURCE_LOOK_IGNORED', 'info', '/elements/1/matte/source']]);
    expect(codes({ elements: [shape({ id: 'm' }), shape({ id: 'a', matte: { source: 'm' } })] })).toEqual([]);
  });

  it('notes masks without a shape and keyframes sharing a time', () => {
    expect(codes({ elements: [shape({ mask: { feather: 2 } })] })).toEqual([['MASK_WITHOUT_SHAPE', 'info', '/elements/0/mask']]);
    expect(codes({ elements: [shape({ mask_shape: 'circle', mask_keyframes: [{ time: 1, scale: '50%' }, { time: 1, scale: '80%' }] })] })).toEqual([['MASK_KEYFRAMES_SAME_TIME', 'warning', '/elements/0/mask_keyframes']]);
  });
});

import { validateRenderRequest, type ValidationIssue } from './validate';

function errorsOf(input: unknown): ValidationIssue[] {
  const result = validateRenderRequest(input);
  if (result.ok) throw new Error('expected validation errors');
  return result.errors;
}

const video = { type: 'video', source_url: 'https://example.com/clip.mp4' };

describe('validateRenderRequest', () => {
  it('accepts a minimal request and a full one', () => {
    expect(validateRenderRequest({}).ok).toBe(true);
    const result = validateRenderRequest({
      width: 1280,
      height: 720,
      duration: 4,
      frame_rate: 25,
      output_format: 'webm',
      alpha: true,
      background_color: '#00000000',
      background_gradient: { type: 'linear', angle: '90deg', stops: [{ color: '#ff0000', offset: 0 }, { color: '#0000ff', offset: 1 }] },
      elements: [
        { ...video, track: 1, in_point: 1, out_point: 3, speed: 2, volume: '50%', x: '25%', y: 100, z_rotation: '45deg', x_scale: '120%' },
        { type: 'audio', source_url: 'https://example.com/music.mp3', volume: 0.5, fade_out_duration: 1 },
        { type: 'text', text: 'Hello', font_family: 'Roboto', font_weight: 700, x_alignment: 'center', line_height: '120%' },
        { type: 'image', source_url: 'https://example.com/logo.png', fit: 'contain', duration: 2 },
        { type: 'shape', shape: 'ellipse', fill_color: '#ff0000', stroke_color: '#ffffffff', stroke_width: 4 },
      ],
      metadata: { order: 42 },
    });
    expect(result).toMatchObject({ ok: true });
  });

  it('reports an unknown field on a video with a suggestion, the element type in loc and no tag in pointer', () => {
    expect(errorsOf({ elements: [{ ...video, volumee: 1 }] })).toEqual([
      {
        type: 'extra_forbidden',
        loc: ['body', 'elements', 0, 'video', 'volumee'],
        msg: 'Extra inputs are not permitted: "volumee" is not a field of video elements; did you mean "volume"?',
        pointer: '/elements/0/volumee',
        suggestion: 'volume',
      },
    ]);
  });

  it('explains duration on video and audio elements without a suggestion', () => {
    const [videoIssue, audioIssue] = errorsOf({
      elements: [
        { ...video, duration: 5 },
        { type: 'audio', source_url: 'https://example.com/a.mp3', duration: 5 },
      ],
    });
    expect(videoIssue).toMatchObject({ type: 'extra_forbidden', loc: ['body', 'elements', 0, 'video', 'duration'], pointer: '/elements/0/duration' });
    expect(videoIssue.msg).toContain('out_point');
    expect(videoIssue.msg).toContain('in_point');
    expect(videoIssue).not.toHaveProperty('suggestion');
    expect(audioIssue.msg).toContain('out_point');
    expect(audioIssue).not.toHaveProperty('suggestion');
  });

  it('gives no suggestion when nothing is close', () => {
    const [issue] = errorsOf({ elements: [{ ...video, brightnessxyz: 1 }] });
    expect(issue.type).toBe('extra_forbidden');
    expect(issue).not.toHaveProperty('suggestion');
  });

  it('reports unknown request-level and nested fields', () => {
    expect(errorsOf({ widht: 100 })[0]).toMatchObject({ type: 'extra_forbidden', loc: ['body', 'widht'], pointer: '/widht', suggestion: 'width' });
    const nested = errorsOf({ background_gradient: { type: 'linear', stops: [{ color: '#000000', offset: 0 }, { color: '#ffffff', offest: 1 }] } });
    expect(nested).toContainEqual(expect.objectContaining({ type: 'missing', pointer: '/background_gradient/stops/1/offset' }));
    expect(nested.find((issue) => issue.type === 'extra_forbidden')).toMatchObject({ type: 'extra_forbidden', pointer: '/background_gradient/stops/1/offest', suggestion: 'offset' });
  });

  it('rejects an unknown element type listing the valid ones, with a suggestion when close', () => {
    const [issue] = errorsOf({ elements: [{ type: 'vidoe' }] });
    expect(issue).toMatchObject({ type: 'union_tag_invalid', loc: ['body', 'elements', 0, 'type'], pointer: '/elements/0/type', suggestion: 'video' });
    for (const type of ['video', 'audio', 'text', 'image', 'shape']) expect(issue.msg).toContain(`'${type}'`);
    const [far] = errorsOf({ elements: [{ type: 'sticker' }] });
    expect(far.type).toBe('union_tag_invalid');
    expect(far).not.toHaveProperty('suggestion');
    expect(errorsOf({ elements: [{ text: 'x' }] })[0]).toMatchObject({ type: 'missing', pointer: '/elements/0/type' });
  });

  it('rejects alpha with a format that cannot carry it, at /alpha', () => {
    expect(errorsOf({ alpha: true, output_format: 'mp4' })).toEqual([
      expect.objectContaining({ type: 'value_error', loc: ['body', 'alpha'], pointer: '/alpha' }),
    ]);
    expect(errorsOf({ alpha: true })[0].pointer).toBe('/alpha');
    expect(validateRenderRequest({ alpha: true, output_format: 'mov' }).ok).toBe(true);
  });

  it('needs width and height together', () => {
    expect(errorsOf({ width: 640 })).toEqual([expect.objectContaining({ type: 'missing', pointer: '/height' })]);
  });

  it('maps value errors to Pydantic-style types', () => {
    const errors = errorsOf({
      width: 8,
      height: 9000,
      frame_rate: 29.97,
      duration: 0,
      output_format: 'mp5',
      background_color: 'red',
      output_filename: 'a/b',
      webhook_url: `https://example.com/${'x'.repeat(2100)}`,
      ingest_external: 'yes',
      elements: [{ ...video, volume: 'loud', track: '1' }, { type: 'text' }, { type: 'text', text: 'x', font_family: 'inter' }],
    });
    const byPointer = Object.fromEntries(errors.map((issue) => [issue.pointer, issue]));
    expect(errors).toHaveLength(new Set(errors.map((issue) => issue.pointer)).size);
    expect(byPointer['/width']).toMatchObject({ type: 'greater_than_equal', msg: 'Input should be greater than or equal to 16' });
    expect(byPointer['/height'].type).toBe('less_than_equal');
    expect(byPointer['/frame_rate'].type).toBe('int_type');
    expect(byPointer['/duration']).toMatchObject({ type: 'greater_than', msg: 'Input should be greater than 0' });
    expect(byPointer['/output_format']).toMatchObject({ type: 'enum', suggestion: 'mp4' });
    expect(byPointer['/output_format'].msg).toContain("'webm'");
    expect(byPointer['/background_color'].type).toBe('string_pattern_mismatch');
    expect(byPointer['/output_filename'].type).toBe('string_pattern_mismatch');
    expect(byPointer['/webhook_url'].type).toBe('string_too_long');
    expect(byPointer['/ingest_external'].type).toBe('bool_type');
    expect(byPointer['/elements/0/volume']).toMatchObject({ type: 'string_pattern_mismatch', loc: ['body', 'elements', 0, 'video', 'volume'] });
    expect(byPointer['/elements/0/track'].type).toBe('int_type');
    expect(byPointer['/elements/1/text']).toMatchObject({ type: 'missing', msg: 'A text element needs "text" (or "transcript" for captions from speech)', loc: ['body', 'elements', 1, 'text', 'text'] });
    expect(byPointer['/elements/2/font_family']).toMatchObject({ type: 'value_error', suggestion: 'Inter' });
  });

  it('checks units, URLs, trims and gradient strings', () => {
    const errors = errorsOf({
      background_image_url: 'ftp://example.com/a.png',
      background_gradient: 'linear-gradient(red, blue), url(http://127.0.0.1/x)',
      elements: [{ ...video, x: true, in_point: 3, out_point: 2, z_rotation: '45rad' }],
    });
    const byPointer = Object.fromEntries(errors.map((issue) => [issue.pointer, issue]));
    expect(byPointer['/background_image_url'].type).toBe('url_parsing');
    expect(byPointer['/background_gradient'].type).toBe('value_error');
    expect(byPointer['/elements/0/x']).toMatchObject({ type: 'float_type', msg: expect.stringContaining('percent') });
    expect(byPointer['/elements/0/z_rotation'].type).toBe('string_pattern_mismatch');
    expect(validateRenderRequest({ elements: [{ ...video, in_point: 3, out_point: 2 }] })).toMatchObject({
      ok: false,
      errors: [expect.objectContaining({ type: 'value_error', pointer: '/elements/0/out_point' })],
    });
    expect(validateRenderRequest({ background_gradient: 'radial-gradient(circle, #fff 0%, rgb(0 0 0 / 50%) 100%)' }).ok).toBe(true);
  });

  it('reports a body that is not an object', () => {
    expect(errorsOf([])[0]).toMatchObject({ type: 'model_type', loc: ['body'], pointer: '' });
  });
});

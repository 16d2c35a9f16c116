import { elementJsonSchemas, requestJsonSchema } from './json-schema';

type Schema = { type?: string; properties: Record<string, Record<string, unknown>>; required?: string[]; additionalProperties?: boolean };

describe('JSON Schemas', () => {
  const elements = elementJsonSchemas() as Record<string, Schema>;

  it('describes every element type as a strict object', () => {
    expect(Object.keys(elements)).toEqual(['video', 'audio', 'text', 'image', 'shape', 'waveform']);
    for (const [type, schema] of Object.entries(elements)) {
      expect(schema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(schema.properties.type).toMatchObject({ const: type });
      expect(schema.required).toContain('type');
    }
    expect(elements.video.required).toEqual(['type', 'source_url']);
    // "text" or "transcript": one of the two, checked by the schema's refinement.
    expect(elements.text.required).toEqual(['type']);
    expect(elements.text.properties.transcript.required).toEqual(['source']);
    expect(elements.video.properties).not.toHaveProperty('duration');
    expect(elements.image.properties.fit).toMatchObject({ enum: ['cover', 'contain', 'fill'], default: 'cover' });
  });

  it('marks no field as undrawn now that the look and motion are drawn', () => {
    expect(JSON.stringify(elements)).not.toContain('x-supported');
    for (const field of ['motion', 'playback_rate_keyframes', 'effects', 'lut_url', 'brightness', 'crop_top', 'backdrop_blur', 'blend_mode', 'mask_keyframes', 'matte', 'clip']) {
      expect(elements.video.properties[field]).not.toHaveProperty('x-supported');
    }
    expect(elements.text.properties.shadow_color).not.toHaveProperty('x-supported');
    expect(elements.video.properties.volume).not.toHaveProperty('x-supported');
    expect(elements.shape.properties.border_radius).not.toHaveProperty('x-supported');
    expect(elements.shape.properties.motion).not.toHaveProperty('x-supported');
    expect(elements.text.properties.animation_preset).not.toHaveProperty('x-supported');
  });

  it('describes the request, strict at every level, with unsupported features marked', () => {
    const request = requestJsonSchema() as Schema & { properties: Record<string, { items?: { oneOf?: Schema[] } }> };
    expect(request).toMatchObject({ type: 'object', additionalProperties: false });
    for (const drawn of ['transitions', 'groups', 'motion_blur', 'custom_animations']) expect(request.properties[drawn]).not.toHaveProperty('x-supported');
    expect(request.properties.background_color).toMatchObject({ pattern: '^#([0-9a-fA-F]{6}|[0-9a-fA-F]{8})$', default: '#000000ff' });
    const variants = request.properties.elements.items?.oneOf ?? [];
    expect(variants.map((variant) => variant.properties.type.const)).toEqual(['video', 'audio', 'text', 'image', 'shape', 'waveform']);
    expect(variants[0].properties.blur).not.toHaveProperty('x-supported');
    const objects: Record<string, unknown>[] = [];
    JSON.stringify(request, (_key, value) => {
      if (value && typeof value === 'object' && (value as { type?: string }).type === 'object' && 'properties' in value) objects.push(value);
      return value;
    });
    const open = objects.filter((object) => object.additionalProperties !== false);
    expect(open.map((object) => Object.keys(object.properties as object))).toEqual([]);
  });
});

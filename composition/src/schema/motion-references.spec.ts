import { validateRenderRequest } from './validate';

function errors(input: unknown): Record<string, string> {
  const result = validateRenderRequest(input);
  return result.ok ? {} : Object.fromEntries(result.errors.map((error) => [error.pointer, error.msg]));
}

describe('motion references and easing fields', () => {
  it('accepts known names, built-in text presets and parameterised easings', () => {
    expect(validateRenderRequest({
      custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0, x: 0, spring: { damping: 5 } }, { offset: 1, x: 10 }] }], text: [{ name: 'rise', split: 'word', keyframes: [{ offset: 0 }, { offset: 1 }] }] },
      elements: [
        { type: 'shape', id: 's', motion: [{ custom: 'glide', bezier: [0.2, 0, 0.4, 1] }, { type: 'slide', easing: 'back_in', back: 3 }] },
        { type: 'text', text: 'a', motion: [{ custom: 'rise', time: 'end' }] },
        { type: 'text', text: 'b', animation_preset: 'word_pop' },
      ],
      groups: [{ id: 'g', members: ['s'], animations: [{ type: 'wipe', scope: 'members', direction: 'left' }, { audio: { feature: 'bass', scale: 1 } }] }],
    }).ok).toBe(true);
  });

  it('refuses unknown names, contradicting easings, two text animations and group wipes with pointers', () => {
    const found = errors({
      custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0 }, { offset: 1 }] }, { name: 'glide', keyframes: [{ offset: 0 }, { offset: 1 }] }] },
      elements: [
        { type: 'shape', motion: [{ custom: 'glyde' }, { type: 'fade', easing: 'linear', elastic: { period: 0.5 } }] },
        { type: 'text', text: 'a', animation_preset: 'typewriter', motion: [{ custom: 'glide' }] },
        { type: 'text', text: 'b', animation_preset: 'word_pop', motion: [{ custom: 'nope' }] },
        { type: 'image', source_url: 'https://example.com/a.png', motion: [{ type: 'fade', bezier: [1.5, 0, 0.5, 1] }] },
      ],
      groups: [{ id: 'g', members: ['x'], animations: [{ type: 'wipe' }, {}, { type: 'fade', custom: 'glide' }] }],
    });
    expect(found['/custom_animations/element/1/name']).toMatch(/already named "glide"/);
    expect(found['/elements/0/motion/0/custom']).toMatch(/did you mean "glide"/);
    expect(found['/elements/0/motion/1/easing']).toMatch(/"elastic" applies to easing "elastic_in", "elastic_out", not "linear"/);
    expect(found['/elements/2/motion/0/custom']).toMatch(/"nope" names no/);
    expect(found['/elements/3/motion/0/bezier/0']).toBeDefined();
    expect(found['/groups/0/animations/0/scope']).toMatch(/scope": "members"/);
    expect(found['/groups/0/animations/1/type']).toMatch(/Set "type", "custom" or "audio"/);
    expect(found['/groups/0/animations/2/type']).toMatch(/at most one/);
  });

  it('allows one text animation per text element', () => {
    const found = errors({
      custom_animations: { text: [{ name: 'rise', split: 'word', keyframes: [{ offset: 0 }, { offset: 1 }] }] },
      elements: [{ type: 'text', text: 'a', animation_preset: 'typewriter', motion: [{ custom: 'rise' }] }],
    });
    expect(found['/elements/0/animation_preset']).toMatch(/one text animation/);
  });
});

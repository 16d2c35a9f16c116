import { brandVariables, findPlaceholders, nearestFontFamily, substituteVariables } from './variables';

describe('template variables', () => {
  const template = {
    background_color: '{{bg}}',
    elements: [{ type: 'text', text: 'Hello {{ who }}, {{who}}!', font_size: 40 }, { type: 'text', text: 'css { a: b } and {{not a name}}' }],
    metadata: { note: '{{brand.palette.primary}}' },
  };

  it('replaces every placeholder in string values only, leaving other braces alone', () => {
    const result = substituteVariables(template, { bg: '#ff0000', who: 'world', 'brand.palette.primary': '#123456' });
    expect(result).toEqual({
      ok: true,
      value: {
        background_color: '#ff0000',
        elements: [{ type: 'text', text: 'Hello world, world!', font_size: 40 }, { type: 'text', text: 'css { a: b } and {{not a name}}' }],
        metadata: { note: '#123456' },
      },
    });
    // The input is not changed.
    expect(template.background_color).toBe('{{bg}}');
  });

  it('reports each missing variable with the pointer of its string', () => {
    expect(substituteVariables(template, { who: 'x' })).toEqual({
      ok: false,
      missing: [
        { name: 'bg', pointer: '/background_color' },
        { name: 'brand.palette.primary', pointer: '/metadata/note' },
      ],
    });
    expect(substituteVariables(template, {}, { keepMissing: true }).ok).toBe(true);
    const onlyBrand = substituteVariables(template, {}, { only: (name) => name.startsWith('brand.') });
    expect(onlyBrand).toEqual({ ok: false, missing: [{ name: 'brand.palette.primary', pointer: '/metadata/note' }] });
  });

  it('does not read inherited properties as values', () => {
    expect(substituteVariables({ a: '{{constructor}}', b: '{{toString}}' }, {}).ok).toBe(false);
  });

  it('lists placeholders in document order', () => {
    expect(findPlaceholders(template).map((p) => `${p.name}@${p.pointer}`)).toEqual([
      'bg@/background_color',
      'who@/elements/0/text',
      'who@/elements/0/text',
      'brand.palette.primary@/metadata/note',
    ]);
  });

  it('maps brand fonts to the nearest shipped family and says which were swapped', () => {
    expect(nearestFontFamily('"Roboto Mono", monospace')).toBe('Roboto Mono');
    expect(nearestFontFamily('Merriweather')).toBe('Playfair Display');
    expect(nearestFontFamily('Source Sans Pro')).toBe('Inter');
    expect(nearestFontFamily('Bebas Neue')).toBe('Oswald');
    expect(nearestFontFamily('Helvetica, Arial, sans-serif')).toBe('Inter');
    expect(nearestFontFamily('lato')).toBe('Lato');
    // A Google Fonts family is used as it is; a font no render can have becomes the nearest shipped one.
    const { variables, fallbacks } = brandVariables({ palette: { primary: '#e63946' }, fonts: { heading: '"merriweather", Georgia, serif', body: 'Helvetica Neue, sans-serif' }, logo_url: null });
    expect(variables).toEqual({ 'brand.palette.primary': '#e63946', 'brand.fonts.heading': 'Merriweather', 'brand.fonts.body': 'Inter' });
    expect(fallbacks).toEqual([{ field: 'body', requested: 'Helvetica Neue, sans-serif', used: 'Inter' }]);
  });
});

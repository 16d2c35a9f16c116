import { CATALOGS } from './catalogs';
import { externalSources } from './sources';
import { FONT_FAMILIES } from './vocabulary';

describe('externalSources', () => {
  it('lists every URL the renderer loads once, with where it first appears', () => {
    expect(externalSources({
      background_image_url: 'https://example.com/bg.png',
      watermark_url: 'https://example.com/logo.png',
      webhook_url: 'https://example.com/hook',
      elements: [
        { type: 'video', source_url: 'https://example.com/a.mp4' },
        { type: 'audio', source_url: 'https://example.com/a.mp4' },
        { type: 'text', text: 'x' },
        { type: 'image', source_url: 'https://example.com/logo.png' },
        { type: 'audio', source_url: 'https://example.com/hidden.mp3', visible: false },
      ],
    })).toEqual([
      { url: 'https://example.com/bg.png', kind: 'background', pointer: '/background_image_url' },
      { url: 'https://example.com/a.mp4', kind: 'video', pointer: '/elements/0/source_url' },
      { url: 'https://example.com/logo.png', kind: 'image', pointer: '/elements/3/source_url' },
    ]);
  });
});

describe('CATALOGS', () => {
  it('flags support per entry', () => {
    expect(CATALOGS.formats.map(({ name, supported }) => [name, supported])).toEqual([
      ['mp4', true], ['webm', true], ['mov', true], ['gif', true], ['png', true], ['jpg', true],
    ]);
    for (const catalog of [CATALOGS.effects, CATALOGS.blend_modes]) {
      expect(catalog.length).toBeGreaterThan(0);
      expect(catalog.every((entry) => entry.supported === true)).toBe(true);
    }
    expect(CATALOGS.effects.every((entry) => (entry.description ?? '').length > 0)).toBe(true);
    for (const catalog of [CATALOGS.motions, CATALOGS.transitions, CATALOGS.easings, CATALOGS.text_animations]) {
      expect(catalog.length).toBeGreaterThan(0);
      expect(catalog.every((entry) => entry.supported === true && (entry.description ?? '').length > 0)).toBe(true);
    }
    expect(CATALOGS.motions.map((entry) => entry.name)).toEqual(['fade', 'slide', 'scale', 'spin', 'wiggle', 'bounce', 'pan', 'zoom', 'wipe', 'shake', 'pulse']);
    expect(CATALOGS.text_animations.map((entry) => entry.name)).toEqual(expect.arrayContaining(['typewriter', 'word_pop', 'slide_up_lines']));
    expect(CATALOGS.fonts.map((font) => font.name)).toEqual(FONT_FAMILIES);
  });
});

import { analyzeBrand, cssColourToHex, firstFamily, PageObservations } from './brand-analysis';

const empty: PageObservations = {
  vars: {},
  theme_color: null,
  body_bg: 'rgba(0, 0, 0, 0)',
  html_bg: 'rgba(0, 0, 0, 0)',
  body_color: 'rgb(0, 0, 0)',
  text_colours: {},
  buttons: [],
  cards: [],
  links: [],
  heading_font: null,
  body_font: null,
  logos: [],
  icons: [],
};

describe('brand analysis', () => {
  it('reads computed colours and font stacks', () => {
    expect(cssColourToHex('rgb(230, 57, 70)')).toBe('#e63946');
    expect(cssColourToHex('rgba(230, 57, 70, 0.2)')).toBeNull();
    expect(cssColourToHex('rgb(230 57 70 / 80%)')).toBe('#e63946');
    expect(firstFamily('"Playfair Display", serif')).toBe('Playfair Display');
  });

  it('trusts declared design tokens over what buttons show', () => {
    const kit = analyzeBrand({
      ...empty,
      vars: { '--primary': 'rgb(1, 2, 3)' },
      buttons: [{ bg: 'rgb(200, 0, 0)', color: 'rgb(255, 255, 255)', radius: 0, height: 40, width: 100 }],
    });
    expect(kit.palette.primary).toBe('#010203');
    expect(kit.confidence['palette.primary']).toBe(0.95);
    expect(kit.palette.secondary).toBe('#c80000');
    expect(kit.cornerFeel).toBe('sharp');
  });

  it('leaves out what it cannot tell: no buttons, no logo, no corners', () => {
    const kit = analyzeBrand(empty);
    expect(kit.palette.primary).toBeUndefined();
    expect(kit.logoUrl).toBeNull();
    expect(kit.cornerFeel).toBeNull();
    expect(Object.values(kit.confidence).every((score) => score >= 0.5 && score <= 1)).toBe(true);
  });

  it('calls rounded buttons pill and mildly rounded cards soft, by vote', () => {
    const pill = analyzeBrand({ ...empty, buttons: [1, 2].map(() => ({ bg: 'rgb(0, 0, 255)', color: 'rgb(255, 255, 255)', radius: 20, height: 40, width: 120 })) });
    expect(pill.cornerFeel).toBe('pill');
    const soft = analyzeBrand({ ...empty, cards: [1, 2, 3].map(() => ({ radius: 8, height: 200, width: 300 })) });
    expect(soft.cornerFeel).toBe('soft');
  });
});

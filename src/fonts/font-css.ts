/** One `@font-face` rule of a @fontsource stylesheet, with its woff2 file name (under `files/`). */
export interface CssFontFace {
  family: string;
  style: string;
  weight: string;
  unicodeRange: string;
  file: string;
}

/** Every `@font-face` of a @fontsource stylesheet that has a woff2 file. */
export function fontFacesOfCss(css: string): CssFontFace[] {
  return [...css.matchAll(/@font-face\s*{([^}]*)}/g)].flatMap(([, rule]) => {
    const field = (name: string) => new RegExp(`(?:^|;)\\s*${name}:\\s*([^;]+);`).exec(rule)?.[1].trim() ?? '';
    const file = /url\(\.\/files\/([^)]+\.woff2)\)/.exec(field('src'))?.[1];
    if (!file || file.includes('/') || file.includes('..')) return [];
    return [{ family: field('font-family').replace(/^'(.*)'$/, '$1'), style: field('font-style') || 'normal', weight: field('font-weight') || '400', unicodeRange: field('unicode-range'), file }];
  });
}

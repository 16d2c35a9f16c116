import type { BrandFonts, CornerFeel, Palette, PaletteRole } from './brand-kit.entity';
import type { ExtractedBrand } from './brand-kit.repository';

/** What PAGE_ANALYSIS_SCRIPT reports (computed CSS values as the page has them). */
export interface PageObservations {
  vars: Record<string, string | null>;
  theme_color: string | null;
  body_bg: string;
  html_bg: string;
  body_color: string;
  text_colours: Record<string, number>;
  buttons: { bg: string; color: string; radius: number; height: number; width: number }[];
  cards: { radius: number; height: number; width: number }[];
  links: string[];
  heading_font: string | null;
  body_font: string | null;
  logos: { src: string; named: boolean; inHeader: boolean; linksHome: boolean; width: number }[];
  icons: { href: string; rel: string; sizes: string }[];
}

/** Below this a value is not reported: a missing field says "not confidently extracted". */
export const CONFIDENCE_FLOOR = 0.5;

/** `rgb(…)`/`rgba(…)` → `#rrggbb`; null when transparent-ish or unreadable. */
export function cssColourToHex(css: string | null | undefined): string | null {
  if (!css) return null;
  const match = /^rgba?\(\s*(\d+(?:\.\d+)?)[\s,]+(\d+(?:\.\d+)?)[\s,]+(\d+(?:\.\d+)?)(?:\s*[,/]\s*(\d*\.?\d+)(%?))?\s*\)$/.exec(css.trim());
  if (!match) return null;
  const alpha = match[4] === undefined ? 1 : Number(match[4]) / (match[5] ? 100 : 1);
  if (alpha < 0.5) return null;
  return `#${[match[1], match[2], match[3]].map((v) => Math.round(Math.min(255, Number(v))).toString(16).padStart(2, '0')).join('')}`;
}

/** The first family of a CSS font stack, unquoted. */
export function firstFamily(stack: string | null): string | null {
  const first = stack?.split(',')[0]?.trim().replace(/^["']|["']$/g, '');
  return first ? first : null;
}

function tally(values: (string | null)[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const value of values) if (value) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]);
}

function firstVar(vars: PageObservations['vars'], names: string[]): string | null {
  for (const name of names) {
    const hex = cssColourToHex(vars[name]);
    if (hex) return hex;
  }
  return null;
}

/**
 * Turns observations into a brand kit. Declared design tokens (`--primary`, …) are trusted most,
 * then what the page shows (button fills, link colours, the body's colours), then hints
 * (`theme-color`). Each value carries a confidence; those under CONFIDENCE_FLOOR are dropped.
 */
export function analyzeBrand(page: PageObservations): ExtractedBrand {
  const palette: Palette = {};
  const fonts: BrandFonts = {};
  const confidence: Record<string, number> = {};
  const set = (role: PaletteRole, hex: string | null, score: number) => {
    if (hex && score >= CONFIDENCE_FLOOR && palette[role] === undefined) {
      palette[role] = hex;
      confidence[`palette.${role}`] = round(score);
    }
  };

  const bg = cssColourToHex(page.body_bg) ?? cssColourToHex(page.html_bg);
  set('bg', firstVar(page.vars, ['--bg', '--background', '--color-background']), 0.95);
  set('bg', bg, 0.9);
  // Transparent body and html: the canvas is white.
  set('bg', bg === null ? '#ffffff' : null, 0.6);

  const textTally = Object.entries(page.text_colours)
    .map(([css, chars]) => [cssColourToHex(css), chars] as const)
    .filter((entry): entry is readonly [string, number] => entry[0] !== null);
  const totalChars = textTally.reduce((sum, [, chars]) => sum + chars, 0);
  const byColour = new Map<string, number>();
  for (const [hex, chars] of textTally) byColour.set(hex, (byColour.get(hex) ?? 0) + chars);
  const topText = [...byColour.entries()].sort((a, b) => b[1] - a[1])[0];
  set('ink', firstVar(page.vars, ['--ink', '--text', '--color-text', '--foreground']), 0.95);
  if (topText) set('ink', topText[0], 0.5 + 0.45 * (topText[1] / totalChars));
  set('ink', cssColourToHex(page.body_color), 0.6);

  const background = palette.bg;
  const fills = tally(page.buttons.map((button) => cssColourToHex(button.bg))).filter(([hex]) => hex !== background);
  const buttonCount = page.buttons.length;
  set('primary', firstVar(page.vars, ['--primary', '--color-primary', '--primary-color', '--brand', '--brand-color']), 0.95);
  if (fills[0]) set('primary', fills[0][0], 0.6 + 0.35 * (fills[0][1] / buttonCount));
  set('primary', cssColourToHex(page.theme_color), 0.6);
  set('secondary', firstVar(page.vars, ['--secondary', '--color-secondary', '--secondary-color']), 0.95);
  const secondFill = fills.find(([hex]) => hex !== palette.primary);
  if (secondFill) set('secondary', secondFill[0], 0.5 + 0.3 * (secondFill[1] / buttonCount));
  set('accent', firstVar(page.vars, ['--accent', '--color-accent', '--accent-color']), 0.95);
  const linkColours = tally(page.links.map(cssColourToHex)).filter(([hex]) => hex !== palette.ink && hex !== palette.primary && hex !== palette.bg);
  if (linkColours[0]) set('accent', linkColours[0][0], 0.5 + 0.35 * (linkColours[0][1] / page.links.length));

  const heading = firstFamily(page.heading_font);
  if (heading) {
    fonts.heading = heading;
    confidence['fonts.heading'] = 0.9;
  }
  const body = firstFamily(page.body_font);
  if (body) {
    fonts.body = body;
    confidence['fonts.body'] = 0.85;
  }

  const logo = pickLogo(page);
  if (logo) confidence.logo_url = round(logo.score);

  const corners = cornerFeel(page);
  if (corners) confidence.corner_feel = round(corners.score);

  return { palette, fonts, logoUrl: logo?.url ?? null, cornerFeel: corners?.feel ?? null, confidence };
}

function pickLogo(page: PageObservations): { url: string; score: number } | null {
  const scored = page.logos
    .filter((logo) => /^https?:/.test(logo.src))
    .map((logo) => ({ url: logo.src, score: (logo.named ? 0.55 : 0) + (logo.inHeader ? 0.25 : 0) + (logo.linksHome ? 0.15 : 0) }))
    .sort((a, b) => b.score - a.score);
  if (scored[0] && scored[0].score >= CONFIDENCE_FLOOR) return { url: scored[0].url, score: Math.min(0.95, scored[0].score) };
  const touchIcon = page.icons.find((icon) => icon.rel.includes('apple-touch-icon') && /^https?:/.test(icon.href));
  if (touchIcon) return { url: touchIcon.href, score: 0.5 };
  return null;
}

/** sharp (≤ 2 px), pill (radius ≥ half the height), soft otherwise; by vote of buttons and cards. */
function cornerFeel(page: PageObservations): { feel: CornerFeel; score: number } | null {
  const votes = new Map<CornerFeel, number>();
  const vote = (radius: number, height: number, weight: number) => {
    const feel: CornerFeel = radius <= 2 ? 'sharp' : radius >= height / 2 - 1 ? 'pill' : 'soft';
    votes.set(feel, (votes.get(feel) ?? 0) + weight);
  };
  for (const button of page.buttons) vote(button.radius, button.height, 2);
  for (const card of page.cards) vote(card.radius, Math.min(card.height, card.width), 1);
  const total = [...votes.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const [feel, count] = [...votes.entries()].sort((a, b) => b[1] - a[1])[0];
  const score = 0.4 + 0.55 * (count / total) * Math.min(1, total / 3);
  return score >= CONFIDENCE_FLOOR ? { feel, score } : null;
}

function round(score: number): number {
  return Math.round(Math.min(1, Math.max(0, score)) * 100) / 100;
}

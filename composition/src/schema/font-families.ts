import { distance } from 'fastest-levenshtein';
import type { z } from 'zod';
import { FONT_CATALOGUE } from './font-catalogue';
import type { RenderRequest } from './request';
import { FONT_FAMILIES } from './vocabulary';

/** A Google Fonts family of the catalogue: its name, the @fontsource package id, weights, italic. */
export interface CatalogueFamily {
  family: string;
  id: string;
  weights: readonly number[];
  italic: boolean;
}

const BY_NAME = new Map(FONT_CATALOGUE.map(([family, id, weights, italic]) => [family, { family, id, weights, italic: italic === 1 }]));

/** The catalogue entry of `family` (exact name, as Google Fonts spells it). */
export function catalogueFamily(family: string): CatalogueFamily | undefined {
  return BY_NAME.get(family);
}

/** Every family name of the catalogue, sorted. */
export function catalogueFamilyNames(): string[] {
  return [...BY_NAME.keys()];
}

export function isShippedFamily(family: string): boolean {
  return (FONT_FAMILIES as readonly string[]).includes(family);
}

/**
 * Catalogue families a request draws text in that are not shipped with the service: what a
 * render fetches (once; then they are in storage). Families registered by `fonts` are not.
 */
export function catalogueFamiliesOf(request: Pick<RenderRequest, 'elements' | 'fonts'>): string[] {
  const custom = new Set((request.fonts ?? []).flatMap((font) => (font.family ? [font.family] : [])));
  const families = new Set<string>();
  for (const element of request.elements ?? []) {
    if (element.type !== 'text' || element.font_family === undefined) continue;
    if (!isShippedFamily(element.font_family) && !custom.has(element.font_family) && BY_NAME.has(element.font_family)) families.add(element.font_family);
  }
  return [...families].sort();
}

/** The closest known name by edit distance (case ignored), however far. */
function closestFamily(input: string, candidates: Iterable<string>): string | undefined {
  const needle = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(needle, candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/**
 * Each text element's `font_family` must be shipped, in the catalogue, or registered by `fonts`
 * (a font without `family` is named by its file, known only once fetched: then any name passes
 * here and the render checks it). Unknown: 422 at the field with the closest name as suggestion.
 */
export function checkFontFamilies(request: Pick<RenderRequest, 'elements' | 'fonts'>, ctx: z.RefinementCtx): void {
  const fonts = request.fonts ?? [];
  if (fonts.some((font) => font.family === undefined)) return;
  const custom = fonts.map((font) => font.family!);
  (request.elements ?? []).forEach((element, index) => {
    if (element.type !== 'text' || element.font_family === undefined) return;
    const family = element.font_family;
    if (isShippedFamily(family) || BY_NAME.has(family) || custom.includes(family)) return;
    const suggestion = closestFamily(family, [...custom, ...FONT_FAMILIES, ...BY_NAME.keys()]);
    ctx.addIssue({
      code: 'custom',
      path: ['elements', index, 'font_family'],
      message: `"${family}" is not a shipped family, a Google Fonts family (font_catalogue.families of GET /v1/capabilities) or a family of this request's fonts`,
      params: { type: 'value_error', suggestion },
    });
  });
}

import { jsonPointer } from './suggest';
import { catalogueFamily, catalogueFamilyNames } from './font-families';
import { FONT_FAMILIES, type FontFamily } from './vocabulary';

/**
 * Templates: a string anywhere in a render request may hold `{{name}}` placeholders, replaced by
 * variable values before the request is validated. Names are letters, digits and `_`, in dotted
 * segments (`brand.palette.primary`); spaces inside the braces are allowed (`{{ name }}`).
 * Anything else between braces is left as written, so CSS or prose with braces is untouched.
 * Only string values change: keys and numbers are never templated, so a placeholder cannot
 * change the shape of the document, and the substituted request is validated like any other.
 */
export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g;

/** Variables of a project or a render: name → text put in place of `{{name}}`. */
export type Variables = Record<string, string>;

export interface Placeholder {
  name: string;
  /** RFC 6901 pointer of the string holding it. */
  pointer: string;
}

export type SubstitutionResult<T> = { ok: true; value: T } | { ok: false; missing: Placeholder[] };

export interface SubstituteOptions {
  /** Only names this accepts are replaced (the rest stay as written and are not "missing"). */
  only?: (name: string) => boolean;
  /** Leave placeholders without a value as written instead of reporting them (template checks). */
  keepMissing?: boolean;
}

/** Every placeholder of a document, in document order. */
export function findPlaceholders(document: unknown): Placeholder[] {
  const found: Placeholder[] = [];
  walkStrings(document, [], (text, path) => {
    for (const match of text.matchAll(PLACEHOLDER)) found.push({ name: match[1], pointer: jsonPointer(path) });
    return text;
  });
  return found;
}

/** A copy of `document` with placeholders replaced; the missing ones are reported, with pointers. */
export function substituteVariables<T>(document: T, variables: Variables, options: SubstituteOptions = {}): SubstitutionResult<T> {
  const missing: Placeholder[] = [];
  const value = walkStrings(document, [], (text, path) =>
    text.replace(PLACEHOLDER, (whole, name: string) => {
      if (options.only && !options.only(name)) return whole;
      if (Object.prototype.hasOwnProperty.call(variables, name)) return variables[name];
      if (!options.keepMissing) missing.push({ name, pointer: jsonPointer(path) });
      return whole;
    }),
  ) as T;
  return missing.length > 0 ? { ok: false, missing } : { ok: true, value };
}

function walkStrings(value: unknown, path: (string | number)[], visit: (text: string, path: (string | number)[]) => string): unknown {
  if (typeof value === 'string') return visit(value, path);
  if (Array.isArray(value)) return value.map((item, index) => walkStrings(item, [...path, index], visit));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = walkStrings(item, [...path, key], visit);
    return copy;
  }
  return value;
}

/** Variables a brand kit provides, named `brand.…` (only the fields it extracted). */
export interface BrandVariableSource {
  palette?: Partial<Record<'primary' | 'secondary' | 'accent' | 'bg' | 'ink', string>>;
  /** `files`: the kit's font files (uploaded fonts); their families are used as they are. */
  fonts?: Partial<Record<'heading' | 'body', string>> & { files?: { family: string }[] };
  logo_url?: string | null;
  corner_feel?: string | null;
}

export interface BrandFontFallback {
  field: 'heading' | 'body';
  requested: string;
  used: string;
}

/**
 * `brand.palette.primary`, `brand.fonts.heading`, `brand.logo_url`, `brand.corner_feel`, … . A font
 * stack's first family of the kit's font files, shipped or Google Fonts is used as it is; otherwise the nearest shipped
 * family, and each swap is reported.
 */
export function brandVariables(kit: BrandVariableSource): { variables: Variables; fallbacks: BrandFontFallback[] } {
  const variables: Variables = {};
  const fallbacks: BrandFontFallback[] = [];
  for (const [name, colour] of Object.entries(kit.palette ?? {})) if (colour) variables[`brand.palette.${name}`] = colour;
  for (const field of ['heading', 'body'] as const) {
    const requested = kit.fonts?.[field];
    if (!requested) continue;
    const used = usableFontFamily(requested, (kit.fonts?.files ?? []).map((file) => file.family));
    variables[`brand.fonts.${field}`] = used;
    if (!fontStackNames(requested).some((name) => name.toLowerCase() === used.toLowerCase())) fallbacks.push({ field, requested, used });
  }
  if (kit.logo_url) variables['brand.logo_url'] = kit.logo_url;
  if (kit.corner_feel) variables['brand.corner_feel'] = kit.corner_feel;
  return { variables, fallbacks };
}

/**
 * The first family of a name or CSS font stack that a render can draw (one of `own`, the kit's
 * font files, shipped or Google Fonts), else the nearest shipped one.
 */
export function usableFontFamily(requested: string, own: string[] = []): string {
  for (const name of fontStackNames(requested)) {
    const file = own.find((family) => family.toLowerCase() === name.toLowerCase());
    if (file) return file;
    const shipped = FONT_FAMILIES.find((family) => family.toLowerCase() === name.toLowerCase());
    if (shipped) return shipped;
    const catalogued = catalogueFamily(name) ?? catalogueFamilyNames().map((family) => catalogueFamily(family)!).find((entry) => entry.family.toLowerCase() === name.toLowerCase());
    if (catalogued) return catalogued.family;
  }
  return nearestFontFamily(requested);
}

function fontStackNames(requested: string): string[] {
  return requested.split(',').map((part) => part.trim().replace(/^["']|["']$/g, '')).filter(Boolean);
}

const SERIF_HINT = /serif|times|georgia|garamond|playfair|merriweather|baskerville|didot|bodoni|lora|caslon/i;
const MONO_HINT = /mono|code|courier|consolas|menlo/i;
const CONDENSED_HINT = /condensed|narrow|oswald|bebas|anton|league gothic|impact|compressed/i;
const GEOMETRIC_HINT = /montserrat|futura|gotham|poppins|avenir|proxima|raleway|geometric/i;

/**
 * The shipped family closest to a font name or CSS font stack: an exact family from the stack
 * first, then by style (serif, monospace, condensed, geometric), else Inter.
 */
export function nearestFontFamily(requested: string): FontFamily {
  const stack = fontStackNames(requested);
  for (const name of stack) {
    const exact = FONT_FAMILIES.find((family) => family.toLowerCase() === name.toLowerCase());
    if (exact) return exact;
  }
  const first = stack[0] ?? '';
  if (MONO_HINT.test(first)) return 'Roboto Mono';
  if (/sans/i.test(first)) return 'Inter';
  if (SERIF_HINT.test(first)) return 'Playfair Display';
  if (CONDENSED_HINT.test(first)) return 'Oswald';
  if (GEOMETRIC_HINT.test(first)) return 'Montserrat';
  if (stack.some((name) => name.toLowerCase() === 'monospace')) return 'Roboto Mono';
  if (stack.some((name) => name.toLowerCase() === 'serif')) return 'Playfair Display';
  return 'Inter';
}

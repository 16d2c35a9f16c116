/**
 * Fallback fonts by script: what draws the characters the chosen family lacks, so no glyph is a
 * box. The faces are @fontsource packages bundled like the shipped families (fonts.ts; the npm
 * package registers them from JS), so the server's Chromium and a user's browser load the same
 * files. Colour emoji come from the platform's colour font (Debian's Noto Color Emoji on the
 * server): no web-font build of it draws in colour in Chromium (docs/decisions/0140).
 */
export const SCRIPT_FALLBACKS = [
  // Latin, Greek, Cyrillic, Vietnamese for families that lack them (Lato has no Greek, …).
  { family: 'Inter', script: 'Latin, Greek, Cyrillic' },
  { family: 'Noto Sans Arabic', script: 'Arabic' },
  { family: 'Noto Sans Hebrew', script: 'Hebrew' },
  { family: 'Noto Sans Devanagari', script: 'Devanagari' },
  { family: 'Noto Sans Thai', script: 'Thai' },
  { family: 'Noto Sans SC', script: 'Chinese' },
  { family: 'Noto Sans JP', script: 'Japanese' },
  { family: 'Noto Sans KR', script: 'Korean' },
] as const;

/** Colour emoji fonts, in order: the server's (Debian), then the usual ones of macOS/iOS and Windows. */
export const EMOJI_FAMILIES = ['Noto Color Emoji', 'Apple Color Emoji', 'Segoe UI Emoji'] as const;

/** Weights the fallback faces ship (others use the nearest by CSS font matching). */
export const FALLBACK_WEIGHTS = [400, 700] as const;

const KANA = /[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]/;
const HANGUL = /[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff]/;

/**
 * The CSS `font-family` list for `family` drawing `text`: the family, then the script fallbacks,
 * then colour emoji. Han characters are shared by Chinese, Japanese and Korean with different
 * glyph shapes, so text with kana puts the Japanese face first, text with Hangul the Korean one.
 */
export function fontStack(family: string, text: string): string {
  const cjk = KANA.test(text) ? ['Noto Sans JP', 'Noto Sans SC', 'Noto Sans KR'] : HANGUL.test(text) ? ['Noto Sans KR', 'Noto Sans SC', 'Noto Sans JP'] : ['Noto Sans SC', 'Noto Sans JP', 'Noto Sans KR'];
  const others = SCRIPT_FALLBACKS.map((fallback) => fallback.family).filter((name) => !name.startsWith('Noto Sans ') || !/ (SC|JP|KR)$/.test(name));
  const families = [family, ...others, ...cjk, ...EMOJI_FAMILIES].filter((name, index, all) => all.indexOf(name) === index);
  return [...families.map((name) => JSON.stringify(name)), 'sans-serif'].join(', ');
}

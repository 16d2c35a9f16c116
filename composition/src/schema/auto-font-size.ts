import type { TextElement } from './elements';
import { estimateTextExtent, fitFontSize, type FittedSize } from './fit-text';
import { parsePercent } from './primitives';
import { resolveBox, type Canvas, type MediaInfo } from './resolve';

/**
 * The size `font_size: "auto"` is expected to choose, estimated without a browser (the dry run's
 * timeline and the overflow warning); null for other sizes or without a box. The page measures
 * the real glyphs, so the drawn size may differ a little.
 */
export function estimatedAutoFontSize(element: TextElement, canvas: Canvas, media: Record<string, MediaInfo>): FittedSize | null {
  if (element.font_size !== 'auto') return null;
  const box = resolveBox(element, canvas, media);
  if (box.width === null || box.height === null) return null;
  const lineHeight = element.line_height ?? 1.2;
  const spacing = element.letter_spacing ?? 0;
  const max = element.max_font_size ?? box.height;
  const measure = estimateTextExtent(transformed(element), {
    width: box.width,
    lineHeight: typeof lineHeight === 'number' ? lineHeight : parsePercent(lineHeight) / 100,
    letterSpacingEm: typeof spacing === 'number' ? spacing / max : parsePercent(spacing) / 100,
    wrap: element.text_wrap ?? true,
  });
  return fitFontSize(measure, { width: box.width, height: box.height }, element.min_font_size ?? 8, max);
}

function transformed(element: TextElement): string {
  const text = element.text ?? '';
  return element.text_transform === 'uppercase' ? text.toUpperCase() : text;
}

/**
 * `font_size: "auto"`: the largest size, on a quarter-pixel grid between min and max, at which the
 * text fits its box. `measure` lays the text out at a size (the page measures the DOM; the dry run
 * estimates); sizes are searched by bisection, assuming a larger size never takes less room.
 */
export interface TextExtent {
  width: number;
  height: number;
}

export interface FittedSize {
  size: number;
  /** Even `min` overflows the box (the text is drawn at `min`). */
  overflows: boolean;
}

/** Room a laid-out text may exceed its box by: sub-pixel rounding of the layout. */
const SLACK = 0.5;

export function fitFontSize(measure: (size: number) => TextExtent, box: TextExtent, min: number, max: number): FittedSize {
  const fits = (quarter: number) => {
    const extent = measure(quarter / 4);
    return extent.width <= box.width + SLACK && extent.height <= box.height + SLACK;
  };
  let low = Math.ceil(min * 4);
  let high = Math.max(low, Math.floor(max * 4));
  if (fits(high)) return { size: high / 4, overflows: false };
  if (!fits(low)) return { size: low / 4, overflows: true };
  // low fits, high does not.
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return { size: low / 4, overflows: false };
}

// Share of the font size a character takes, roughly: wide (CJK, emoji) and the rest.
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|\p{Extended_Pictographic}/u;

/**
 * Without a browser (the dry run): the text wrapped greedily at spaces in `width`, each character
 * 0.55 em wide (1 em for CJK and emoji), lines `lineHeight` em apart. An estimate: the page
 * measures the real glyphs.
 */
export function estimateTextExtent(text: string, options: { width: number; lineHeight: number; letterSpacingEm: number; wrap: boolean }) {
  return (size: number): TextExtent => {
    const advance = (word: string) => [...word].reduce((sum, char) => sum + (WIDE.test(char) ? 1 : 0.55) + options.letterSpacingEm, 0) * size;
    let lines = 0;
    let widest = 0;
    for (const paragraph of text.split('\n')) {
      let line = 0;
      lines += 1;
      for (const word of paragraph.split(/(?<= )/)) {
        const room = advance(word);
        const trimmed = advance(word.trimEnd());
        if (options.wrap && line > 0 && line + trimmed > options.width) {
          lines += 1;
          line = 0;
        }
        widest = Math.max(widest, line + trimmed);
        line += room;
      }
    }
    return { width: widest, height: lines * options.lineHeight * size };
  };
}

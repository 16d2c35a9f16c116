import { estimateTextExtent, fitFontSize } from './fit-text';

describe('fitFontSize', () => {
  // A text 10 em wide on one line: fits when 10 * size <= box width.
  const oneLine = (size: number) => ({ width: 10 * size, height: 1.2 * size });

  it('takes the largest quarter-pixel size that fits', () => {
    expect(fitFontSize(oneLine, { width: 203, height: 100 }, 8, 60)).toEqual({ size: 20.25, overflows: false });
  });

  it('keeps max when it fits and says when even min overflows', () => {
    expect(fitFontSize(oneLine, { width: 1000, height: 100 }, 8, 40)).toEqual({ size: 40, overflows: false });
    expect(fitFontSize(oneLine, { width: 50, height: 100 }, 8, 40)).toEqual({ size: 8, overflows: true });
  });
});

describe('estimateTextExtent', () => {
  it('wraps longer text onto more lines, so it fits at a smaller size', () => {
    const box = { width: 200, height: 60 };
    const measure = (text: string) => estimateTextExtent(text, { width: box.width, lineHeight: 1.2, letterSpacingEm: 0, wrap: true });
    const short = fitFontSize(measure('Sale'), box, 8, 60);
    const long = fitFontSize(measure('Everything in the store is half price until Sunday evening'), box, 8, 60);
    expect(short.size).toBeGreaterThan(long.size);
    expect(long.overflows).toBe(false);
  });
});

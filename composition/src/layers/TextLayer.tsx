import type React from 'react';
import { useLayoutEffect, useRef, useState } from 'react';
import { useDelayRender } from 'remotion';
import { AnimatedText } from '../motion/text-animation';
import type { ResolvedText } from '../schema';
import { fitFontSize } from '../schema/fit-text';
import { CaptionText } from './CaptionText';
import { ElementBox } from './ElementBox';

const JUSTIFY = { top: 'flex-start', center: 'center', bottom: 'flex-end' } as const;

/**
 * Text wrapped in its box (or sized to fit it). The frame waits until the font face for this
 * text is loaded, so the first frames never show a fallback font.
 */
export const TextLayer: React.FC<{ element: ResolvedText }> = ({ element }) => {
  const { style } = element;
  const { delayRender, continueRender } = useDelayRender();
  const font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize}px ${style.fontStack}`;
  const content = useRef<HTMLDivElement>(null);
  const [fitted, setFitted] = useState<number | null>(null);
  const { width, height } = element.box;
  useLayoutEffect(() => {
    const handle = delayRender(`Loading font ${font}`);
    // A face that fails to load falls back to another font rather than failing the render.
    document.fonts.load(font, element.text).finally(() => {
      // font_size "auto": measured once the faces are in, applied to the DOM before the frame is
      // released (the state keeps React's next render in step).
      if (style.fit && content.current && width !== null && height !== null) setFitted(fitInPage(content.current, style.fit, { width, height }));
      continueRender(handle);
    });
  }, [font, element.text, style.fit, width, height, delayRender, continueRender]);
  const fontSize = style.fit ? (fitted ?? style.fontSize) : style.fontSize;

  const hasBox = element.box.width !== null || element.box.height !== null;
  return (
    <ElementBox box={element.box} timing={element}>
      <div
        style={{
          display: 'flex',
          flexDirection: 'column',
          justifyContent: JUSTIFY[style.yAlignment],
          width: hasBox ? '100%' : undefined,
          height: hasBox ? '100%' : undefined,
          textAlign: style.xAlignment,
          fontFamily: style.fontStack,
          fontSize,
          fontWeight: style.fontWeight,
          fontStyle: style.fontStyle,
          color: style.color,
          lineHeight: style.lineHeight,
          letterSpacing: style.letterSpacing,
          textTransform: style.textTransform,
          whiteSpace: style.wrap ? 'pre-wrap' : 'pre',
          overflowWrap: 'break-word',
          // The stroke is drawn twice as wide under the fill, so stroke_width shows outside the glyphs.
          WebkitTextStroke: style.strokeColor ? `${2 * style.strokeWidth}px ${style.strokeColor}` : undefined,
          paintOrder: 'stroke fill',
        }}
      >
        {/* Each paragraph takes its direction from its first strong character: Arabic and Hebrew read
            right to left, with Latin words and digits inside them as readers expect. unicode-bidi is
            not inherited: it goes on the block that holds the text. */}
        <div ref={content} style={{ unicodeBidi: 'plaintext' }}>
          <span
            style={
              style.backgroundColor
                ? {
                    backgroundColor: style.backgroundColor,
                    padding: `${style.backgroundYPadding}px ${style.backgroundXPadding}px`,
                    borderRadius: style.backgroundBorderRadius,
                    boxDecorationBreak: 'clone',
                    WebkitBoxDecorationBreak: 'clone',
                  }
                : undefined
            }
          >
            {element.captions ? (
              <CaptionText element={element} captions={element.captions} />
            ) : element.animation?.text ? (
              <AnimatedText element={element} animation={element.animation.text} />
            ) : (
              element.text
            )}
          </span>
        </div>
      </div>
    </ElementBox>
  );
};

/**
 * The largest size at which the text in `content` (the block inside the box's flex column) fits
 * the box: words are not broken while measuring, so a size where a word overflows is too large.
 * Leaves the chosen size on the column.
 */
function fitInPage(content: HTMLDivElement, fit: { min: number; max: number }, box: { width: number; height: number }): number {
  const column = content.parentElement!;
  const { overflowWrap: wrap, textAlign: align } = column.style;
  column.style.overflowWrap = 'normal';
  // Left-aligned while measuring: a centred line overflows both sides, and scrollWidth sees only the right.
  column.style.textAlign = 'left';
  // scrollWidth and scrollHeight are whole pixels (and never less than the block's own width): the
  // text is measured a pixel narrower and lower than its box, so the fitted size never wraps mid-word.
  const room = { width: Math.max(1, box.width - 1), height: Math.max(1, box.height - 1) };
  content.style.width = `${room.width}px`;
  const { size } = fitFontSize(
    (candidate) => {
      column.style.fontSize = `${candidate}px`;
      return { width: content.scrollWidth, height: content.scrollHeight };
    },
    room,
    fit.min,
    fit.max,
  );
  column.style.overflowWrap = wrap;
  column.style.textAlign = align;
  content.style.width = '';
  column.style.fontSize = `${size}px`;
  return size;
}

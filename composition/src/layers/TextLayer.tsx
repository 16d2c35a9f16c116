import type React from 'react';
import { useLayoutEffect } from 'react';
import { useDelayRender } from 'remotion';
import { AnimatedText } from '../motion/text-animation';
import type { ResolvedText } from '../schema';
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
  useLayoutEffect(() => {
    const handle = delayRender(`Loading font ${font}`);
    // A face that fails to load falls back to another font rather than failing the render.
    document.fonts.load(font, element.text).finally(() => continueRender(handle));
  }, [font, element.text, delayRender, continueRender]);

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
          fontSize: style.fontSize,
          fontWeight: style.fontWeight,
          fontStyle: style.fontStyle,
          color: style.color,
          lineHeight: style.lineHeight,
          letterSpacing: style.letterSpacing,
          textTransform: style.textTransform,
          whiteSpace: style.wrap ? 'pre-wrap' : 'pre',
          // Each paragraph takes its direction from its first strong character: Arabic and Hebrew
          // read right to left, with Latin words and digits placed inside them as readers expect.
          unicodeBidi: 'plaintext',
          overflowWrap: 'break-word',
          // The stroke is drawn twice as wide under the fill, so stroke_width shows outside the glyphs.
          WebkitTextStroke: style.strokeColor ? `${2 * style.strokeWidth}px ${style.strokeColor}` : undefined,
          paintOrder: 'stroke fill',
        }}
      >
        <div>
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

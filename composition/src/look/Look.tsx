import type React from 'react';
import { useCurrentFrame, useVideoConfig } from 'remotion';
import type { VisualElement } from '../schema/elements';
import { effectsStyle } from './effects';
import { activeEffects, frameLook, maskAt, maskSvg } from './resolve-look';

/**
 * Everything drawn around an element's content, inside its ElementBox (so it moves, turns and
 * fades with it), outside in:
 * - `shake` (a transform of all below), then the backdrop blur (a sibling behind the content, so
 *   that no filter of the element hides the layers below from it),
 * - the catalog effects and the shadow (CSS/SVG filters: the shadow follows the drawn pixels,
 *   e.g. the glyphs of a text or the rounded corners of a frame),
 * - the mask (mask-image of the element box),
 * - the crop window with its rounded corners and border, the content at its place in the box.
 * `clip: true` cuts all of it to the element box. Nothing is wrapped when none of these fields is set.
 */
export const Look: React.FC<{
  element: VisualElement;
  /** Element box in px; null for a text that fits its content. */
  width: number | null;
  height: number | null;
  /** Unique per element (ids of SVG filters, seeds). */
  lookKey: string;
  children: React.ReactNode;
}> = ({ element, width, height, lookKey, children }) => {
  const frame = useCurrentFrame();
  const { fps, width: canvasWidth, height: canvasHeight } = useVideoConfig();
  const seconds = frame / fps;
  const look = frameLook(element, width, height);
  const fx = effectsStyle(activeEffects(element, seconds), { frame, canvasWidth, canvasHeight, key: lookKey, pictureOnCanvas: element.type === 'video' || element.type === 'image' });
  // Text that fits its content has no size here: its mask is drawn on a 100x100 box stretched to the text.
  const sized = width !== null && height !== null;
  const mw = width ?? 100;
  const mh = height ?? 100;
  const mask = maskAt(element, mw, mh, seconds);
  const { crop } = look;
  const cropped = crop.top > 0 || crop.right > 0 || crop.bottom > 0 || crop.left > 0;
  const framed = cropped || look.borderRadius > 0 || look.borderWidth > 0;
  const filter = [fx.filter, look.shadow].filter(Boolean).join(' ') || undefined;
  // The colour field `blur` (video, image): the picture itself, inside its frame.
  const blur = element.type === 'video' || element.type === 'image' ? (element.blur ?? 0) : 0;
  const clip = element.clip === true;
  if (!framed && !filter && !fx.transform && !mask && look.backdropBlur === 0 && blur === 0) {
    return clip ? <div style={{ position: 'relative', ...(sized ? { width: '100%', height: '100%' } : {}), overflow: 'hidden' }}>{children}</div> : <>{children}</>;
  }
  const content = blur > 0 ? <div style={{ ...(sized ? { width: '100%', height: '100%' } : {}), filter: `blur(${blur}px)` }}>{children}</div> : children;

  const fill: React.CSSProperties = sized ? { position: 'relative', width: '100%', height: '100%' } : { position: 'relative' };
  const maskImage = mask ? `url("data:image/svg+xml,${encodeURIComponent(maskSvg(mask, mw, mh))}")` : undefined;
  const maskStyle: React.CSSProperties = maskImage
    ? { maskImage, WebkitMaskImage: maskImage, maskSize: '100% 100%', WebkitMaskSize: '100% 100%', maskRepeat: 'no-repeat', WebkitMaskRepeat: 'no-repeat' }
    : {};
  const cropWindow: React.CSSProperties = {
    position: 'absolute',
    left: crop.left,
    top: crop.top,
    width: Math.max(0, (width ?? 0) - crop.left - crop.right),
    height: Math.max(0, (height ?? 0) - crop.top - crop.bottom),
    borderRadius: look.borderRadius,
  };
  const drawn = (
    <div style={{ ...fill, transform: fx.transform }}>
      {look.backdropBlur > 0 && sized ? (
        <div style={{ ...maskStyle, position: 'absolute', inset: 0 }}>
          <div style={{ ...cropWindow, backdropFilter: `blur(${look.backdropBlur}px)`, WebkitBackdropFilter: `blur(${look.backdropBlur}px)` }} />
        </div>
      ) : null}
      {fx.defs.length > 0 ? (
        <svg width={0} height={0} style={{ position: 'absolute' }} aria-hidden>
          <defs>{fx.defs}</defs>
        </svg>
      ) : null}
      <div style={{ ...fill, filter }}>
        <div style={{ ...fill, ...maskStyle }}>
          {framed && sized ? (
            <div style={{ ...cropWindow, overflow: 'hidden' }}>
              <div style={{ position: 'absolute', left: -crop.left, top: -crop.top, width: width!, height: height! }}>{content}</div>
              {look.borderWidth > 0 ? (
                <div
                  style={{
                    position: 'absolute',
                    inset: 0,
                    borderRadius: look.borderRadius,
                    border: `${look.borderWidth}px solid ${look.borderColor}`,
                    boxSizing: 'border-box',
                  }}
                />
              ) : null}
            </div>
          ) : (
            content
          )}
        </div>
      </div>
    </div>
  );
  // clip: nothing the element draws (shadow, glow, shake) leaves its box.
  return clip ? <div style={{ ...fill, overflow: 'hidden' }}>{drawn}</div> : drawn;
};

/**
 * An element's blend mode: the whole element (as drawn by its ElementBox) is mixed with the
 * layers below it with CSS mix-blend-mode (the W3C compositing formulas, in sRGB).
 */
export const Blend: React.FC<{ element: VisualElement; zIndex?: number; children: React.ReactNode }> = ({ element, zIndex, children }) => {
  const mode = element.blend_mode;
  if (!mode || mode === 'normal') return <>{children}</>;
  // The element's paint order (motion/element-style.ts) moves out here: the blend isolates what is inside.
  return <div style={{ position: 'absolute', inset: 0, zIndex, mixBlendMode: mode.replace('_', '-') as React.CSSProperties['mixBlendMode'] }}>{children}</div>;
};

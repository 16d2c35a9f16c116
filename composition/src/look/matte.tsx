import type React from 'react';
import { useLayoutEffect } from 'react';
import { useCurrentFrame, useDelayRender, useVideoConfig } from 'remotion';
import { fadeMultiplier } from '../motion/fades';
import { motionsState } from '../motion/element-motion';
import type { ResolvedElement, VisualElement } from '../schema';
import { anchorPixels } from '../schema/resolve';

/**
 * Track mattes (`matte: {source, mode, invert}`): the source element shapes the target and is not
 * drawn itself. The source is redrawn as SVG inside an SVG `<mask>` in canvas coordinates (its
 * place, anchor, rotation, scale, opacity and fades, following it over time), and the target (as
 * its ElementBox draws it) is masked by it:
 * - `alpha` (default): the target shows where the source has pixels, as much as their alpha;
 * - `luma`: as much as the source's brightness (Rec. 709 luma × alpha);
 * - `invert`: the opposite (where the source is not, or dark).
 * Shapes and images are redrawn exactly; a text on one line per `\n` without wrapping (aligned by
 * its anchor); a video as its box (an opaque rectangle: findViolations warns). x/y rotations
 * foreshorten the source as a scale. The source's `motion` moves the matte (not its groups, its
 * transitions or its clip). Outside its own time on the timeline the source is absent.
 */
export const Matte: React.FC<{
  target: ResolvedElement;
  targetRaw: VisualElement;
  source: ResolvedElement | null;
  canvas: { width: number; height: number };
  load: (url: string) => string;
  /** The element's paint order (motion/element-style.ts): the mask isolates what is inside. */
  zIndex?: number;
  children: React.ReactNode;
}> = ({ target, targetRaw, source, canvas, load, zIndex, children }) => {
  const frame = useCurrentFrame() + target.from;
  const matte = targetRaw.matte;
  if (!matte) return <>{children}</>;
  const id = `vrs-matte-${target.index}`;
  const luma = matte.mode === 'luma';
  const invert = matte.invert === true;
  const live = source && source.type !== 'audio' && frame >= source.from && frame < source.from + source.durationInFrames ? source : null;
  return (
    <>
      <svg width={0} height={0} style={{ position: 'absolute' }} aria-hidden>
        <defs>
          <filter id={`${id}-white`} colorInterpolationFilters="sRGB">
            <feColorMatrix type="matrix" values={invert ? '0 0 0 0 0  0 0 0 0 0  0 0 0 0 0  0 0 0 1 0' : '0 0 0 0 1  0 0 0 0 1  0 0 0 0 1  0 0 0 1 0'} />
          </filter>
          <filter id={`${id}-luma`} colorInterpolationFilters="sRGB">
            <feColorMatrix
              type="matrix"
              values={invert ? '-0.2126 -0.7152 -0.0722 0 1  -0.2126 -0.7152 -0.0722 0 1  -0.2126 -0.7152 -0.0722 0 1  0 0 0 1 0' : '0.2126 0.7152 0.0722 0 0  0.2126 0.7152 0.0722 0 0  0.2126 0.7152 0.0722 0 0  0 0 0 1 0'}
            />
          </filter>
          <mask id={id} maskUnits="userSpaceOnUse" x={0} y={0} width={canvas.width} height={canvas.height} style={{ maskType: 'luminance' }}>
            <rect width={canvas.width} height={canvas.height} fill={invert ? '#fff' : '#000'} />
            {live ? <MatteSource source={live} frame={frame - live.from} filter={`url(#${id}-${luma ? 'luma' : 'white'})`} load={load} /> : null}
          </mask>
        </defs>
      </svg>
      <div style={{ position: 'absolute', inset: 0, zIndex, mask: `url(#${id})`, WebkitMask: `url(#${id})` }}>{children}</div>
    </>
  );
};

const MatteSource: React.FC<{ source: ResolvedElement; frame: number; filter: string; load: (url: string) => string }> = ({ source, frame, filter, load }) => {
  const { delayRender, continueRender } = useDelayRender();
  const { fps } = useVideoConfig();
  const href = source.type === 'image' ? load(source.src) : null;
  useLayoutEffect(() => {
    if (!href) return;
    // The mask's <image> is not waited for by Remotion: load it first.
    const handle = delayRender(`Loading matte image ${href}`);
    const image = new Image();
    image.onload = image.onerror = () => continueRender(handle);
    image.src = href;
    return () => continueRender(handle);
  }, [href, delayRender, continueRender]);
  if (source.type === 'audio') return null;
  const box = source.box;
  const width = box.width ?? 0;
  const height = box.height ?? 0;
  const ax = box.width === null ? 0 : anchorPixels(box.xAnchor, width);
  const ay = box.height === null ? 0 : anchorPixels(box.yAnchor, height);
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const scaleX = box.scaleX * Math.cos(radians(box.yRotation));
  const scaleY = box.scaleY * Math.cos(radians(box.xRotation));
  // The source's own motion presets and keyframes move the matte with it (its groups do not).
  const motion = motionsState(source.animation?.motions ?? [], frame / fps);
  const moveX = motion.x.px + (motion.x.percent / 100) * width;
  const moveY = motion.y.px + (motion.y.percent / 100) * height;
  const transform = `translate(${box.x + moveX} ${box.y + moveY}) rotate(${box.zRotation + motion.rotation}) scale(${scaleX * motion.scaleX} ${scaleY * motion.scaleY}) translate(${-ax} ${-ay})`;
  const opacity = box.opacity * fadeMultiplier(frame, source) * motion.opacity;
  let drawn: React.ReactNode;
  switch (source.type) {
    case 'shape':
      drawn =
        source.shape === 'ellipse' ? (
          <ellipse cx={width / 2} cy={height / 2} rx={width / 2} ry={height / 2} fill={source.fillColor} />
        ) : (
          <rect width={width} height={height} rx={source.borderRadius} ry={source.borderRadius} fill={source.fillColor} />
        );
      break;
    case 'image':
      drawn = (
        <image
          href={href!}
          width={width}
          height={height}
          preserveAspectRatio={source.fit === 'fill' ? 'none' : source.fit === 'contain' ? 'xMidYMid meet' : 'xMidYMid slice'}
        />
      );
      break;
    case 'video':
      drawn = <rect width={width} height={height} fill="#fff" />;
      break;
    case 'text': {
      const style = source.style;
      const lines = source.text.split('\n');
      const anchorShare = box.xAnchor.unit === '%' ? box.xAnchor.value / 100 : 0;
      const textAnchor = box.width !== null ? ({ left: 'start', center: 'middle', right: 'end' } as const)[style.xAlignment] : anchorShare < 0.25 ? 'start' : anchorShare > 0.75 ? 'end' : 'middle';
      const x = box.width !== null ? { start: 0, middle: width / 2, end: width }[textAnchor] : 0;
      const lineHeight = style.fontSize * style.lineHeight;
      const yShare = box.yAnchor.unit === '%' ? box.yAnchor.value / 100 : 0;
      const top = box.height !== null ? 0 : -yShare * lineHeight * lines.length;
      drawn = (
        <text
          fontFamily={style.fontStack}
          fontSize={style.fontSize}
          fontWeight={style.fontWeight}
          fontStyle={style.fontStyle}
          letterSpacing={style.letterSpacing}
          fill={style.color}
          textAnchor={textAnchor}
        >
          {lines.map((line, i) => (
            <tspan key={i} x={x} y={top + lineHeight * i + (lineHeight + style.fontSize * 0.7) / 2}>
              {style.textTransform === 'uppercase' ? line.toUpperCase() : style.textTransform === 'lowercase' ? line.toLowerCase() : line}
            </tspan>
          ))}
        </text>
      );
      break;
    }
  }
  return (
    <g transform={transform} opacity={opacity} filter={filter}>
      {drawn}
    </g>
  );
};

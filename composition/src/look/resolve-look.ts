import { easingFunction } from '../motion/easing';
import type { VisualElement } from '../schema/elements';
import { parsePercent, toFraction } from '../schema/primitives';

/**
 * The "crop and frame", "compositing" and `effects` fields of one element as pixel numbers and
 * per-frame values. Pure: the components in this folder draw what these functions return, and
 * the unit tests check them without a browser.
 */

type Length = number | string;

function pixels(value: Length | undefined, reference: number, fallback = 0): number {
  if (value === undefined) return fallback;
  return typeof value === 'number' ? value : (parsePercent(value) / 100) * reference;
}

export interface FrameLook {
  /** Pixels cut from each side of the element box (not drawn; the box keeps its place). */
  crop: { top: number; right: number; bottom: number; left: number };
  borderRadius: number;
  borderWidth: number;
  borderColor: string;
  /** CSS drop-shadow() value or null. */
  shadow: string | null;
  backdropBlur: number;
}

/** Crop, border, shadow and backdrop blur; `width`/`height` are the element box in px (null: text fits its content). */
export function frameLook(element: VisualElement, width: number | null, height: number | null): FrameLook {
  const w = width ?? 0;
  const h = height ?? 0;
  const has = <K extends string>(key: K): Partial<Record<K, unknown>> => (key in element ? (element as unknown as Record<K, unknown>) : {});
  const f = { ...has('crop_top'), ...has('crop_bottom'), ...has('crop_left'), ...has('crop_right'), ...has('border_radius'), ...has('border_width'), ...has('border_color'), ...has('backdrop_blur') } as {
    crop_top?: Length; crop_bottom?: Length; crop_left?: Length; crop_right?: Length; border_radius?: number; border_width?: number; border_color?: string; backdrop_blur?: number;
  };
  const isShape = element.type === 'shape';
  const crop = {
    top: Math.min(h, pixels(f.crop_top, h)),
    bottom: Math.min(h, pixels(f.crop_bottom, h)),
    left: Math.min(w, pixels(f.crop_left, w)),
    right: Math.min(w, pixels(f.crop_right, w)),
  };
  const shadowColor = element.shadow_color;
  const shadowSet = shadowColor !== undefined || element.shadow_blur !== undefined || element.shadow_x !== undefined || element.shadow_y !== undefined;
  return {
    crop,
    // A shape's border_radius rounds the shape itself (ShapeLayer), not a frame around it.
    borderRadius: isShape ? 0 : (f.border_radius ?? 0),
    borderWidth: f.border_width ?? (f.border_color !== undefined ? 1 : 0),
    borderColor: f.border_color ?? '#000000',
    shadow: shadowSet ? `drop-shadow(${element.shadow_x ?? 0}px ${element.shadow_y ?? 0}px ${element.shadow_blur ?? 0}px ${shadowColor ?? '#000000bf'})` : null,
    backdropBlur: f.backdrop_blur ?? 0,
  };
}

export interface MaskState {
  shape: 'rectangle' | 'rounded_rectangle' | 'ellipse' | 'circle';
  /** Soft edge width, px. */
  feather: number;
  /** Factor of the element box (1 = the shape fills the box). */
  scale: number;
  /** Centre in element-box px. */
  centerX: number;
  centerY: number;
}

/**
 * The mask at `seconds` from the element start: `mask` (or its defaults), overridden by
 * `mask_keyframes` interpolated between neighbours. The easing of a keyframe shapes the change
 * that arrives at it (from the keyframe before); before the first keyframe its values hold, after
 * the last one the last values hold. Null when the element has no mask.
 */
export function maskAt(element: VisualElement, width: number, height: number, seconds: number): MaskState | null {
  if (element.mask_shape === undefined && element.mask === undefined && !(element.mask_keyframes && element.mask_keyframes.length > 0)) return null;
  const base = {
    feather: element.mask?.feather ?? 0,
    scale: element.mask?.scale === undefined ? 1 : parsePercent(element.mask.scale) / 100,
    centerX: pixels(element.mask?.center?.x, width, width / 2),
    centerY: pixels(element.mask?.center?.y, height, height / 2),
  };
  const keyframes = [...(element.mask_keyframes ?? [])].sort((a, b) => a.time - b.time);
  const valuesOf = (keyframe: (typeof keyframes)[number], previous: typeof base) => ({
    feather: keyframe.feather ?? previous.feather,
    scale: keyframe.scale === undefined ? previous.scale : parsePercent(keyframe.scale) / 100,
    centerX: keyframe.center ? pixels(keyframe.center.x, width) : previous.centerX,
    centerY: keyframe.center ? pixels(keyframe.center.y, height) : previous.centerY,
  });
  let values = base;
  if (keyframes.length > 0) {
    // Each keyframe inherits what it does not set from the one before (the first from `mask`).
    const resolved: (typeof base)[] = [];
    keyframes.forEach((keyframe, i) => resolved.push(valuesOf(keyframe, i === 0 ? base : resolved[i - 1])));
    if (seconds <= keyframes[0].time) values = resolved[0];
    else if (seconds >= keyframes[keyframes.length - 1].time) values = resolved[resolved.length - 1];
    else {
      const next = keyframes.findIndex((keyframe) => keyframe.time > seconds);
      const from = resolved[next - 1];
      const to = resolved[next];
      const arriving = keyframes[next];
      const progress = (seconds - keyframes[next - 1].time) / (arriving.time - keyframes[next - 1].time);
      const eased = easingFunction(arriving)(progress);
      const lerp = (a: number, b: number) => a + (b - a) * eased;
      values = {
        feather: Math.max(0, lerp(from.feather, to.feather)),
        scale: Math.max(0, lerp(from.scale, to.scale)),
        centerX: lerp(from.centerX, to.centerX),
        centerY: lerp(from.centerY, to.centerY),
      };
    }
  }
  return { shape: element.mask_shape ?? 'rectangle', ...values };
}

/**
 * The mask as an SVG image the size of the element box (white = kept): the shape scaled around
 * its centre, its edge softened over `feather` px. Rectangles fill the box at scale 1; a circle's
 * diameter is the shorter side; a rounded rectangle's corners are 15 % of its shorter side.
 */
export function maskSvg(mask: MaskState, width: number, height: number): string {
  const w = width * mask.scale;
  const h = height * mask.scale;
  const x = mask.centerX - w / 2;
  const y = mask.centerY - h / 2;
  const blur = mask.feather > 0 ? ` filter="url(#f)"` : '';
  let shape: string;
  switch (mask.shape) {
    case 'ellipse':
      shape = `<ellipse cx="${mask.centerX}" cy="${mask.centerY}" rx="${w / 2}" ry="${h / 2}" fill="#fff"${blur}/>`;
      break;
    case 'circle':
      shape = `<circle cx="${mask.centerX}" cy="${mask.centerY}" r="${Math.min(w, h) / 2}" fill="#fff"${blur}/>`;
      break;
    case 'rounded_rectangle': {
      const r = 0.15 * Math.min(w, h);
      shape = `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${r}" ry="${r}" fill="#fff"${blur}/>`;
      break;
    }
    default:
      shape = `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="#fff"${blur}/>`;
  }
  // The Gaussian's standard deviation is half the feather: the edge goes from ~98 % to ~2 % over about 2 feathers.
  const filter = mask.feather > 0 ? `<filter id="f" x="-50%" y="-50%" width="200%" height="200%"><feGaussianBlur stdDeviation="${mask.feather / 2}"/></filter>` : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${filter}${shape}</svg>`;
}

export interface ActiveEffect {
  type: string;
  /** 0..1 */
  intensity: number;
  /** Position in the element's `effects` list (for seeds and ids). */
  index: number;
}

/**
 * The catalog effects on at `seconds` from the element start: each from its `time` (default 0)
 * for its `duration` (default: to the element's end); `intensity` defaults to 1.
 */
export function activeEffects(element: VisualElement, seconds: number): ActiveEffect[] {
  return (element.effects ?? []).flatMap((effect, index) => {
    const start = effect.time ?? 0;
    const end = effect.duration === undefined ? Infinity : start + effect.duration;
    if (seconds < start - 1e-9 || seconds >= end - 1e-9) return [];
    return [{ type: effect.type, intensity: effect.intensity === undefined ? 1 : toFraction(effect.intensity), index }];
  });
}

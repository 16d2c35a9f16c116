import type { RelativeLength, ResolvedBox, ResolvedTiming } from '../schema/resolve';
import type { ElementAnimation } from './animation';
import { motionsState } from './element-motion';
import type { AudioDriver, GroupLayer } from './groups';
import { combine, combineAll, REST, state, type MotionState } from './state';
import { transitionProgress, transitionState } from './transitions';

/**
 * Turns an element's animation at one instant into CSS for its box: the transform functions
 * that go before its own (groups, about their pivots), after its anchor translation (its
 * motions), the opacity factor, the clip and the paint order. Pure, so it can be tested and
 * evaluated at sub-frame times for motion blur.
 */

export type AudioLevels = Record<AudioDriver['feature'], number>;

export interface ElementMotionStyle {
  /** Transform functions placed before the element's own (groups). */
  groups: string;
  /** The element's motion translation, after its anchor translation. */
  translate: string;
  /** The element's motion rotation and scale, after its own rotation and scale. */
  rotateScale: string;
  opacity: number;
  clipPath: string | undefined;
  zIndex: number | undefined;
}

export const STILL: ElementMotionStyle = { groups: '', translate: '', rotateScale: '', opacity: 1, clipPath: undefined, zIndex: undefined };

function css(length: RelativeLength): string {
  return `${length.value}${length.unit}`;
}

export function audioState(drivers: readonly AudioDriver[], levels: AudioLevels | null): MotionState {
  if (!levels || drivers.length === 0) return REST;
  return combineAll(
    drivers.map((driver) => {
      const level = levels[driver.feature];
      return state({
        scaleX: 1 + driver.scale * level,
        scaleY: 1 + driver.scale * level,
        opacity: Math.min(1, Math.max(0, 1 - driver.opacity * (1 - level))),
        y: { px: -driver.translate * level, percent: 0 },
        rotation: driver.rotate * level,
      });
    }),
  );
}

/** A group layer's state at composition time `seconds`: its animations and audio drivers. */
export function groupLayerState(layer: GroupLayer, seconds: number, levels: AudioLevels | null): MotionState {
  const animated = motionsState(layer.animations, seconds - layer.start);
  // Percent offsets of group animations are of the group's bounding box.
  const inPixels: MotionState = {
    ...animated,
    x: { px: animated.x.px + (animated.x.percent / 100) * layer.size.width, percent: 0 },
    y: { px: animated.y.px + (animated.y.percent / 100) * layer.size.height, percent: 0 },
  };
  return combine(inPixels, audioState(layer.audio, levels));
}

/** CSS transform functions that apply one group about its pivot to an element placed at `box`. */
export function groupTransform(layer: GroupLayer, motion: MotionState, box: Pick<ResolvedBox, 'x' | 'y' | 'xAnchor' | 'yAnchor'>, perspective: number): string {
  const dx = layer.pivot.x - box.x;
  const dy = layer.pivot.y - box.y;
  const anchorX = css(box.xAnchor);
  const anchorY = css(box.yAnchor);
  const toPivot = `translate(calc(${dx}px - ${anchorX}), calc(${dy}px - ${anchorY}))`;
  const back = `translate(calc(${-dx}px + ${anchorX}), calc(${-dy}px + ${anchorY}))`;
  const parts = [toPivot];
  const tx = layer.translate.x + motion.x.px;
  const ty = layer.translate.y + motion.y.px;
  if (tx || ty) parts.push(`translate(${tx}px, ${ty}px)`);
  if (layer.xRotation || layer.yRotation) parts.push(`perspective(${perspective}px) rotateX(${layer.xRotation}deg) rotateY(${layer.yRotation}deg)`);
  const rotation = layer.rotation + motion.rotation;
  if (rotation) parts.push(`rotate(${rotation}deg)`);
  const scaleX = layer.scale * motion.scaleX;
  const scaleY = layer.scale * motion.scaleY;
  if (scaleX !== 1 || scaleY !== 1) parts.push(`scale(${scaleX}, ${scaleY})`);
  parts.push(back);
  return parts.join(' ');
}

/**
 * The element's CSS z-index at composition frame `frame`: its place back to front, or the
 * transition pair's place while one runs (`to` in front of `from`). Whatever carries the
 * element's blend mode must carry it too, or the blend would be painted out of order.
 */
export function paintOrderAt(timing: Pick<ResolvedTiming, 'animation'>, frame: number, fps: number): number | undefined {
  const animation = timing.animation;
  if (!animation) return undefined;
  const seconds = frame / fps;
  let order = animation.order;
  for (const transition of animation.transitions) {
    if (seconds >= transition.window.start - 1e-9 && seconds <= transition.window.end + 1e-9) order = transition.order;
  }
  return order;
}

/**
 * Volume factor from the transitions an element takes part in, at element frame `frame`: the
 * sound of `from` fades out and that of `to` fades in across the window (any transition type).
 */
export function transitionVolume(timing: Pick<ResolvedTiming, 'from' | 'animation'>, frame: number, fps: number): number {
  const seconds = (timing.from + frame) / fps;
  let factor = 1;
  for (const transition of timing.animation?.transitions ?? []) {
    if (seconds < transition.window.start || seconds > transition.window.end) continue;
    const progress = transitionProgress(transition.window, seconds);
    factor *= transition.role === 'to' ? progress : 1 - progress;
  }
  return factor;
}

/**
 * The element's motion style at `frame` (element frames, fractional under motion blur).
 * `box` is null for elements without one (audio).
 */
export function elementMotionStyle(
  timing: Pick<ResolvedTiming, 'from' | 'animation'>,
  box: Pick<ResolvedBox, 'x' | 'y' | 'xAnchor' | 'yAnchor'>,
  frame: number,
  fps: number,
  canvas: { width: number; height: number },
  levels: AudioLevels | null,
): ElementMotionStyle {
  const animation: ElementAnimation | undefined = timing.animation;
  if (!animation) return STILL;
  const local = frame / fps;
  const absolute = (timing.from + frame) / fps;
  let own = motionsState(animation.motions, local);
  for (const transition of animation.transitions) {
    const { start, end } = transition.window;
    if (absolute < start - 1e-9 || absolute > end + 1e-9) continue;
    own = combine(own, transitionState(transition.type, transition.role, transitionProgress(transition.window, absolute), canvas));
  }
  const zIndex = paintOrderAt(timing, timing.from + frame, fps);
  let opacity = 1;
  let groups = '';
  if (animation.groups) {
    own = combine(own, audioState(animation.groups.audio, levels));
    const perspective = 2 * Math.max(canvas.width, canvas.height);
    groups = animation.groups.layers
      .map((layer) => {
        const motion = groupLayerState(layer, absolute, levels);
        opacity *= layer.opacity * motion.opacity;
        return groupTransform(layer, motion, box, perspective);
      })
      .join(' ');
  }
  const translate = own.x.px || own.x.percent || own.y.px || own.y.percent ? `translate(${offset(own.x)}, ${offset(own.y)})` : '';
  const rotateScale = [own.rotation ? `rotate(${own.rotation}deg)` : '', own.scaleX !== 1 || own.scaleY !== 1 ? `scale(${own.scaleX}, ${own.scaleY})` : '']
    .filter(Boolean)
    .join(' ');
  return { groups, translate, rotateScale, opacity: opacity * own.opacity, clipPath: clipPath(own), zIndex };
}

function offset(value: { px: number; percent: number }): string {
  if (value.percent === 0) return `${value.px}px`;
  if (value.px === 0) return `${value.percent}%`;
  return `calc(${value.px}px + ${value.percent}%)`;
}

function clipPath(motion: MotionState): string | undefined {
  const { top, right, bottom, left } = motion.inset;
  // The circle's percent refers to sqrt(w² + h²) / √2, of which the half-diagonal is 1/√2.
  if (motion.circle !== null) return `circle(${Math.max(0, motion.circle) * 70.7107}% at 50% 50%)`;
  if (!(top || right || bottom || left)) return undefined;
  const pct = (value: number) => `${Math.min(100, Math.max(0, value * 100))}%`;
  return `inset(${pct(top)} ${pct(right)} ${pct(bottom)} ${pct(left)})`;
}


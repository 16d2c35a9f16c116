import { parseDegrees, parsePercent, toFraction } from '../schema/primitives';
import { easingFunction, type EasingSpec } from './easing';
import { state, type MotionState, type Offset } from './state';

/**
 * Custom keyframe animations (`custom_animations.element[]` and `.text[]`): keyframes at
 * `offset` 0..1, each setting any of x, y (offsets from the resting place: px, or percent of the
 * element's own box), x_scale, y_scale, z_rotation and opacity. A property is interpolated between
 * the keyframes that set it and held before the first and after the last; it rests where no
 * keyframe sets it. A keyframe's easing shapes the stretch from it to the next keyframe.
 */

export interface KeyframeInput extends EasingSpec {
  offset: number;
  x?: number | string;
  y?: number | string;
  x_scale?: string;
  y_scale?: string;
  z_rotation?: number | string;
  opacity?: number | string;
}

type Property = 'xPx' | 'xPercent' | 'yPx' | 'yPercent' | 'scaleX' | 'scaleY' | 'rotation' | 'opacity';
const PROPERTIES: Property[] = ['xPx', 'xPercent', 'yPx', 'yPercent', 'scaleX', 'scaleY', 'rotation', 'opacity'];

export interface ResolvedKeyframe {
  offset: number;
  easing: EasingSpec;
  values: Partial<Record<Property, number>>;
}

function offsetValues(value: number | string | undefined, px: Property, percent: Property): Partial<Record<Property, number>> {
  if (value === undefined) return {};
  return typeof value === 'number' ? { [px]: value, [percent]: 0 } : { [px]: 0, [percent]: parsePercent(value) };
}

export function resolveKeyframes(keyframes: readonly KeyframeInput[]): ResolvedKeyframe[] {
  return [...keyframes]
    .map((keyframe, order) => ({ keyframe, order }))
    .sort((a, b) => a.keyframe.offset - b.keyframe.offset || a.order - b.order)
    .map(({ keyframe }) => {
      const { easing, spring, back, elastic, bezier } = keyframe;
      const values: Partial<Record<Property, number>> = {
        ...offsetValues(keyframe.x, 'xPx', 'xPercent'),
        ...offsetValues(keyframe.y, 'yPx', 'yPercent'),
      };
      if (keyframe.x_scale !== undefined) values.scaleX = parsePercent(keyframe.x_scale) / 100;
      if (keyframe.y_scale !== undefined) values.scaleY = parsePercent(keyframe.y_scale) / 100;
      if (keyframe.z_rotation !== undefined) values.rotation = parseDegrees(keyframe.z_rotation);
      if (keyframe.opacity !== undefined) values.opacity = toFraction(keyframe.opacity);
      return { offset: keyframe.offset, easing: { easing, spring, back, elastic, bezier }, values };
    });
}

const REST_VALUES: Record<Property, number> = { xPx: 0, xPercent: 0, yPx: 0, yPercent: 0, scaleX: 1, scaleY: 1, rotation: 0, opacity: 1 };

/** One property at `offset`: eased between the surrounding keyframes that set it. */
export function keyframeValue(keyframes: readonly ResolvedKeyframe[], property: Property, offset: number): number {
  let before: ResolvedKeyframe | undefined;
  let after: ResolvedKeyframe | undefined;
  for (const keyframe of keyframes) {
    if (keyframe.values[property] === undefined) continue;
    if (keyframe.offset <= offset) before = keyframe;
    else {
      after = keyframe;
      break;
    }
  }
  if (!before && !after) return REST_VALUES[property];
  if (!before) return after!.values[property]!;
  if (!after || after.offset === before.offset) return before.values[property]!;
  const local = (offset - before.offset) / (after.offset - before.offset);
  const eased = easingFunction(before.easing)(local);
  return before.values[property]! + (after.values[property]! - before.values[property]!) * eased;
}

export function keyframeState(keyframes: readonly ResolvedKeyframe[], offset: number): MotionState {
  const value = Object.fromEntries(PROPERTIES.map((property) => [property, keyframeValue(keyframes, property, offset)])) as Record<Property, number>;
  const x: Offset = { px: value.xPx, percent: value.xPercent };
  const y: Offset = { px: value.yPx, percent: value.yPercent };
  return state({ x, y, scaleX: value.scaleX, scaleY: value.scaleY, rotation: value.rotation, opacity: Math.min(1, Math.max(0, value.opacity)) });
}

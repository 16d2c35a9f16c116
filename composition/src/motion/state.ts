/**
 * What an animation does to an element at one instant, in the element's own frame of reference:
 * a translation (px plus percent of the element's own box, like CSS translate), scale and
 * rotation about the element's anchor point, an opacity factor and a clip. Several animations
 * combine: translations and rotations add, scales and opacities multiply, clips intersect.
 */
export interface Offset {
  px: number;
  /** Percent of the element's own width (x) or height (y). */
  percent: number;
}

/** Fractions 0..1 of the box hidden from each side (CSS clip-path inset). */
export interface ClipInset {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

export interface MotionState {
  x: Offset;
  y: Offset;
  scaleX: number;
  scaleY: number;
  /** Degrees, clockwise. */
  rotation: number;
  opacity: number;
  inset: ClipInset;
  /** Radius of a circular reveal centred on the box, 0..1 of the half-diagonal; null: no circle. */
  circle: number | null;
}

export const REST: MotionState = Object.freeze({
  x: { px: 0, percent: 0 },
  y: { px: 0, percent: 0 },
  scaleX: 1,
  scaleY: 1,
  rotation: 0,
  opacity: 1,
  inset: { top: 0, right: 0, bottom: 0, left: 0 },
  circle: null,
}) as MotionState;

export function state(changes: Partial<MotionState>): MotionState {
  return { ...REST, ...changes };
}

export function combine(a: MotionState, b: MotionState): MotionState {
  return {
    x: { px: a.x.px + b.x.px, percent: a.x.percent + b.x.percent },
    y: { px: a.y.px + b.y.px, percent: a.y.percent + b.y.percent },
    scaleX: a.scaleX * b.scaleX,
    scaleY: a.scaleY * b.scaleY,
    rotation: a.rotation + b.rotation,
    opacity: a.opacity * b.opacity,
    inset: {
      top: Math.max(a.inset.top, b.inset.top),
      right: Math.max(a.inset.right, b.inset.right),
      bottom: Math.max(a.inset.bottom, b.inset.bottom),
      left: Math.max(a.inset.left, b.inset.left),
    },
    circle: a.circle === null ? b.circle : b.circle === null ? a.circle : Math.min(a.circle, b.circle),
  };
}

export function combineAll(states: MotionState[]): MotionState {
  return states.reduce(combine, REST);
}

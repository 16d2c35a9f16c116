import type { Motion } from '../schema/request';
import { easingFunction, type EasingSpec } from './easing';
import { keyframeState, resolveKeyframes, type KeyframeInput, type ResolvedKeyframe } from './keyframes';
import { OPPOSITE, presetState, PRESETS, type Direction, type MotionName } from './presets';
import { combineAll, REST, type MotionState } from './state';

/**
 * `motion[]` of one element on its own clock (seconds from the element's start).
 *
 * Timing: `time` is seconds from the element's start, `"start"` (the default) or `"end"`; an
 * animation at `"end"` finishes as the element ends. `duration` defaults to the preset's length
 * (1 s for most; continuous presets last until the element ends; a custom animation's own
 * `duration`), clipped to the element. Before an animation starts the element holds its first
 * state (an entry keeps it away), after it ends its last. `loop` repeats it until the element
 * ends. `reversed` plays it backwards. An entry preset at `"end"` is an exit: the entry backwards,
 * travelling in `direction`. Several motions on one element combine (see state.ts).
 */

export interface ResolvedMotion {
  type: MotionName | null;
  keyframes: ResolvedKeyframe[] | null;
  /** Seconds from the element's start. */
  start: number;
  duration: number;
  easing: EasingSpec;
  direction: Direction | null;
  /** Played backwards (an exit, or `reversed`). */
  backwards: boolean;
  loop: boolean;
}

export interface CustomAnimation {
  name: string;
  duration?: number;
  keyframes: KeyframeInput[];
}

const DEFAULT_CUSTOM_SECONDS = 1;

export function resolveMotions(motions: readonly Motion[] | undefined, elementSeconds: number, customs: ReadonlyMap<string, CustomAnimation>): ResolvedMotion[] {
  return (motions ?? []).flatMap((motion) => {
    const custom = motion.custom === undefined ? undefined : customs.get(motion.custom);
    if (motion.custom !== undefined && !custom) return []; // an unknown name is refused by validation
    const preset = motion.type === undefined ? undefined : PRESETS[motion.type];
    const natural = custom ? (custom.duration ?? DEFAULT_CUSTOM_SECONDS) : (preset!.seconds ?? Infinity);
    const atEnd = motion.time === 'end';
    const requestedStart = typeof motion.time === 'number' ? motion.time : 0;
    const available = atEnd ? elementSeconds : Math.max(0, elementSeconds - requestedStart);
    const duration = Math.max(1e-6, Math.min(motion.duration ?? natural, available));
    const start = atEnd ? elementSeconds - duration : requestedStart;
    const isExit = atEnd && preset?.kind === 'entry';
    const direction = motion.direction ?? preset?.direction ?? null;
    const { easing, spring, back, elastic, bezier } = motion;
    const hasEasing = [easing, spring, back, elastic, bezier].some((field) => field !== undefined);
    return [{
      type: motion.type ?? null,
      keyframes: custom ? resolveKeyframes(custom.keyframes) : null,
      start,
      duration,
      easing: hasEasing ? { easing, spring, back, elastic, bezier } : { easing: preset?.easing ?? 'linear' },
      direction: isExit && direction ? OPPOSITE[direction] : direction,
      backwards: isExit !== (motion.reversed ?? false),
      loop: motion.loop ?? false,
    }];
  });
}

/** Position 0..1 within the animation at `seconds` (held before and after; wrapped when looping). */
export function motionPosition(motion: Pick<ResolvedMotion, 'start' | 'duration' | 'loop'>, seconds: number): number {
  const elapsed = (seconds - motion.start) / motion.duration;
  if (elapsed <= 0) return 0;
  if (elapsed < 1) return elapsed;
  if (!motion.loop) return 1;
  const cycle = elapsed % 1;
  // The exact end of a cycle shows the end state, not the next cycle's start.
  return cycle === 0 ? 1 : cycle;
}

export function motionState(motion: ResolvedMotion, seconds: number): MotionState {
  const position = motionPosition(motion, seconds);
  const ease = easingFunction(motion.easing);
  const progress = motion.backwards ? ease(1 - position) : ease(position);
  if (motion.keyframes) return keyframeState(motion.keyframes, progress);
  return presetState(motion.type!, progress, motion.direction);
}

export function motionsState(motions: readonly ResolvedMotion[], seconds: number): MotionState {
  return motions.length === 0 ? REST : combineAll(motions.map((motion) => motionState(motion, seconds)));
}

import { EASINGS } from '../schema/vocabulary';

/**
 * Every easing the request accepts, as a function from progress 0..1 to eased progress (0 at 0,
 * 1 at 1; back, elastic and spring overshoot in between). Pure maths, no Remotion: the schema,
 * the composition and the unit tests share it.
 *
 * Named curves follow the usual definitions (CSS for ease_*, Robert Penner's equations for
 * quadratic/cubic/back/elastic/bounce). The parameterised forms sit beside `easing`:
 * - `bezier: [x1, y1, x2, y2]`: a CSS cubic-bezier(); x1 and x2 lie in 0..1. Wins over `easing`.
 * - `back: overshoot`: the overshoot of back_in/back_out/back_in_out (default 1.70158 ≈ 10 %);
 *   alone it means back_out.
 * - `elastic: { amplitude ≥ 1, period }`: Penner's elastic (defaults 1 and 0.3); alone it means
 *   elastic_out.
 * - `spring: { mass, stiffness, damping }`: a damped spring released from 0 towards 1 (defaults
 *   1, 100, 10 as in Remotion's spring()), its motion stretched so that it has settled (within
 *   0.1 %) when progress reaches 1; alone or with `easing: "spring"`.
 */

export type EasingName = (typeof EASINGS)[number];
export type EasingFunction = (t: number) => number;

export interface SpringParameters {
  mass?: number;
  stiffness?: number;
  damping?: number;
}

export interface ElasticParameters {
  amplitude?: number;
  period?: number;
}

/** The easing fields as they appear on a motion, keyframe or group animation. */
export interface EasingSpec {
  easing?: EasingName;
  spring?: SpringParameters;
  back?: number;
  elastic?: ElasticParameters;
  bezier?: readonly [number, number, number, number];
}

export const DEFAULT_BACK_OVERSHOOT = 1.70158;
export const DEFAULT_ELASTIC = { amplitude: 1, period: 0.3 } as const;
export const DEFAULT_SPRING = { mass: 1, stiffness: 100, damping: 10 } as const;
/** How close to rest a spring must stay for its motion to count as finished. */
const SPRING_SETTLED = 0.001;

/** Which named easings each parameter applies to, for validation messages. */
const PARAMETER_EASINGS = {
  back: ['back_in', 'back_out', 'back_in_out'],
  elastic: ['elastic_in', 'elastic_out'],
  spring: ['spring'],
} as const satisfies Record<string, readonly EasingName[]>;

/**
 * Why a set of easing fields contradicts itself (a parameter for another curve, several
 * parameter sets, a bezier whose x leaves 0..1), or null when it is usable.
 */
export function easingConflict(spec: EasingSpec): string | null {
  const parameters = (['bezier', 'back', 'elastic', 'spring'] as const).filter((key) => spec[key] !== undefined);
  if (parameters.length > 1) return `Set at most one of ${parameters.map((key) => `"${key}"`).join(', ')}`;
  const [parameter] = parameters;
  if (parameter === 'bezier') {
    const [x1, , x2] = spec.bezier!;
    if (x1 < 0 || x1 > 1 || x2 < 0 || x2 > 1) return 'bezier x1 and x2 must lie between 0 and 1';
    if (spec.easing !== undefined) return `"bezier" replaces "easing"; remove "easing": "${spec.easing}"`;
    return null;
  }
  if (parameter !== undefined && spec.easing !== undefined && !(PARAMETER_EASINGS[parameter] as readonly string[]).includes(spec.easing)) {
    return `"${parameter}" applies to easing ${PARAMETER_EASINGS[parameter].map((name) => `"${name}"`).join(', ')}, not "${spec.easing}"`;
  }
  if (parameter === 'elastic' && spec.elastic?.amplitude !== undefined && spec.elastic.amplitude < 1) {
    return 'elastic amplitude must be at least 1 (the curve has to reach 1)';
  }
  return null;
}

/**
 * The easing function for a set of easing fields (or a bare easing name); `fallback` when none
 * is given. Contradictory fields are refused by the schema (`easingConflict`); here the
 * parameter wins.
 */
export function easingFunction(spec: EasingSpec | EasingName | undefined, fallback: EasingName = 'linear'): EasingFunction {
  const fields: EasingSpec = typeof spec === 'string' ? { easing: spec } : (spec ?? {});
  if (fields.bezier) return cubicBezier(...fields.bezier);
  if (fields.spring) return springEasing(fields.spring);
  if (fields.back !== undefined) {
    const name = fields.easing?.startsWith('back_') ? fields.easing : 'back_out';
    return backEasing(name as 'back_in' | 'back_out' | 'back_in_out', fields.back);
  }
  if (fields.elastic) {
    return elasticEasing(fields.easing === 'elastic_in' ? 'in' : 'out', fields.elastic);
  }
  return NAMED[fields.easing ?? fallback];
}

const NAMED: Record<EasingName, EasingFunction> = {
  linear: (t) => t,
  ease_in: cubicBezier(0.42, 0, 1, 1),
  ease_out: cubicBezier(0, 0, 0.58, 1),
  ease_in_out: cubicBezier(0.42, 0, 0.58, 1),
  quadratic_in: (t) => t * t,
  quadratic_out: (t) => 1 - (1 - t) * (1 - t),
  quadratic_in_out: (t) => (t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2),
  cubic_in: (t) => t ** 3,
  cubic_out: (t) => 1 - (1 - t) ** 3,
  cubic_in_out: (t) => (t < 0.5 ? 4 * t ** 3 : 1 - (-2 * t + 2) ** 3 / 2),
  back_in: backEasing('back_in', DEFAULT_BACK_OVERSHOOT),
  back_out: backEasing('back_out', DEFAULT_BACK_OVERSHOOT),
  back_in_out: backEasing('back_in_out', DEFAULT_BACK_OVERSHOOT),
  elastic_in: elasticEasing('in', DEFAULT_ELASTIC),
  elastic_out: elasticEasing('out', DEFAULT_ELASTIC),
  bounce_in: (t) => 1 - bounceOut(1 - t),
  bounce_out: bounceOut,
  spring: springEasing(DEFAULT_SPRING),
};

/** Ends pinned: every curve starts exactly at 0 and ends exactly at 1. */
function pinned(curve: EasingFunction): EasingFunction {
  return (t) => (t <= 0 ? 0 : t >= 1 ? 1 : curve(t));
}

/**
 * CSS cubic-bezier(x1, y1, x2, y2): solve x(s) = t for the curve parameter s (Newton, then
 * bisection when the slope is flat), return y(s).
 */
export function cubicBezier(x1: number, y1: number, x2: number, y2: number): EasingFunction {
  const clampedX1 = Math.min(1, Math.max(0, x1));
  const clampedX2 = Math.min(1, Math.max(0, x2));
  const coordinate = (p1: number, p2: number) => (s: number) => 3 * (1 - s) * (1 - s) * s * p1 + 3 * (1 - s) * s * s * p2 + s ** 3;
  const slope = (p1: number, p2: number) => (s: number) => 3 * (1 - s) * (1 - s) * p1 + 6 * (1 - s) * s * (p2 - p1) + 3 * s * s * (1 - p2);
  const x = coordinate(clampedX1, clampedX2);
  const dx = slope(clampedX1, clampedX2);
  const y = coordinate(y1, y2);
  if (clampedX1 === y1 && clampedX2 === y2) return pinned((t) => t);
  return pinned((t) => {
    let s = t;
    for (let i = 0; i < 8; i++) {
      const error = x(s) - t;
      if (Math.abs(error) < 1e-12) return y(s);
      const d = dx(s);
      if (Math.abs(d) < 1e-6) break;
      s -= error / d;
    }
    let low = 0;
    let high = 1;
    s = t;
    for (let i = 0; i < 60; i++) {
      const value = x(s);
      if (Math.abs(value - t) < 1e-12) break;
      if (value < t) low = s;
      else high = s;
      s = (low + high) / 2;
    }
    return y(s);
  });
}

function backEasing(name: 'back_in' | 'back_out' | 'back_in_out', overshoot: number): EasingFunction {
  const c1 = overshoot;
  const c3 = c1 + 1;
  const c2 = c1 * 1.525;
  switch (name) {
    case 'back_in':
      return pinned((t) => c3 * t ** 3 - c1 * t * t);
    case 'back_out':
      return pinned((t) => 1 + c3 * (t - 1) ** 3 + c1 * (t - 1) ** 2);
    case 'back_in_out':
      return pinned((t) =>
        t < 0.5 ? ((2 * t) ** 2 * ((c2 + 1) * 2 * t - c2)) / 2 : ((2 * t - 2) ** 2 * ((c2 + 1) * (t * 2 - 2) + c2) + 2) / 2,
      );
  }
}

/** Penner's elastic: amplitude a ≥ 1 and period p in units of the whole animation. */
function elasticEasing(side: 'in' | 'out', parameters: ElasticParameters): EasingFunction {
  const amplitude = Math.max(1, parameters.amplitude ?? DEFAULT_ELASTIC.amplitude);
  const period = parameters.period ?? DEFAULT_ELASTIC.period;
  const shift = (period / (2 * Math.PI)) * Math.asin(1 / amplitude);
  const out = (t: number) => amplitude * 2 ** (-10 * t) * Math.sin(((t - shift) * 2 * Math.PI) / period) + 1;
  return pinned(side === 'out' ? out : (t) => 1 - out(1 - t));
}

function bounceOut(t: number): number {
  const n1 = 7.5625;
  const d1 = 2.75;
  if (t < 1 / d1) return n1 * t * t;
  if (t < 2 / d1) return n1 * (t -= 1.5 / d1) * t + 0.75;
  if (t < 2.5 / d1) return n1 * (t -= 2.25 / d1) * t + 0.9375;
  return n1 * (t -= 2.625 / d1) * t + 0.984375;
}

/**
 * Position of a spring (mass m, stiffness k, damping c) released at rest from 0 towards 1, after
 * `time` seconds: the closed-form solution of m x'' + c x' + k (x − 1) = 0 with x(0) = x'(0) = 0.
 */
export function springPosition(parameters: SpringParameters, time: number): number {
  const { mass, stiffness, damping } = { ...DEFAULT_SPRING, ...parameters };
  const omega = Math.sqrt(stiffness / mass);
  const zeta = damping / (2 * Math.sqrt(stiffness * mass));
  if (zeta < 1 - 1e-9) {
    const omegaD = omega * Math.sqrt(1 - zeta * zeta);
    return 1 - Math.exp(-zeta * omega * time) * (Math.cos(omegaD * time) + ((zeta * omega) / omegaD) * Math.sin(omegaD * time));
  }
  if (zeta <= 1 + 1e-9) return 1 - Math.exp(-omega * time) * (1 + omega * time);
  const root = omega * Math.sqrt(zeta * zeta - 1);
  const fast = -zeta * omega - root;
  const slow = -zeta * omega + root;
  return 1 - (fast * Math.exp(slow * time) - slow * Math.exp(fast * time)) / (fast - slow);
}

/**
 * Seconds until the spring stays within SPRING_SETTLED of 1: the time its decay envelope takes
 * to fall below the threshold. An undamped spring never settles; it is given eight periods.
 */
export function springSettlingTime(parameters: SpringParameters): number {
  const { mass, stiffness, damping } = { ...DEFAULT_SPRING, ...parameters };
  const omega = Math.sqrt(stiffness / mass);
  const zeta = damping / (2 * Math.sqrt(stiffness * mass));
  if (zeta <= 0) return (8 * 2 * Math.PI) / omega;
  if (zeta < 1 - 1e-9) {
    // Envelope of the under-damped solution: e^(−ζωt) / sqrt(1 − ζ²).
    return Math.log(1 / (SPRING_SETTLED * Math.sqrt(1 - zeta * zeta))) / (zeta * omega);
  }
  // Critical and over-damped: step until the (monotonic) approach is close enough.
  const decay = zeta <= 1 + 1e-9 ? omega : omega * (zeta - Math.sqrt(zeta * zeta - 1));
  let time = Math.log(1 / SPRING_SETTLED) / decay;
  while (1 - springPosition(parameters, time) > SPRING_SETTLED) time *= 1.1;
  return time;
}

function springEasing(parameters: SpringParameters): EasingFunction {
  const settle = springSettlingTime(parameters);
  return pinned((t) => springPosition(parameters, t * settle));
}

export const EASING_DESCRIPTIONS: Record<EasingName, string> = {
  linear: 'constant speed',
  ease_in: 'CSS ease-in, cubic-bezier(0.42, 0, 1, 1)',
  ease_out: 'CSS ease-out, cubic-bezier(0, 0, 0.58, 1)',
  ease_in_out: 'CSS ease-in-out, cubic-bezier(0.42, 0, 0.58, 1)',
  quadratic_in: 't²',
  quadratic_out: '1 − (1 − t)²',
  quadratic_in_out: 'quadratic in, then out',
  cubic_in: 't³',
  cubic_out: '1 − (1 − t)³',
  cubic_in_out: 'cubic in, then out',
  back_in: 'pulls back before leaving; "back" sets the overshoot (1.70158)',
  back_out: 'overshoots, then settles; "back" sets the overshoot (1.70158)',
  back_in_out: 'back in, then back out',
  elastic_in: 'winds up like a spring; "elastic" {amplitude, period} (1, 0.3)',
  elastic_out: 'overshoots and oscillates to rest; "elastic" {amplitude, period} (1, 0.3)',
  bounce_in: 'bounces before leaving',
  bounce_out: 'lands and bounces to rest',
  spring: 'a damped spring settling within the duration; "spring" {mass, stiffness, damping} (1, 100, 10)',
};

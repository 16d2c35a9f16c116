import { EASINGS } from '../schema/vocabulary';
import { cubicBezier, easingConflict, easingFunction, springPosition, springSettlingTime } from './easing';

const POINTS = [0.1, 0.25, 0.5, 0.75, 0.9];

/** A point on a cubic bezier through (0,0) and (1,1) at curve parameter s. */
function bezierPoint(p1: number, p2: number, s: number): number {
  return 3 * (1 - s) ** 2 * s * p1 + 3 * (1 - s) * s ** 2 * p2 + s ** 3;
}

/** m x'' + c x' + k (x − 1) = 0 from rest at 0, integrated with RK4: an independent reference. */
function integrateSpring(mass: number, stiffness: number, damping: number, seconds: number): number {
  const steps = 20000;
  const h = seconds / steps;
  let x = 0;
  let v = 0;
  const accel = (px: number, pv: number) => (-stiffness * (px - 1) - damping * pv) / mass;
  for (let i = 0; i < steps; i++) {
    const k1x = v;
    const k1v = accel(x, v);
    const k2x = v + (h / 2) * k1v;
    const k2v = accel(x + (h / 2) * k1x, v + (h / 2) * k1v);
    const k3x = v + (h / 2) * k2v;
    const k3v = accel(x + (h / 2) * k2x, v + (h / 2) * k2v);
    const k4x = v + h * k3v;
    const k4v = accel(x + h * k3x, v + h * k3v);
    x += (h / 6) * (k1x + 2 * k2x + 2 * k3x + k4x);
    v += (h / 6) * (k1v + 2 * k2v + 2 * k3v + k4v);
  }
  return x;
}

describe('easingFunction', () => {
  it('starts at 0 and ends at 1 for every catalog entry', () => {
    for (const name of EASINGS) {
      const ease = easingFunction(name);
      expect([name, ease(0)]).toEqual([name, 0]);
      expect([name, ease(1)]).toEqual([name, 1]);
    }
  });

  it.each([
    ['linear', (t: number) => t],
    ['quadratic_in', (t: number) => t * t],
    ['quadratic_out', (t: number) => t * (2 - t)],
    ['quadratic_in_out', (t: number) => (t < 0.5 ? 2 * t * t : -1 + (4 - 2 * t) * t)],
    ['cubic_in', (t: number) => t * t * t],
    ['cubic_out', (t: number) => (t - 1) ** 3 + 1],
    ['cubic_in_out', (t: number) => (t < 0.5 ? 4 * t ** 3 : (t - 1) * (2 * t - 2) * (2 * t - 2) + 1)],
    ['back_in', (t: number) => t * t * (2.70158 * t - 1.70158)],
    ['back_out', (t: number) => (t - 1) ** 2 * (2.70158 * (t - 1) + 1.70158) + 1],
    ['elastic_out', (t: number) => 2 ** (-10 * t) * Math.sin(((t - 0.075) * 2 * Math.PI) / 0.3) + 1],
    ['elastic_in', (t: number) => -(2 ** (10 * (t - 1))) * Math.sin(((t - 1 - 0.075) * 2 * Math.PI) / 0.3)],
  ] as const)('%s follows its closed form', (name, formula) => {
    const ease = easingFunction(name);
    for (const t of POINTS) expect(ease(t)).toBeCloseTo(formula(t), 9);
  });

  it('back_in_out mirrors back_in with the 1.525-scaled overshoot', () => {
    const c = 1.70158 * 1.525;
    const backIn = (t: number) => t * t * ((c + 1) * t - c);
    const ease = easingFunction('back_in_out');
    for (const t of [0.1, 0.25, 0.4]) expect(ease(t)).toBeCloseTo(backIn(2 * t) / 2, 9);
    for (const t of [0.6, 0.75, 0.9]) expect(ease(t)).toBeCloseTo(1 - backIn(2 - 2 * t) / 2, 9);
  });

  it('bounce_out hits its parabola segments and bounce_in mirrors it', () => {
    const out = easingFunction('bounce_out');
    expect(out(0.2)).toBeCloseTo(7.5625 * 0.04, 9);
    expect(out(1 / 2.75)).toBeCloseTo(0.75 + 7.5625 * (1 / 2.75 - 1.5 / 2.75) ** 2, 9);
    expect(out(0.5)).toBeCloseTo(7.5625 * (0.5 - 1.5 / 2.75) ** 2 + 0.75, 9);
    expect(out(0.8)).toBeCloseTo(7.5625 * (0.8 - 2.25 / 2.75) ** 2 + 0.9375, 9);
    expect(out(0.95)).toBeCloseTo(7.5625 * (0.95 - 2.625 / 2.75) ** 2 + 0.984375, 9);
    const bounceIn = easingFunction('bounce_in');
    for (const t of POINTS) expect(bounceIn(t)).toBeCloseTo(1 - out(1 - t), 12);
  });

  it.each([
    ['ease_in', [0.42, 0, 1, 1]],
    ['ease_out', [0, 0, 0.58, 1]],
    ['ease_in_out', [0.42, 0, 0.58, 1]],
  ] as const)('%s is the CSS cubic-bezier %j', (name, [x1, y1, x2, y2]) => {
    const ease = easingFunction(name);
    for (const s of POINTS) expect(ease(bezierPoint(x1, x2, s))).toBeCloseTo(bezierPoint(y1, y2, s), 6);
  });

  it('bezier [x1, y1, x2, y2] is that cubic-bezier, including overshooting y', () => {
    const ease = easingFunction({ bezier: [0.68, -0.55, 0.27, 1.55] });
    for (const s of POINTS) expect(ease(bezierPoint(0.68, 0.27, s))).toBeCloseTo(bezierPoint(-0.55, 1.55, s), 6);
    expect(Math.min(...POINTS.map(ease))).toBeLessThan(0);
    // A flat start (x1 = 0) still solves.
    const flat = cubicBezier(0, 0.8, 0, 1);
    for (const s of POINTS) expect(flat(bezierPoint(0, 0, s))).toBeCloseTo(bezierPoint(0.8, 1, s), 6);
  });

  it('back sets the overshoot of back curves and means back_out on its own', () => {
    const c1 = 3;
    const out = (t: number) => 1 + (c1 + 1) * (t - 1) ** 3 + c1 * (t - 1) ** 2;
    for (const t of POINTS) {
      expect(easingFunction({ back: c1 })(t)).toBeCloseTo(out(t), 9);
      expect(easingFunction({ easing: 'back_in', back: c1 })(t)).toBeCloseTo((c1 + 1) * t ** 3 - c1 * t * t, 9);
    }
    expect(easingFunction({ back: 0 })(0.5)).toBeCloseTo(1 - 0.125, 9); // no overshoot: cubic_out
  });

  it('elastic {amplitude, period} follows Penner’s formula', () => {
    const amplitude = 2;
    const period = 0.5;
    const shift = (period / (2 * Math.PI)) * Math.asin(1 / amplitude);
    const out = (t: number) => amplitude * 2 ** (-10 * t) * Math.sin(((t - shift) * 2 * Math.PI) / period) + 1;
    for (const t of POINTS) {
      expect(easingFunction({ elastic: { amplitude, period } })(t)).toBeCloseTo(out(t), 9);
      expect(easingFunction({ easing: 'elastic_in', elastic: { amplitude, period } })(t)).toBeCloseTo(1 - out(1 - t), 9);
    }
  });

  it.each([
    ['under-damped (default)', { mass: 1, stiffness: 100, damping: 10 }],
    ['critically damped', { mass: 1, stiffness: 100, damping: 20 }],
    ['over-damped', { mass: 2, stiffness: 50, damping: 40 }],
    ['bouncy', { mass: 0.5, stiffness: 200, damping: 3 }],
  ] as const)('spring %s matches a numerically integrated spring', (_label, spring) => {
    const { mass, stiffness, damping } = spring;
    for (const seconds of [0.05, 0.2, 0.5]) expect(springPosition(spring, seconds)).toBeCloseTo(integrateSpring(mass, stiffness, damping, seconds), 6);
    const settle = springSettlingTime(spring);
    const ease = easingFunction({ spring });
    for (const t of POINTS) expect(ease(t)).toBeCloseTo(integrateSpring(mass, stiffness, damping, t * settle), 6);
    // Settled at the end: within 0.1 % over the last tenth.
    for (const t of [0.9, 0.95, 0.99]) expect(Math.abs(ease(t) - 1)).toBeLessThan(0.01);
  });

  it('spring with defaults is the catalog "spring" and overshoots', () => {
    const named = easingFunction('spring');
    const parameterised = easingFunction({ easing: 'spring', spring: {} });
    for (const t of POINTS) expect(named(t)).toBeCloseTo(parameterised(t), 12);
    expect(Math.max(...[0.1, 0.15, 0.2, 0.25].map(named))).toBeGreaterThan(1);
  });

  it('falls back when nothing is set', () => {
    expect(easingFunction(undefined)(0.5)).toBe(0.5);
    expect(easingFunction({}, 'quadratic_in')(0.5)).toBe(0.25);
  });
});

describe('easingConflict', () => {
  it('accepts consistent fields', () => {
    expect(easingConflict({ easing: 'back_in', back: 2 })).toBeNull();
    expect(easingConflict({ spring: { damping: 5 } })).toBeNull();
    expect(easingConflict({ bezier: [0.1, -1, 0.9, 2] })).toBeNull();
  });

  it('explains contradictions', () => {
    expect(easingConflict({ easing: 'cubic_in', back: 2 })).toMatch(/"back" applies to easing "back_in"/);
    expect(easingConflict({ back: 2, spring: {} })).toMatch(/at most one/);
    expect(easingConflict({ bezier: [1.2, 0, 0.5, 1] })).toMatch(/between 0 and 1/);
    expect(easingConflict({ easing: 'linear', bezier: [0.2, 0, 0.5, 1] })).toMatch(/replaces/);
    expect(easingConflict({ elastic: { amplitude: 0.5 } })).toMatch(/at least 1/);
  });
});

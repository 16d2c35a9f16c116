import { resolveRequest, resolveTimeline } from '../schema/resolve';
import { findViolations } from '../schema/violations';
import { ANALYSIS_RATE, levelsOf, mixWindow, WINDOW } from './audio-analysis';
import type { RenderRequest } from '../schema/request';
import { motionPosition, motionsState, resolveMotions } from './element-motion';
import { easingFunction } from './easing';
import { groupStructure, stackPositions } from './groups';
import { keyframeState, keyframeValue, resolveKeyframes } from './keyframes';
import { presetState } from './presets';
import { paintOrderAt, transitionVolume } from './element-style';
import { combine, REST, state } from './state';
import { joinedLetter, partStart, splitGraphemes, splitWords, textDirection } from './text-split';
import { rateAt, sourceOffset, timeForOffset } from './time-remap';
import { overlayOpacity, transitionProgress, transitionState, transitionWindow } from './transitions';

const NO_CUSTOMS = new Map();

describe('motion presets', () => {
  it('entry presets go from away (0) to rest (1)', () => {
    expect(presetState('fade', 0, null).opacity).toBe(0);
    expect(presetState('fade', 1, null)).toEqual(REST);
    expect(presetState('slide', 0, 'right').x.percent).toBe(-100);
    expect(presetState('slide', 0.25, 'up').y.percent).toBe(75);
    expect(presetState('scale', 0.5, null)).toMatchObject({ scaleX: 0.5, scaleY: 0.5 });
    expect(presetState('spin', 0.5, 'right').rotation).toBe(-180);
    expect(presetState('spin', 0.5, 'left').rotation).toBe(180);
    expect(presetState('wipe', 0.25, 'right').inset).toEqual({ top: 0, right: 0.75, bottom: 0, left: 0 });
    expect(presetState('bounce', 0, 'down').y.percent).toBe(-100);
  });

  it('continuous and cycle presets', () => {
    expect(presetState('zoom', 0.5, null).scaleX).toBeCloseTo(1.1, 12);
    expect(presetState('pan', 1, 'left').x.percent).toBeCloseTo(-5, 12);
    expect(presetState('pulse', 0.5, null).scaleX).toBeCloseTo(1.1, 12);
    for (const name of ['wiggle', 'shake', 'pulse'] as const) {
      const start = presetState(name, 0, null);
      const end = presetState(name, 1, null);
      expect(start.rotation).toBeCloseTo(0, 9);
      expect(end.x.percent).toBeCloseTo(0, 9);
      expect(end.scaleX).toBeCloseTo(1, 9);
    }
  });

  it('times entries at the start and exits (the entry backwards, travelling in direction) at the end', () => {
    const [entry, exit] = resolveMotions([{ type: 'slide', direction: 'up', duration: 1, easing: 'quadratic_out' }, { type: 'slide', time: 'end', direction: 'up', duration: 1, easing: 'quadratic_out' }], 5, NO_CUSTOMS);
    expect(entry).toMatchObject({ start: 0, duration: 1, backwards: false, direction: 'up' });
    expect(exit).toMatchObject({ start: 4, duration: 1, backwards: true, direction: 'down' });
    const ease = easingFunction('quadratic_out');
    // Entry from below: +100 % → 0.
    expect(motionsState([entry], 0.5).y.percent).toBeCloseTo(100 * (1 - ease(0.5)), 9);
    // Exit upwards: 0 → −100 %.
    expect(motionsState([exit], 4.25).y.percent).toBeCloseTo(-100 * (1 - ease(0.75)), 9);
    expect(motionsState([exit], 4).y.percent).toBeCloseTo(0, 9);
    expect(motionsState([exit], 5).y.percent).toBeCloseTo(-100, 9);
  });

  it('holds, loops, reverses and combines', () => {
    expect(motionPosition({ start: 1, duration: 2, loop: false }, 0.5)).toBe(0);
    expect(motionPosition({ start: 1, duration: 2, loop: false }, 2)).toBe(0.5);
    expect(motionPosition({ start: 1, duration: 2, loop: false }, 9)).toBe(1);
    expect(motionPosition({ start: 1, duration: 2, loop: true }, 4)).toBeCloseTo(0.5, 12);
    expect(motionPosition({ start: 1, duration: 2, loop: true }, 5)).toBe(1);
    const [reversed] = resolveMotions([{ type: 'fade', duration: 1, reversed: true }], 3, NO_CUSTOMS);
    expect(motionsState([reversed], 0.25).opacity).toBeCloseTo(0.75, 12);
    const motions = resolveMotions([{ type: 'fade', duration: 1 }, { type: 'scale', duration: 2, easing: 'linear' }, { type: 'spin', time: 1, duration: 1, easing: 'linear' }], 3, NO_CUSTOMS);
    const combined = motionsState(motions, 0.5);
    expect(combined).toMatchObject({ opacity: 0.5, scaleX: 0.25, rotation: -360 });
    // Durations are clipped to the element.
    expect(resolveMotions([{ type: 'fade', time: 2, duration: 5 }], 3, NO_CUSTOMS)[0].duration).toBe(1);
    // Continuous presets last until the element ends.
    expect(resolveMotions([{ type: 'zoom', time: 1 }], 4, NO_CUSTOMS)[0].duration).toBe(3);
    expect(combine(state({ inset: { top: 0.2, right: 0, bottom: 0, left: 0.5 } }), state({ inset: { top: 0.4, right: 0, bottom: 0, left: 0.1 } })).inset).toEqual({ top: 0.4, right: 0, bottom: 0, left: 0.5 });
  });
});

describe('custom keyframes', () => {
  const keyframes = resolveKeyframes([
    { offset: 1, x: 200, opacity: 1 },
    { offset: 0, x: 0, easing: 'quadratic_in', opacity: 0 },
    { offset: 0.5, x: 100, x_scale: '50%' },
  ]);

  it('interpolates each property between the keyframes that set it, eased by the keyframe the stretch starts at', () => {
    expect(keyframeValue(keyframes, 'xPx', 0.25)).toBeCloseTo(100 * 0.25, 12);
    expect(keyframeValue(keyframes, 'xPx', 0.75)).toBeCloseTo(150, 12);
    // opacity is set at 0 and 1 only: quadratic_in over the whole span.
    expect(keyframeValue(keyframes, 'opacity', 0.5)).toBeCloseTo(0.25, 12);
    // x_scale set once: held everywhere; y_scale never set: rests at 1.
    expect(keyframeValue(keyframes, 'scaleX', 0)).toBe(0.5);
    expect(keyframeValue(keyframes, 'scaleY', 0.3)).toBe(1);
  });

  it('mixes px and percent offsets and holds outside 0..1', () => {
    const mixed = resolveKeyframes([{ offset: 0, y: '100%' }, { offset: 1, y: 40, z_rotation: '90deg' }]);
    expect(keyframeState(mixed, 0.5).y).toEqual({ px: 20, percent: 50 });
    expect(keyframeState(mixed, 0.5).rotation).toBe(90);
    expect(keyframeState(mixed, 1.2).y).toEqual({ px: 40, percent: 0 });
  });

  it('plays through motion[].custom with the motion timing', () => {
    const customs = new Map([['glide', { name: 'glide', duration: 2, keyframes: [{ offset: 0, x: 0 }, { offset: 1, x: 100 }] }]]);
    const [motion] = resolveMotions([{ custom: 'glide', time: 'end' }], 10, customs);
    expect(motion).toMatchObject({ start: 8, duration: 2, backwards: false });
    expect(motionsState([motion], 9).x.px).toBeCloseTo(50, 12);
  });
});

describe('text splitting', () => {
  it('keeps grapheme clusters whole', () => {
    expect(splitGraphemes('e\u0301a👍🏽🇫🇷👨‍👩‍👧')).toEqual(['e\u0301', 'a', '👍🏽', '🇫🇷', '👨‍👩‍👧']);
  });

  it('splits words and keeps the white space between them', () => {
    expect(splitWords('Hello  big\nworld')).toEqual([
      { text: 'Hello', space: false }, { text: '  ', space: true }, { text: 'big', space: false }, { text: '\n', space: true }, { text: 'world', space: false },
    ]);
  });

  it('finds the direction of right-to-left text and keeps Arabic letters joined', () => {
    expect(textDirection('שלום world')).toBe('rtl');
    expect(textDirection('123 مرحبا')).toBe('rtl');
    expect(textDirection('Hello مرحبا')).toBe('ltr');
    const letters = splitGraphemes('سلام');
    expect(letters.map((_, i) => joinedLetter(letters, i))).toEqual(['س\u200d', '\u200dل\u200d', '\u200dا\u200d', '\u200dم']);
    expect(joinedLetter(['a', 'b'], 0)).toBe('a');
  });

  it('staggers parts from the start, or so that the last ends with the element', () => {
    expect(partStart({ start: 0.5, stagger: 0.1, duration: 0.4, atEnd: false }, 3, 5, 4)).toBeCloseTo(0.8, 12);
    expect(partStart({ start: 0, stagger: 0.1, duration: 0.4, atEnd: true }, 4, 5, 4)).toBeCloseTo(3.6, 12);
  });
});

describe('transitions', () => {
  const request: RenderRequest = {
    frame_rate: 10,
    elements: [
      { type: 'shape', id: 'a', track: 1, duration: 2 },
      { type: 'shape', id: 'b', track: 1, duration: 2 },
      { type: 'shape', id: 'c', track: 1, duration: 1 },
      { type: 'shape', id: 'd', time: 3, duration: 1 },
    ],
    transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b', duration: 0.5 }],
  };

  it('starts the next element on the track the duration earlier, so the composition is that much shorter', () => {
    const timeline = resolveTimeline(request, {});
    expect(timeline.elements.map((element) => [element.startSeconds, element.endSeconds])).toEqual([[0, 2], [1.5, 3.5], [3.5, 4.5], [3, 4]]);
    expect(timeline.durationSeconds).toBe(4.5);
    const resolved = resolveRequest(request, {});
    expect(resolved.transitions).toEqual([{ index: 0, type: 'cross_dissolve', window: { start: 1.5, end: 2 } }]);
    const a = resolved.elements.find((element) => element.id === 'a')!;
    const b = resolved.elements.find((element) => element.id === 'b')!;
    expect(a.animation!.transitions[0]).toMatchObject({ role: 'from' });
    expect(b.animation!.transitions[0].order).toBeGreaterThan(a.animation!.transitions[0].order);
    // b draws in front of a only while the transition runs; the sound crossfades across it.
    expect(paintOrderAt(b, 16, 10)).toBeGreaterThan(paintOrderAt(a, 16, 10)!);
    expect(paintOrderAt(b, 25, 10)).toBe(b.animation!.order);
    expect(transitionVolume(a, 18, 10)).toBeCloseTo(0.4, 12);
    expect(transitionVolume(b, 3, 10)).toBeCloseTo(0.6, 12);
    expect(transitionVolume(b, 10, 10)).toBe(1);
  });

  it('joins three 4 s scenes with two 0.5 s transitions into 11 s', () => {
    const scene = (id: string) => ({ type: 'image' as const, id, track: 1, duration: 4, source_url: `https://example.com/${id}.jpg` });
    const timeline = resolveTimeline({
      elements: [scene('a'), scene('b'), scene('c'), { type: 'text', text: 'over all' }],
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b' }, { type: 'wipe_left', from_id: 'b', to_id: 'c' }],
    }, {});
    expect(timeline.durationSeconds).toBe(11);
    expect(timeline.elements.map((element) => element.startSeconds)).toEqual([0, 3.5, 7, 0]);
  });

  it('runs in the overlap of explicitly timed elements, or not at all', () => {
    expect(transitionWindow({ start: 0, end: 2 }, { start: 1.8, end: 4 }, 0.5)).toEqual({ start: 1.8, end: 2 });
    expect(transitionWindow({ start: 0, end: 2 }, { start: 0, end: 4 }, 0.5)).toEqual({ start: 1.5, end: 2 });
    expect(transitionWindow({ start: 0, end: 2 }, { start: 2, end: 4 }, 0.5)).toBeNull();
    expect(transitionProgress({ start: 1, end: 2 }, 1.25)).toBe(0.25);
  });

  it('draws each type from progress', () => {
    const canvas = { width: 100, height: 50 };
    expect(transitionState('cross_dissolve', 'to', 0.3, canvas).opacity).toBe(0.3);
    expect(transitionState('cross_dissolve', 'from', 0.3, canvas)).toEqual(REST);
    expect(transitionState('wipe_up', 'to', 0.25, canvas).inset.top).toBe(0.75);
    expect(transitionState('slide_left', 'from', 1, canvas).x.px).toBe(-100);
    expect(transitionState('slide_left', 'to', 0, canvas).x.px).toBe(100);
    expect(transitionState('slide_down', 'to', 0.5, canvas).y.px).toBeCloseTo(-25, 9);
    expect(transitionState('circle_open', 'to', 0.4, canvas).circle).toBe(0.4);
    expect(transitionState('fade_to_black', 'from', 0.4, canvas).opacity).toBe(1);
    expect(transitionState('fade_to_black', 'to', 0.4, canvas).opacity).toBe(0);
    expect(overlayOpacity('fade_to_white', 0.5)).toBe(1);
    expect(overlayOpacity('fade_to_white', 0.25)).toBe(0.5);
    expect(overlayOpacity('wipe_left', 0.5)).toBe(0);
  });
});

describe('groups', () => {
  it('breaks parent cycles and keeps the first group of a member', () => {
    const structure = groupStructure({
      groups: [
        { id: 'a', parent: 'c', members: ['x'] },
        { id: 'b', parent: 'a', members: ['y', 'x'] },
        { id: 'c', parent: 'b', members: ['z'] },
      ],
    });
    expect(structure.cycles).toEqual(['c']);
    expect([...structure.parentOf]).toEqual([['a', 'c'], ['b', 'a']]);
    expect(structure.groupOfMember.get('x')).toBe('a');
  });

  it('stacks members in a row or column about the origin', () => {
    const member = (index: number, width: number, height: number) => ({
      index, element: { type: 'shape' as const }, start: 0, end: 1,
      box: { x: 0, y: 0, width, height, xAnchor: { unit: '%' as const, value: 50 }, yAnchor: { unit: '%' as const, value: 50 } },
    });
    const canvas = { width: 200, height: 100 };
    const row = stackPositions({ id: 'g', members: [], layout: { type: 'stack', gap: 10, align: 'start', origin: { x: 100, y: 50 } } }, [member(0, 20, 20), member(1, 40, 10)], canvas);
    expect([...row]).toEqual([[0, { x: 75, y: 50 }], [1, { x: 115, y: 45 }]]);
    const column = stackPositions({ id: 'g', members: [], layout: { type: 'stack', direction: 'column', align: 'end' } }, [member(0, 20, 20), member(1, 40, 10)], canvas);
    expect([...column]).toEqual([[0, { x: 110, y: 45 }], [1, { x: 100, y: 60 }]]);
  });

  it('composes group layers down the tree with member-scope animations spaced out', () => {
    const resolved = resolveRequest({
      width: 200, height: 100, frame_rate: 10,
      elements: [
        { type: 'shape', id: 'p', x: 50, y: 50, width: 20, height: 20, duration: 4 },
        { type: 'shape', id: 'q', x: 150, y: 50, width: 20, height: 20, duration: 4 },
      ],
      groups: [
        { id: 'outer', rotation_degrees: 10, members: ['q'] },
        { id: 'inner', parent: 'outer', scale: '50%', opacity: 0.5, members: ['p'], animations: [{ type: 'fade', scope: 'members', delay: 0.5, spacing: 1, duration: 1 }] },
      ],
    }, {});
    const p = resolved.elements.find((element) => element.id === 'p')!.animation!.groups!;
    expect(p.layers.map((layer) => layer.id)).toEqual(['outer', 'inner']);
    // outer's default pivot: the centre of all its members (p and q): (100, 50).
    expect(p.layers[0].pivot).toEqual({ x: 100, y: 50 });
    expect(p.layers[1]).toMatchObject({ pivot: { x: 50, y: 50 }, scale: 0.5, opacity: 0.5 });
    expect(p.motions).toHaveLength(1);
    expect(p.motions[0].start).toBe(0.5);
    const q = resolved.elements.find((element) => element.id === 'q')!.animation!.groups!;
    expect(q.layers.map((layer) => layer.id)).toEqual(['outer']);
    expect(q.motions).toEqual([]);
  });
});

describe('speed ramps', () => {
  const ramp = [{ time: 0, rate: 1 }, { time: 1, rate: 3 }];

  it('integrates the piecewise linear rate exactly', () => {
    expect(rateAt(ramp, 1, 0.5)).toBe(2);
    expect(rateAt(ramp, 2, 5)).toBe(6);
    for (const t of [0.3, 0.5, 1]) expect(sourceOffset(ramp, 1, t)).toBeCloseTo(t + t * t, 12);
    expect(sourceOffset(ramp, 1, 1.5)).toBeCloseTo(2 + 1.5, 12);
    expect(sourceOffset(ramp, 2, 0.5)).toBeCloseTo(2 * 0.75, 12);
    expect(sourceOffset([{ time: 1, rate: 2 }], 1, 0.5)).toBeCloseTo(1, 12);
  });

  it('inverts the integral for the element length', () => {
    expect(timeForOffset(ramp, 1, 2)).toBeCloseTo(1, 9);
    expect(timeForOffset(ramp, 1, 4)).toBeCloseTo(5 / 3, 9);
    const timeline = resolveTimeline({ elements: [{ type: 'video', source_url: 'https://example.com/a.mp4', out_point: 4, playback_rate_keyframes: ramp }] }, {});
    expect(timeline.elements[0].endSeconds).toBeCloseTo(5 / 3, 9);
  });
});

describe('audio levels', () => {
  const sine = (frequency: number, amplitude: number, seconds = 1) =>
    Float32Array.from({ length: ANALYSIS_RATE * seconds }, (_, i) => amplitude * Math.sin((2 * Math.PI * frequency * i) / ANALYSIS_RATE));

  it('reads a sine as its amplitude, in its band only', () => {
    const bass = levelsOf(sine(100, 1).subarray(0, WINDOW));
    expect(bass.amplitude).toBeCloseTo(1, 1);
    expect(bass.bass).toBeCloseTo(1, 1);
    expect(bass.mid).toBeLessThan(0.05);
    expect(bass.treble).toBeLessThan(0.01);
    const mid = levelsOf(sine(1000, 0.5).subarray(0, WINDOW));
    expect(mid.mid).toBeCloseTo(0.5, 1);
    expect(mid.bass).toBeLessThan(0.01);
    const treble = levelsOf(sine(6000, 0.25).subarray(0, WINDOW));
    expect(treble.treble).toBeCloseTo(0.25, 1);
    expect(levelsOf(new Float32Array(WINDOW))).toEqual({ amplitude: 0, bass: 0, mid: 0, treble: 0 });
  });

  it('mixes the audible spans at their place, volume and source time', () => {
    const source = { samples: sine(1000, 0.5, 2) };
    const spans = [{ source, start: 1, end: 2, sourceTime: (t: number) => t - 1, volume: 0.5 }];
    expect(levelsOf(mixWindow(spans, 0.5)).amplitude).toBe(0);
    expect(levelsOf(mixWindow(spans, 1.5)).amplitude).toBeCloseTo(0.25, 2);
    // Half the window before the element starts: half the energy.
    expect(levelsOf(mixWindow(spans, 1)).amplitude).toBeCloseTo(0.25 / Math.SQRT2, 2);
  });
});

describe('motion violations', () => {
  it('reports transitions apart, group cycles, double membership and input without effect', () => {
    const found = findViolations({
      elements: [
        { type: 'shape', id: 'a', duration: 1, motion: [{ type: 'fade', direction: 'left' }] },
        { type: 'shape', id: 'b', time: 2, duration: 1 },
        { type: 'audio', id: 'm', source_url: 'https://example.com/a.mp3', out_point: 1 },
        { type: 'text', id: 't', text: 'hi' },
      ],
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b' }],
      groups: [
        { id: 'g1', parent: 'g2', members: ['a', 'm'] },
        { id: 'g2', parent: 'g1', members: ['a', 't'], layout: { type: 'stack' } },
      ],
    });
    const codes = found.map((violation) => [violation.code, violation.pointer]);
    expect(codes).toEqual(expect.arrayContaining([
      ['TRANSITION_ELEMENTS_APART', '/transitions/0'],
      ['GROUP_PARENT_CYCLE', '/groups/1/parent'],
      ['GROUP_MEMBER_IN_TWO_GROUPS', '/groups/1/members/0'],
      ['MOTION_DIRECTION_IGNORED', '/elements/0/motion/0/direction'],
      ['GROUP_MEMBER_NOT_VISUAL', '/groups/0/members/1'],
      ['STACK_TEXT_WITHOUT_SIZE', '/groups/1/members/1'],
    ]));
  });
});

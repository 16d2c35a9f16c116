import * as path from 'node:path';
import { easingFunction } from '../composition/src/motion/easing';
import { audioSamples, ffmpeg, Frame, frameAt, probe, soundSpans } from './helpers/media';
import { Checks, Rgb } from './helpers/checks';
import { withRenderApp } from './helpers/render-app';

/** How far a decoded channel may be from the expected one in this file's checks (encoding, scaling). */
const COLOUR_TOLERANCE = 30;

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];
const YELLOW = [255, 255, 0];
const CYAN = [0, 255, 255];
const MAGENTA = [255, 0, 255];
const WHITE = [255, 255, 255];
const BLACK = [0, 0, 0];

const brightness = (rgb: Rgb) => (rgb[0] + rgb[1] + rgb[2]) / 3;

/** First x in [x0, x1) on row y whose pixel matches, or -1. */
function leftEdge(frame: Frame, y: number, x0: number, x1: number, matches: (rgb: Rgb) => boolean): number {
  for (let x = x0; x < x1; x += 1) if (matches(frame.at(x, y))) return x;
  return -1;
}

/** How many pixels of the row segment match. */
function countRow(frame: Frame, y: number, x0: number, x1: number, matches: (rgb: Rgb) => boolean): number {
  let count = 0;
  for (let x = x0; x < x1; x += 1) if (matches(frame.at(x, y))) count += 1;
  return count;
}

function countRegion(frame: Frame, [x0, y0, x1, y1]: [number, number, number, number], matches: (rgb: Rgb) => boolean): number {
  let count = 0;
  for (let y = y0; y < y1; y += 1) count += countRow(frame, y, x0, x1, matches);
  return count;
}


/**
 * Issue 12 (motion and time), proven through the REST API: each render is a grid of small tiles,
 * one feature each, decoded with ffmpeg and measured against the formulas.
 */
describe('motion and time (through the REST API)', () => {
  const house = withRenderApp({
    name: 'motion',
    fixtures: async (dir) => {
      // colours.mp4: 160x90 at 30 fps, one colour per second (red, green, blue, white) and a
      // 440 Hz tone throughout; BT.709 like Chromium assumes.
      await ffmpeg(
        '-f', 'lavfi', '-i', 'color=c=0xff0000:s=160x90:r=30:d=1',
        '-f', 'lavfi', '-i', 'color=c=0x00ff00:s=160x90:r=30:d=1',
        '-f', 'lavfi', '-i', 'color=c=0x0000ff:s=160x90:r=30:d=1',
        '-f', 'lavfi', '-i', 'color=c=0xffffff:s=160x90:r=30:d=1',
        '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=4',
        '-filter_complex', '[0:v][1:v][2:v][3:v]concat=n=4:v=1,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[v]',
        '-map', '[v]', '-map', '4:a',
        '-c:v', 'libx264', '-preset', 'ultrafast', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv',
        '-c:a', 'aac', '-shortest', path.join(dir, 'colours.mp4'),
      );
      // A 6 kHz tone at amplitude 0.5 (sine's default is 1/8), for the treble band; AAC in MP4, as
      // most sound arrives (the page decodes it for the analysis).
      await ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=6000:sample_rate=48000:duration=1,volume=4', '-c:a', 'aac', '-b:a', '192k', path.join(dir, 'treble.m4a'));
    },
  });
  const url = house.mediaUrl;

  /** Submits, polls to the end, downloads; returns the job and the local output file. */
  const render = (name: string, body: Record<string, unknown>) => house.render(name, body);

  const shape = (id: string, fill_color: string, x: number, y: number, width: number, height: number, rest: object = {}) =>
    ({ type: 'shape', id, fill_color, x, y, width, height, ...rest });

  it('lists motions, transitions, easings and text animations as supported, and refuses bad motion input with 422', async () => {
    const capabilities = (await house.app.http.get('/v1/capabilities').expect(200)).body;
    for (const catalog of ['motions', 'transitions', 'easings', 'text_animations']) {
      expect(capabilities[catalog].length).toBeGreaterThan(0);
      expect(capabilities[catalog].filter((entry: { supported: boolean }) => !entry.supported)).toEqual([]);
    }
    for (const field of ['transitions', 'groups', 'motion_blur', 'custom_animations']) expect(capabilities.request_schema.properties[field]).not.toHaveProperty('x-supported');
    for (const field of ['motion', 'playback_rate_keyframes']) expect(capabilities.element_schemas.video.properties[field]).not.toHaveProperty('x-supported');

    const refused = await house.api().post('/v1/renders').send({
      custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0, x: 0 }, { offset: 1, x: 10 }] }] },
      elements: [
        { type: 'shape', motion: [{ custom: 'glyde' }] },
        { type: 'shape', motion: [{ type: 'slide', easing: 'cubic_in', back: 2 }] },
        { type: 'text', text: 'hi', animation_preset: 'typewritter' },
      ],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('invalid_request');
    const byPointer = Object.fromEntries(refused.body.error.details.errors.map((error: { pointer: string; msg: string }) => [error.pointer, error.msg]));
    expect(byPointer['/elements/0/motion/0/custom']).toMatch(/did you mean "glide"/);
    expect(byPointer['/elements/1/motion/0/easing']).toMatch(/"back" applies to easing "back_in"/);
    expect(byPointer['/elements/2/animation_preset']).toMatch(/did you mean "typewriter"/);

    // Violations are advisory: the (tiny) render is accepted with ok: false.
    const findings = await house.api().post('/v1/renders').send({
      width: 16, height: 16, frame_rate: 1, output_format: 'png',
      elements: [shape('a', '#ff0000', 10, 10, 10, 10, { duration: 1 }), shape('b', '#00ff00', 10, 10, 10, 10, { time: 2, duration: 1 }), shape('c', '#0000ff', 10, 10, 10, 10)],
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b' }],
      groups: [
        { id: 'g1', parent: 'g2', members: ['a'] },
        { id: 'g2', parent: 'g1', members: ['b', 'a'] },
      ],
    });
    expect(findings.status).toBe(202);
    expect(findings.body.ok).toBe(false);
    const codes = findings.body.violations.map((violation: { code: string }) => violation.code);
    expect(codes).toEqual(expect.arrayContaining(['TRANSITION_ELEMENTS_APART', 'GROUP_PARENT_CYCLE', 'GROUP_MEMBER_IN_TWO_GROUPS']));
  });

  it('moves presets and keyframes by their easing, types text, runs transitions, turns and stacks groups, and scales with the sound', async () => {
    const { file } = await render('motion-grid', {
      width: 320,
      height: 180,
      duration: 2,
      frame_rate: 10,
      background_color: '#000000',
      custom_animations: {
        element: [{ name: 'glide', keyframes: [{ offset: 0, x: 0, easing: 'quadratic_in' }, { offset: 0.5, x: 100 }, { offset: 1, x: 200 }] }],
      },
      elements: [
        // Row 1: slide preset, 40 px (its own width) to the right, ease_in_out over 1 s; left edge rests at 40.
        shape('slide', '#ffffff', 60, 15, 40, 20, { motion: [{ type: 'slide', direction: 'right', duration: 1, easing: 'ease_in_out' }] }),
        // Row 2: custom keyframes x 0 → 100 px (quadratic_in) → 200 px (linear); left edge rests at 10.
        shape('glide', '#00ff00', 20, 45, 20, 20, { motion: [{ custom: 'glide', duration: 1 }] }),
        // Row 3: typewriter, 20 letters a second.
        { type: 'text', id: 'typed', text: 'HHHHHHHH', x: 10, y: 75, x_anchor: '0%', font_family: 'Roboto Mono', font_size: 20, animation_preset: 'typewriter' },
        // Transitions on two tracks: red → blue cross-dissolve, green → yellow wipe to the right.
        shape('xa', '#ff0000', 220, 40, 40, 40, { track: 1, duration: 1 }),
        shape('xb', '#0000ff', 220, 40, 40, 40, { track: 1, duration: 1 }),
        shape('wa', '#00ff00', 280, 40, 40, 40, { track: 2, duration: 1 }),
        shape('wb', '#ffff00', 280, 40, 40, 40, { track: 2, duration: 1 }),
        // A group turned 90° about its pivot (250, 110): the square 40 px right of it lands 40 px below.
        shape('turned', '#ff0000', 290, 110, 16, 16),
        // A stack row centred on (80, 160), gap 10.
        shape('s1', '#00ffff', 0, 0, 20, 20),
        shape('s2', '#ff00ff', 0, 0, 30, 16),
        shape('s3', '#ffff00', 0, 0, 20, 20),
        // Scaled by the treble of the mix: a 6 kHz tone plays from 1 s.
        shape('loud', '#ffffff', 290, 150, 20, 20),
        { type: 'audio', source_url: url('treble.m4a'), time: 1 },
      ],
      transitions: [
        { type: 'cross_dissolve', from_id: 'xa', to_id: 'xb', duration: 0.4 },
        { type: 'wipe_right', from_id: 'wa', to_id: 'wb', duration: 0.4 },
      ],
      groups: [
        { id: 'turn', pivot: { x: 250, y: 110 }, rotation_degrees: 90, members: ['turned'] },
        { id: 'row', layout: { type: 'stack', direction: 'row', gap: 10, origin: { x: 80, y: 160 } }, members: ['s1', 's2', 's3'] },
        { id: 'listen', members: ['loud'], animations: [{ audio: { feature: 'treble', scale: 2 } }] },
      ],
    });
    const frames = new Map<number, Frame>();
    for (const t of [0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.8, 1.2, 1.5]) frames.set(t, await frameAt(file, t));
    const at = (t: number) => frames.get(t)!;
    const c = new Checks(COLOUR_TOLERANCE);
    const white = (rgb: Rgb) => brightness(rgb) > 128;
    const green = (rgb: Rgb) => rgb[1] > 128 && rgb[0] < 100;

    const easeInOut = easingFunction('ease_in_out');
    for (const t of [0.2, 0.5, 0.8]) {
      c.near(`slide: left edge at ${t} s = 40 − 40 (1 − ease_in_out(${t}))`, leftEdge(at(t), 15, 0, 160, white), 40 - 40 * (1 - easeInOut(t)), 2);
    }
    for (const [t, x] of [[0.2, 10 + 100 * 0.4 ** 2], [0.4, 10 + 100 * 0.8 ** 2], [0.8, 10 + 100 + 100 * 0.6]] as const) {
      c.near(`keyframes: left edge at ${t} s`, leftEdge(at(t), 45, 0, 320, green), x, 2);
    }

    const typed = (t: number) => countRegion(at(t), [0, 62, 200, 92], white);
    const first = await frameAt(file, 0);
    c.that('typewriter: nothing typed at 0 s', countRegion(first, [0, 62, 200, 92], white) === 0, countRegion(first, [0, 62, 200, 92], white));
    c.near('typewriter: three times the ink at 0.3 s (6 letters) as at 0.1 s (2 letters)', typed(0.3) / Math.max(1, typed(0.1)), 3, 0.4);
    c.near('typewriter: all 8 letters at 0.5 s', typed(0.5) / Math.max(1, typed(0.1)), 4, 0.5);

    c.colour('cross-dissolve: red before (0.5 s)', at(0.5).at(220, 40), RED);
    c.colour('cross-dissolve: the even mix of red and blue at its middle (0.8 s)', at(0.8).at(220, 40), [128, 0, 128], 25);
    c.colour('cross-dissolve: blue after (1.2 s)', at(1.2).at(220, 40), BLUE);
    c.colour('wipe: left half yellow at its middle (0.8 s)', at(0.8).at(268, 40), YELLOW);
    c.colour('wipe: right half still green at its middle (0.8 s)', at(0.8).at(292, 40), GREEN);
    c.colour('wipe: a quarter in (0.7 s), x = 275 still green', at(0.7).at(275, 40), GREEN);
    c.colour('wipe: a quarter in (0.7 s), x = 265 yellow', at(0.7).at(265, 40), YELLOW);

    c.colour('group: the square turned 90° about the pivot lies below it (250, 150)', at(0.5).at(250, 150), RED);
    c.colour('group: nothing where the square was (290, 110)', at(0.5).at(290, 110), BLACK);

    c.colour('stack: first member centred at (45, 160)', at(0.5).at(45, 160), CYAN);
    c.colour('stack: second member centred at (80, 160)', at(0.5).at(80, 160), MAGENTA);
    c.colour('stack: third member centred at (115, 160)', at(0.5).at(115, 160), YELLOW);
    c.colour('stack: gap between first and second (60, 160)', at(0.5).at(60, 160), BLACK);
    c.colour('stack: gap between second and third (100, 160)', at(0.5).at(100, 160), BLACK);
    c.colour('stack: align center: the 16 px member starts below y = 148', at(0.5).at(80, 147), BLACK);
    c.colour('stack: align center: the 20 px member reaches y = 152', at(0.5).at(45, 152), CYAN);

    const quiet = countRow(at(0.5), 150, 250, 320, white);
    const loud = countRow(at(1.5), 150, 250, 320, white);
    c.near('audio-reactive: 20 px wide in silence', quiet, 20, 2);
    c.near('audio-reactive: twice as wide with the tone at amplitude 0.5 (scale 1 + 2 × 0.5)', loud, 40, 3);
    c.assertAll();
  });

  it('remaps time by playback_rate_keyframes (with speed) frame-exactly and keeps the sound going', async () => {
    const ramp = [{ time: 0, rate: 1 }, { time: 1, rate: 3 }];
    const { job, file } = await render('speed-ramp', {
      width: 160,
      height: 90,
      frame_rate: 30,
      elements: [
        // rate 1 + 2t for the first second, then 3: source second = t + t² until t = 1, then 2 + 3 (t − 1).
        { type: 'video', source_url: url('colours.mp4'), x: '25%', width: '50%', height: '100%', playback_rate_keyframes: ramp },
        // speed 2 × (0.5 → 1.5): the same curve.
        {
          type: 'video', source_url: url('colours.mp4'), x: '75%', width: '50%', height: '100%', speed: 2, volume: 0,
          playback_rate_keyframes: [{ time: 0, rate: 0.5 }, { time: 1, rate: 1.5 }],
        },
      ],
    });
    const c = new Checks(COLOUR_TOLERANCE);
    // Source 4 s: t + t² = 2 at t = 1, then 2 s more at rate 3: 1.667 s.
    c.near('duration from the integral of the rate', Number(job.output.duration), 5 / 3, 1 / 30 + 0.001);
    const expected: [number, Rgb][] = [[0.5, RED], [0.9, GREEN], [1.2, BLUE], [1.5, WHITE]];
    for (const [t, colour] of expected) {
      const frame = await frameAt(file, t);
      c.colour(`ramp: at ${t} s the source second ${t <= 1 ? t + t * t : 2 + 3 * (t - 1)}`, frame.at(40, 45), colour);
      c.colour(`speed × ramp: at ${t} s the same source second`, frame.at(120, 45), colour);
    }
    const spans = soundSpans(await audioSamples(file, 48000, 'lowpass=f=3000'), 48000);
    c.that('the sound plays from 0 to the end without a gap', spans.length === 1 && spans[0].start <= 0.02 && spans[0].end >= 5 / 3 - 0.05, spans);
    const info = await probe(file);
    c.that('an audio stream', info.streams.some((stream) => stream.codec_type === 'audio'), info.streams.map((stream) => stream.codec_type));
    c.assertAll();
  });

  it('blurs fast motion over the shutter with the requested number of samples', async () => {
    // 30 px per frame at 10 fps; shutter 1 and 4 samples put copies 10 px apart, each weighing 1/4.
    const { file } = await render('motion-blur', {
      width: 320,
      height: 40,
      duration: 1,
      frame_rate: 10,
      background_color: '#000000',
      motion_blur: { samples: 4, shutter: 1 },
      custom_animations: { element: [{ name: 'dash', keyframes: [{ offset: 0, x: 0 }, { offset: 1, x: 300 }] }] },
      elements: [shape('dash', '#ffffff', 10, 20, 20, 40, { motion: [{ custom: 'dash', duration: 1 }] })],
    });
    const frame = await frameAt(file, 0.5);
    const c = new Checks(COLOUR_TOLERANCE);
    // At 0.5 s the samples show the box at offsets 150, 140, 130, 120 px: [0, 20] + offset.
    const coverage = (x: number) => [150, 140, 130, 120].filter((offset) => x + 0.5 >= offset && x + 0.5 < offset + 20).length;
    for (const x of [115, 125, 135, 145, 155, 165, 175]) {
      c.near(`blurred level at x = ${x}: ${coverage(x)} of 4 samples cover it`, brightness(frame.at(x, 20)), (255 * coverage(x)) / 4, 20);
    }
    c.that('no pixel of the moving box is fully white (it never stays put over the shutter)', countRow(frame, 20, 0, 320, (rgb) => brightness(rgb) > 200) === 0, countRow(frame, 20, 0, 320, (rgb) => brightness(rgb) > 200));
    c.assertAll();
  });
});

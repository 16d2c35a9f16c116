import { drawnFrames } from './drawn-frames';
import type { RenderRequest } from './request';
import { resolveRequest, type MediaInfo } from './resolve';

const PHOTO = 'https://example.com/photo.jpg';
const CLIP = 'https://example.com/clip.mp4';
const media: Record<string, MediaInfo> = {
  [PHOTO]: { width: 800, height: 600 },
  [CLIP]: { duration: 10, width: 1280, height: 720, has_audio: true, has_video: true },
};

function plan(request: RenderRequest) {
  return drawnFrames(request, resolveRequest(request, media));
}

describe('drawnFrames', () => {
  it('draws a still scene once and holds it for every frame', () => {
    const result = plan({ duration: 2, elements: [{ type: 'image', source_url: PHOTO }, { type: 'text', text: 'Title' }] });
    expect(result).toEqual({ frames: [0], holds: [60], durationInFrames: 60 });
  });

  it('draws again where an element enters or leaves', () => {
    const result = plan({ duration: 3, elements: [{ type: 'shape', time: 1, duration: 1 }] });
    expect(result.frames).toEqual([0, 30, 60]);
    expect(result.holds).toEqual([30, 30, 30]);
  });

  it('draws every frame of a fade, plus the first frame after it', () => {
    const result = plan({ duration: 2, elements: [{ type: 'shape', fade_in_duration: 0.5, fade_out_duration: 0.5 }] });
    // fade in: frames 0..15 change; fade out: frames 44..59
    expect(result.frames).toEqual([...range(0, 16), ...range(44, 59)]);
    expect(result.holds.reduce((a, b) => a + b, 0)).toBe(60);
  });

  it('draws the cross-dissolve window between two pictures and holds the rest', () => {
    const result = plan({
      elements: [
        { type: 'image', id: 'a', source_url: PHOTO, track: 1, duration: 2 },
        { type: 'image', id: 'b', source_url: PHOTO, track: 1, duration: 2 },
      ],
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b', duration: 0.5 }],
    });
    expect(result.durationInFrames).toBe(105);
    expect(result.frames.length).toBeLessThan(25);
    expect(result.frames).toEqual(expect.arrayContaining(range(45, 61)));
    expect(result.holds.reduce((a, b) => a + b, 0)).toBe(105);
  });

  it('draws only the window of a one-off motion', () => {
    const result = plan({ duration: 3, elements: [{ type: 'text', text: 'Hi', motion: [{ type: 'slide', duration: 1 }] }] });
    expect(result.frames).toEqual(range(0, 31));
    expect(result.holds.at(-1)).toBe(59);
  });

  it('draws every frame while a video, a looping motion, an effect or per-frame noise is on screen', () => {
    const cases: RenderRequest[] = [
      { duration: 1, elements: [{ type: 'video', source_url: CLIP }] },
      { duration: 1, elements: [{ type: 'shape', motion: [{ type: 'pulse', loop: true }] }] },
      { duration: 1, elements: [{ type: 'image', source_url: PHOTO, effects: [{ type: 'film_grain' }] }] },
      { duration: 1, elements: [{ type: 'image', source_url: PHOTO, noise: 20 }] },
      { duration: 1, motion_blur: { samples: 4, shutter: 0.5 }, elements: [{ type: 'shape' }] },
    ];
    for (const request of cases) expect(plan(request).frames).toEqual(range(0, 29));
  });

  it('draws a text animation while it plays and holds the text before and after it', () => {
    // Typewriter: 22 letters, one every 0.05 s from the element's start (1 s): 1 s to 2.05 s, frames 30 to 62.
    const typed = plan({ duration: 4, elements: [{ type: 'text', text: 'Render service benchmark', time: 1, animation_preset: 'typewriter' }] });
    expect(typed.frames).toEqual([0, ...range(29, 63)]);
    // Words rising 0.1 s apart, each for 0.5 s, at the element's end: the last 0.7 s.
    const atEnd = plan({
      duration: 3,
      elements: [{ type: 'text', text: 'three words here', motion: [{ custom: 'rise', time: 'end' }] }],
      custom_animations: { text: [{ name: 'rise', split: 'word', stagger: 0.1, duration: 0.5, keyframes: [{ offset: 0, y: '60%', opacity: 0 }, { offset: 1, y: '0%', opacity: 1 }] }] },
    } as RenderRequest);
    expect(atEnd.frames).toEqual([0, ...range(68, 89)]);
    // Lines are counted on screen: the window of as many lines as words.
    const lines = plan({ duration: 3, elements: [{ type: 'text', text: 'one two\nthree', animation_preset: 'slide_up_lines' }] });
    expect(lines.frames).toEqual(range(0, 25));
  });

  it('draws every frame of a looping text animation', () => {
    const looping = plan({
      duration: 1,
      elements: [{ type: 'text', text: 'Hi', motion: [{ custom: 'blink', loop: true }] }],
      custom_animations: { text: [{ name: 'blink', split: 'letter', keyframes: [{ offset: 0, opacity: 0 }, { offset: 1, opacity: 1 }] }] },
    } as RenderRequest);
    expect(looping.frames).toEqual(range(0, 29));
  });

  it('holds around a video that only plays for part of the timeline', () => {
    const result = plan({ duration: 3, elements: [{ type: 'shape' }, { type: 'video', source_url: CLIP, time: 1, out_point: 1 }] });
    expect(result.frames).toEqual([0, ...range(30, 60)]);
    expect(result.holds[0]).toBe(30);
    expect(result.holds.at(-1)).toBe(30);
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

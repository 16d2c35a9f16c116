import { blendedFrames, type BlendedFrames } from './blended-frames';
import { drawnFrames } from './drawn-frames';
import type { RenderRequest } from './request';
import { resolveRequest, type MediaInfo } from './resolve';

const PHOTO = 'https://example.com/photo.jpg';
const CLIP = 'https://example.com/clip.mp4';
const media: Record<string, MediaInfo> = {
  [PHOTO]: { width: 800, height: 600 },
  [CLIP]: { duration: 10, width: 1280, height: 720, has_audio: true, has_video: true },
};

function plan(request: RenderRequest): BlendedFrames {
  return blendedFrames(request, resolveRequest(request, media));
}

/** The bench slideshow, shorter: pictures on one track with cross-dissolves, a title fading in and out over each. */
function slideshow(pictures: number): RenderRequest {
  return {
    width: 320,
    height: 180,
    elements: [
      ...Array.from({ length: pictures }, (_, i) => ({ type: 'image' as const, id: `p${i}`, track: 1, duration: i === 0 || i === pictures - 1 ? 3.25 : 3.5, source_url: PHOTO })),
      ...Array.from({ length: pictures }, (_, i) => ({ type: 'text' as const, text: `Slide ${i + 1}`, time: i * 3 + 0.25, duration: 2.5, fade_in_duration: 0.4, fade_out_duration: 0.4 })),
    ],
    transitions: Array.from({ length: pictures - 1 }, (_, i) => ({ type: 'cross_dissolve' as const, from_id: `p${i}`, to_id: `p${i + 1}`, duration: 0.5 })),
  };
}

function outputFrames(result: BlendedFrames): number {
  return result.runs.reduce((total, run) => total + run.hold, 0);
}

describe('blendedFrames', () => {
  it('draws a slideshow’s fades and dissolves as two corners each and blends the frames between', () => {
    const request = slideshow(4);
    const result = plan(request);
    const held = drawnFrames(request, resolveRequest(request, media));
    expect(result.durationInFrames).toBe(360);
    expect(outputFrames(result)).toBe(360);
    // 3 dissolves and 8 title fades, two corners each, plus the held pictures between them; the
    // corners with the title or the next picture at 0 are pictures drawn already.
    // Three pictures a slide at most: the picture, with its title, under the next picture.
    expect(result.frames.length).toBeLessThanOrEqual(3 * 4);
    expect(held.frames.length).toBeGreaterThan(150);
    expect(result.blended).toBeGreaterThan(90);
    expect(new Set(result.fixedOpacity.map((entry) => `${entry.frame} ${entry.element}`)).size).toBe(result.fixedOpacity.length);
    for (const run of result.runs) expect(run.mix.reduce((total, term) => total + term.weight, 0)).toBeCloseTo(1, 9);
  });

  it('mixes a dissolve frame from the picture before (to at 0) and after (to at 1) by its progress', () => {
    const request: RenderRequest = {
      elements: [
        { type: 'image', id: 'a', source_url: PHOTO, track: 1, duration: 2 },
        { type: 'image', id: 'b', source_url: PHOTO, track: 1, duration: 2 },
      ],
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b', duration: 0.5 }],
    };
    const result = plan(request);
    // The dissolve runs over frames 45..59 (15 frames): b is element 1, at 0 then at 1. At 0 it is
    // the picture of frame 0 (a alone): that corner is not drawn again.
    const corners = result.fixedOpacity.filter((entry) => entry.element === 1);
    expect(corners).toEqual([{ frame: 46, element: 1, factor: 1 }]);
    // 60: a has ended. At 61 b leaves the pair's paint order: the numbers change, not the picture.
    expect(result.frames).toEqual([0, 46, 60]);
    let frame = 0;
    const mixAt = new Map<number, BlendedFrames['runs'][number]['mix']>();
    for (const run of result.runs) for (let i = 0; i < run.hold; i++) mixAt.set(frame++, run.mix);
    expect(mixAt.get(50)).toEqual([{ drawn: 0, weight: expect.closeTo(2 / 3, 9) }, { drawn: 1, weight: expect.closeTo(1 / 3, 9) }]);
    expect(mixAt.get(45)).toEqual([{ drawn: 0, weight: 1 }]);
    expect(result.blended).toBe(14);
  });

  it('forces two factors where a title fades during a dissolve: four corners', () => {
    const result = plan({
      elements: [
        { type: 'image', id: 'a', source_url: PHOTO, track: 1, duration: 2 },
        { type: 'image', id: 'b', source_url: PHOTO, track: 1, duration: 2 },
        { type: 'text', text: 'Over both', time: 1.5, duration: 1.5, fade_in_duration: 0.5 },
      ],
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b', duration: 0.5 }],
    });
    const cornerFrames = new Map<number, number>();
    for (const entry of result.fixedOpacity) cornerFrames.set(entry.frame, (cornerFrames.get(entry.frame) ?? 0) + 1);
    // The corner with both at 0 is frame 0's picture (a alone): three corners drawn.
    expect([...cornerFrames.entries()]).toEqual([[46, 2], [47, 2], [48, 2]]);
    // Before, the corners, then where a ends (60) and where the title ends (90).
    expect(result.frames).toEqual([0, 46, 47, 48, 60, 90]);
    expect(result.blended).toBe(14);
  });

  it('draws every frame of a slide, a wipe, a video and a dip to black', () => {
    const cases: { request: RenderRequest; frames: number }[] = [
      { request: { duration: 1, elements: [{ type: 'text', text: 'Hi', motion: [{ type: 'slide', duration: 1 }] }] }, frames: 30 },
      { request: { duration: 1, elements: [{ type: 'video', source_url: CLIP }] }, frames: 30 },
      {
        request: {
          elements: [
            { type: 'image', id: 'a', source_url: PHOTO, track: 1, duration: 1 },
            { type: 'image', id: 'b', source_url: PHOTO, track: 1, duration: 1 },
          ],
          transitions: [{ type: 'wipe_left', from_id: 'a', to_id: 'b', duration: 1 }],
        },
        frames: 30,
      },
      {
        request: {
          elements: [
            { type: 'image', id: 'a', source_url: PHOTO, track: 1, duration: 1 },
            { type: 'image', id: 'b', source_url: PHOTO, track: 1, duration: 1 },
          ],
          transitions: [{ type: 'fade_to_black', from_id: 'a', to_id: 'b', duration: 1 }],
        },
        frames: 30,
      },
    ];
    for (const { request, frames } of cases) {
      const result = plan(request);
      expect(result.frames.length).toBeGreaterThanOrEqual(frames);
      expect(result.blended).toBe(0);
      expect(result.fixedOpacity).toEqual([]);
    }
  });

  it('blends an opacity-only motion and draws a fade under an element with a blend mode', () => {
    expect(plan({ duration: 2, elements: [{ type: 'shape', motion: [{ type: 'fade', duration: 1 }] }] }).blended).toBeGreaterThan(20);
    const underBlend = plan({ duration: 2, elements: [{ type: 'shape', fade_in_duration: 1 }, { type: 'shape', blend_mode: 'multiply' }] });
    expect(underBlend.blended).toBe(0);
    expect(underBlend.frames.length).toBeGreaterThanOrEqual(30);
  });

  it('holds a still scene and draws it once', () => {
    const result = plan({ duration: 2, elements: [{ type: 'image', source_url: PHOTO }, { type: 'text', text: 'Title' }] });
    expect(result).toEqual({ durationInFrames: 60, frames: [0], fixedOpacity: [], runs: [{ mix: [{ drawn: 0, weight: 1 }], hold: 60 }], blended: 0 });
  });
});

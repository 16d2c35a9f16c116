import { resolveRequest, type RenderRequest } from '../../composition/src/schema';
import { FREE_PLAN } from '../config/plans';
import { capViolations, renderCost, runLimitSeconds } from './render-cost';

const free = FREE_PLAN;

function costOf(request: RenderRequest, media = {}) {
  return renderCost(request, resolveRequest(request, media));
}

describe('render cost and the plan caps', () => {
  it('counts frames, pixels and the media a render decodes', () => {
    const request: RenderRequest = {
      width: 640,
      height: 360,
      frame_rate: 25,
      duration: 8,
      elements: [
        { type: 'video', source_url: 'https://media.example.com/a.mp4', time: 0 },
        { type: 'audio', source_url: 'https://media.example.com/b.mp3', time: 2 },
        { type: 'shape' },
      ],
    };
    const cost = costOf(request, {
      'https://media.example.com/a.mp4': { duration: 3, width: 640, height: 360, has_audio: true, has_video: true },
      'https://media.example.com/b.mp3': { duration: 100, width: null, height: null, has_audio: true, has_video: false },
    });
    expect(cost).toEqual({
      frames: 200,
      pixelsPerFrame: 640 * 360,
      pixelFrames: 200 * 640 * 360,
      elements: 3,
      mediaSeconds: 3 + 6, // the clip plays 3 s; the audio is cut at the end of the render (8 − 2)
      billedSeconds: 8,
    });
  });

  it('bills no minutes for a still and counts it as one frame', () => {
    expect(costOf({ width: 100, height: 100, output_format: 'png', duration: 30 })).toMatchObject({ frames: 1, pixelFrames: 10_000, billedSeconds: 0, mediaSeconds: 0 });
  });

  it('names each cap passed, with the field to change', () => {
    const over = capViolations(
      { frames: 20_000, pixelsPerFrame: 100, pixelFrames: 2_000_000, elements: 301, mediaSeconds: 8000, billedSeconds: 666 },
      free,
      'free',
    );
    expect(over.map((o) => [o.pointer, o.type])).toEqual([
      ['/duration', 'plan_limit'],
      ['/elements', 'plan_limit'],
      ['/elements', 'plan_limit'],
    ]);
    expect(over[2].msg).toMatch(/plays 8000 s of video and audio; at most 7200 s/);
    expect(capViolations(costOf({ width: 1920, height: 1080, duration: 600 }), free, 'free')).toEqual([]);
  });

  it('gives an attempt time in proportion to its size, within bounds', () => {
    const small = runLimitSeconds(costOf({ width: 320, height: 180, duration: 2 }));
    const big = runLimitSeconds(costOf({ width: 1920, height: 1080, duration: 600 }));
    expect(small).toBeGreaterThanOrEqual(300);
    expect(small).toBeLessThan(310);
    expect(big).toBeGreaterThan(10 * small);
    expect(big).toBeLessThanOrEqual(6 * 3600);
  });
});

import { planPreview, previewSchema, timelineSummary } from './preview';
import { resolveRequest } from './resolve';
import type { RenderRequest } from './request';

const request: RenderRequest = {
  width: 160,
  height: 90,
  frame_rate: 10,
  elements: [
    { type: 'shape', id: 'a', track: 1, duration: 1 },
    { type: 'shape', id: 'b', track: 1, duration: 3 },
    { type: 'video', id: 'v', source_url: 'https://example.com/v.mp4', time: 1 },
  ],
};
const resolved = resolveRequest(request, {});

describe('preview planning', () => {
  it('takes the frame on screen at the asked time, and refuses a time at or past the end', () => {
    expect(planPreview({ mode: 'frame', time: 1.55 }, resolved)).toEqual({ plan: { mode: 'frame', fps: 10, frame: 15, scale: 1, format: 'png' } });
    const late = planPreview({ mode: 'frame', time: 6 }, resolved);
    expect(late).toEqual({ problems: [expect.objectContaining({ pointer: '/preview/time', type: 'less_than' })] });
  });

  it('spreads contact sheet frames over the middles of equal parts, without duplicates', () => {
    // 6 s: the middles of four 1.5 s parts are 0.75, 2.25, 3.75 and 5.25 s.
    const plan = planPreview({ mode: 'contact_sheet', count: 4 }, resolved);
    expect(plan).toEqual({ plan: expect.objectContaining({ frames: [7, 22, 37, 52], columns: 2, scale: 0.25 }) });
    const tiny = resolveRequest({ ...request, duration: 0.2 }, {});
    expect(planPreview({ mode: 'contact_sheet', count: 48 }, tiny)).toEqual({ plan: expect.objectContaining({ frames: [0, 1], columns: 2 }) });
  });

  it('cuts a clip from the frame at start to the last frame before end', () => {
    expect(planPreview({ mode: 'clip', start: 1, end: 3 }, resolved)).toEqual({ plan: { mode: 'clip', fps: 10, firstFrame: 10, lastFrame: 29, scale: 0.5 } });
    expect(planPreview({ mode: 'clip', start: 1, end: 9 }, resolved)).toEqual({ problems: [expect.objectContaining({ pointer: '/preview/end' })] });
  });

  it('bounds clips to 30 s and scales to 0.1–1 in the schema', () => {
    expect(previewSchema.safeParse({ mode: 'clip', start: 0, end: 30 }).success).toBe(true);
    expect(previewSchema.safeParse({ mode: 'clip', start: 1, end: 31.5 }).success).toBe(false);
    expect(previewSchema.safeParse({ mode: 'frame', time: 0, scale: 0.05 }).success).toBe(false);
    expect(previewSchema.safeParse({ mode: 'contact_sheet', count: 49 }).success).toBe(false);
  });

  it('summarises the timeline in request order, flagging lengths not known without the file', () => {
    const summary = timelineSummary(request, {});
    expect(summary).toMatchObject({ width: 160, height: 90, frame_rate: 10, duration: 6, frame_count: 60 });
    expect(summary.elements).toEqual([
      { index: 0, id: 'a', type: 'shape', start: 0, end: 1, shown: true, length_estimated: false },
      { index: 1, id: 'b', type: 'shape', start: 1, end: 4, shown: true, length_estimated: false },
      { index: 2, id: 'v', type: 'video', start: 1, end: 6, shown: true, length_estimated: true },
    ]);
  });
});

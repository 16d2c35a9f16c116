import type { RenderRequest } from './request';
import { resolveRequest, secondsToFrames, type MediaInfo, type ResolvedText } from './resolve';

const CLIP = 'https://example.com/clip.mp4';
const PHOTO = 'https://example.com/photo.jpg';
const media: Record<string, MediaInfo> = {
  [CLIP]: { duration: 10, width: 1280, height: 720, has_audio: true, has_video: true },
  [PHOTO]: { width: 801, height: 601 },
};

function timings(request: RenderRequest, info = media) {
  return resolveRequest(request, info).elements.map(({ startSeconds, durationSeconds }) => [startSeconds, durationSeconds]);
}

describe('resolveRequest', () => {
  it('applies defaults', () => {
    expect(resolveRequest({}, {})).toMatchObject({
      width: 1920, height: 1080, fps: 30, durationSeconds: 5, durationInFrames: 150,
      outputFormat: 'mp4', alpha: false, backgroundColor: '#000000ff', backgroundGradient: null, hasAudio: false, elements: [],
    });
  });

  it('converts seconds to frames in one rounding helper', () => {
    expect(secondsToFrames(0.1, 30)).toBe(3);
    expect(secondsToFrames(1 / 3, 25)).toBe(8);
  });

  it('sequences elements on a track and places the others by time, else at 0', () => {
    const request: RenderRequest = {
      elements: [
        { type: 'image', source_url: PHOTO, track: 1, duration: 2 },
        { type: 'shape', track: 1, duration: 3 },
        { type: 'text', text: 'x', track: 2, time: 1, duration: 1 },
        { type: 'text', text: 'y', track: 2, duration: 1 },
        { type: 'shape', duration: 1 },
        { type: 'shape', track: 1, time: 7, duration: 1 },
      ],
    };
    expect(timings(request)).toEqual([[0, 2], [2, 3], [1, 1], [2, 1], [0, 1], [7, 1]]);
    expect(resolveRequest(request, media).durationSeconds).toBe(8);
  });

  it('derives media length from in_point, out_point and speed', () => {
    const request: RenderRequest = {
      elements: [
        { type: 'video', source_url: CLIP, track: 1, in_point: 2, out_point: 6, speed: 2 },
        { type: 'video', source_url: CLIP, track: 1, in_point: 4 },
        { type: 'audio', source_url: CLIP, out_point: 3, volume: '50%' },
      ],
    };
    expect(timings(request)).toEqual([[0, 2], [2, 6], [0, 3]]);
    const resolved = resolveRequest({ ...request, frame_rate: 25 }, media);
    expect(resolved.durationSeconds).toBe(8);
    expect(resolved.elements[0]).toMatchObject({ type: 'video', trimBefore: 50, trimAfter: 150, playbackRate: 2, from: 0, durationInFrames: 50 });
    expect(resolved.elements[2]).toMatchObject({ type: 'audio', volume: 0.5, trimBefore: undefined, trimAfter: 75 });
    expect(resolved.hasAudio).toBe(true);
  });

  it('lets an element without a length run to the end, or 5 s when another follows on its track', () => {
    const request: RenderRequest = {
      elements: [
        { type: 'video', source_url: CLIP, out_point: 4 },
        { type: 'text', text: 'to the end' },
        { type: 'image', source_url: PHOTO, track: 3 },
        { type: 'image', source_url: PHOTO, track: 3 },
      ],
    };
    expect(timings(request)).toEqual([[0, 4], [0, 10], [0, 5], [5, 5]]);
  });

  it('does not crash on media of unknown duration without out_point (runs to the end)', () => {
    const request: RenderRequest = { elements: [{ type: 'video', source_url: 'https://example.com/unknown.mp4' }] };
    expect(resolveRequest(request, {})).toMatchObject({ durationSeconds: 5, elements: [{ durationInFrames: 150 }] });
    expect(timings({ ...request, duration: 12 }, {})).toEqual([[0, 12]]);
  });

  it('clips elements at an explicit duration and drops those that never show', () => {
    const request: RenderRequest = {
      duration: 3,
      elements: [
        { type: 'video', source_url: CLIP },
        { type: 'shape', time: 3, duration: 1 },
        { type: 'shape', duration: 0.001 },
        { type: 'shape', duration: 1, visible: false },
      ],
    };
    expect(timings(request)).toEqual([[0, 3]]);
  });

  it('infers the canvas from the first visual media, kept even and within limits', () => {
    expect(resolveRequest({ elements: [{ type: 'audio', source_url: CLIP }, { type: 'image', source_url: PHOTO }] }, media)).toMatchObject({ width: 802, height: 602 });
    expect(resolveRequest({ elements: [{ type: 'video', source_url: CLIP }] }, { [CLIP]: { width: 20000, height: 10000 } })).toMatchObject({ width: 8192, height: 4096 });
    expect(resolveRequest({ elements: [{ type: 'video', source_url: CLIP }] }, {})).toMatchObject({ width: 1920, height: 1080 });
    expect(resolveRequest({ width: 640, height: 480, elements: [{ type: 'video', source_url: CLIP }] }, media)).toMatchObject({ width: 640, height: 480 });
  });

  it('resolves percent and pixel layout, anchors, rotations, scales and flips', () => {
    const [shape] = resolveRequest({
      width: 1000,
      height: 500,
      elements: [{
        type: 'shape', x: '25%', y: 100, width: '10%', height: '20%', x_anchor: 0, y_anchor: '100%',
        z_rotation: '45deg', x_rotation: 10, x_scale: '50%', flip_horizontal: true, flip_vertical: true, opacity: '40%',
      }],
    }, {}).elements;
    expect(shape.type === 'shape' && shape.box).toEqual({
      x: 250, y: 100, width: 100, height: 100, xAnchor: { unit: 'px', value: 0 }, yAnchor: { unit: '%', value: 100 },
      xRotation: 10, yRotation: 0, zRotation: 45, scaleX: -0.5, scaleY: -1, opacity: 0.4,
    });
  });

  it('fills the canvas by default, follows the aspect ratio when one side is set, and lets text fit its content', () => {
    const { elements } = resolveRequest({
      width: 1000,
      height: 500,
      elements: [
        { type: 'image', source_url: PHOTO },
        { type: 'video', source_url: CLIP, width: '50%' },
        { type: 'shape', height: 100, aspect_ratio: 2 },
        { type: 'text', text: 'fits' },
      ],
    }, media);
    const boxes = elements.map((element) => (element.type === 'audio' ? null : [element.box.width, element.box.height]));
    expect(boxes).toEqual([[1000, 500], [500, 281.25], [200, 100], [null, null]]);
  });

  it('orders elements by z_index, then request order', () => {
    const { elements } = resolveRequest({
      elements: [{ type: 'shape', id: 'a', z_index: 2 }, { type: 'shape', id: 'b' }, { type: 'shape', id: 'c', z_index: -1 }, { type: 'shape', id: 'd' }],
    }, {});
    expect(elements.map((element) => element.id)).toEqual(['c', 'b', 'd', 'a']);
  });

  it('resolves text style units and fades', () => {
    const [text] = resolveRequest({
      height: 720,
      width: 1280,
      frame_rate: 30,
      elements: [{ type: 'text', text: 'Hi', duration: 4, line_height: '150%', letter_spacing: '10%', font_size: 40, stroke_color: '#000000', fade_in_duration: 0.5, fade_out_duration: 1 }],
    }, {}).elements as ResolvedText[];
    expect(text.style).toMatchObject({ fontFamily: 'Inter', fontSize: 40, lineHeight: 1.5, letterSpacing: 4, strokeWidth: 1, color: '#ffffff', wrap: true });
    expect(text).toMatchObject({ fadeInFrames: 15, fadeOutFrames: 30, durationInFrames: 120 });
    const [auto] = resolveRequest({ width: 1280, height: 720, elements: [{ type: 'text', text: 'Hi' }] }, {}).elements as ResolvedText[];
    expect(auto.style.fontSize).toBe(36);
  });

  it('turns both gradient forms into CSS', () => {
    expect(resolveRequest({ background_gradient: ' linear-gradient(red, blue) ' }, {}).backgroundGradient).toBe('linear-gradient(red, blue)');
    const stops = [{ color: '#ff0000', offset: 0 }, { color: '#0000ff', offset: 0.5 }];
    expect(resolveRequest({ background_gradient: { type: 'linear', angle: '90deg', stops } }, {}).backgroundGradient).toBe('linear-gradient(90deg, #ff0000 0%, #0000ff 50%)');
    expect(resolveRequest({ background_gradient: { type: 'linear', stops } }, {}).backgroundGradient).toBe('linear-gradient(180deg, #ff0000 0%, #0000ff 50%)');
    expect(resolveRequest({ background_gradient: { type: 'radial', stops } }, {}).backgroundGradient).toBe('radial-gradient(#ff0000 0%, #0000ff 50%)');
  });

  it('knows when the output is silent', () => {
    expect(resolveRequest({ elements: [{ type: 'video', source_url: CLIP, volume: 0 }] }, media).hasAudio).toBe(false);
    expect(resolveRequest({ elements: [{ type: 'video', source_url: CLIP }] }, { [CLIP]: { duration: 2, has_audio: false } }).hasAudio).toBe(false);
  });
});

import { resolveRequest, type MediaInfo, type RenderRequest } from '../../../../composition/src/schema';
import { coverPlacement, mediaCompositePlan, sourceSampling } from './composite-plan';
import { planOutput } from '../output-formats';

const CLIP = 'https://example.com/clip.mp4';
const PHOTO = 'https://example.com/photo.png';
const media: Record<string, MediaInfo> = {
  [CLIP]: { duration: 4, width: 640, height: 360, has_audio: true, has_video: true },
  [PHOTO]: { width: 100, height: 100 },
};
const mp4 = planOutput('mp4', false);

function choose(request: RenderRequest, output: Partial<Parameters<typeof mediaCompositePlan>[2]> = {}) {
  return mediaCompositePlan({ request, media }, resolveRequest(request, media), { plan: mp4, ...output });
}

function reasonOf(request: RenderRequest, output: Partial<Parameters<typeof mediaCompositePlan>[2]> = {}): string {
  const choice = choose(request, output);
  if (!choice || choice.ok) throw new Error(`expected a fallback, got ${JSON.stringify(choice)}`);
  return choice.reason;
}

/** A 320x180 canvas: a shape below a boxed clip that fades in, a title above it. */
const scene: RenderRequest = {
  width: 320,
  height: 180,
  duration: 2,
  elements: [
    { type: 'shape', fill_color: '#2040ff', x: 0, y: 0, width: 100, height: 60, x_anchor: 0, y_anchor: 0 },
    { type: 'video', source_url: CLIP, x: 0, y: 10, width: 320, height: 160, x_anchor: 0, y_anchor: 0, fade_in_duration: 0.5, in_point: 1, volume: 0.5 },
    { type: 'text', text: 'Title', y: '80%', fade_in_duration: 0.5 },
    { type: 'audio', source_url: CLIP },
  ],
};

function withVideo(fields: Record<string, unknown>): RenderRequest {
  return { ...scene, elements: scene.elements!.map((element) => (element.type === 'video' ? { ...element, ...fields } : element)) as RenderRequest['elements'] };
}

describe('mediaCompositePlan', () => {
  it('leaves a render without video alone', () => {
    expect(choose({ duration: 1, elements: [{ type: 'shape' }] })).toBeNull();
  });

  it('places a boxed clip: cover fit, trim, fade, layers below and above', () => {
    const choice = choose(scene);
    expect(choice).toMatchObject({ ok: true });
    const plan = choice?.ok ? choice.plan : null;
    expect(plan!.clips).toEqual([
      {
        index: 1, src: CLIP, left: 0, top: 10, width: 320, height: 160,
        // 640x360 covering 320x160 (scaled by 0.5, 10 rows above and below the box): its middle 640x320, halved
        source: { width: 640, height: 360 }, placement: { x: 0, y: -10, width: 320, height: 180 }, reduction: 'halve',
        sourceCrop: { x: 0, y: 20, width: 640, height: 320 },
        from: 0, durationInFrames: 60, startSeconds: 1, playbackRate: 1, opacity: 1, fadeInFrames: 15, fadeOutFrames: 0, grade: null,
      },
    ]);
    // Below: the background and the shape (still: one frame); above: the fading title on a transparent page.
    expect(plan!.below.hidden).toEqual({ elements: [1, 2], watermark: true });
    expect(plan!.below.frames.frames).toEqual([0]);
    expect(plan!.above!.hidden).toEqual({ elements: [0, 1], background: true });
    expect(plan!.above!.frames.frames).toEqual(Array.from({ length: 17 }, (_, frame) => frame));
  });

  it('takes a grade of curves, saturation and overlay, as the page computes it', () => {
    const choice = choose(withVideo({ brightness: 20, contrast: 10, saturation: -30, color_overlay: '#00ff0040' }));
    const grade = choice?.ok ? choice.plan.clips[0].grade : null;
    expect(grade).toMatchObject({ saturation: 0.7, overlay: [0, 1, 0, 0x40 / 255] });
    // Brightness lifts black; contrast keeps the middle in place, the curve rises throughout.
    expect(grade!.curves[0][0]).toBeGreaterThan(0);
    expect(grade!.curves.every((curve) => curve.length === 256 && curve.every((value, index) => index === 0 || value >= curve[index - 1]))).toBe(true);
    // Neutral values set explicitly grade nothing.
    const neutral = choose(withVideo({ brightness: 0, saturation: 0 }));
    expect(neutral?.ok && neutral.plan.clips[0].grade).toBeNull();
  });

  it('needs no pass above when nothing is there', () => {
    const choice = choose({ ...scene, elements: scene.elements!.filter((element) => element.type !== 'text') });
    expect(choice?.ok && choice.plan.above).toBeNull();
  });

  it('composites neighbouring clips in paint order and places a scaled box around its anchor', () => {
    const choice = choose({
      width: 320, height: 180, duration: 1,
      elements: [
        { type: 'video', source_url: CLIP, width: 160, height: 90, x_scale: '200%', y_scale: '200%' },
        { type: 'video', source_url: CLIP, x: 0, y: 0, width: 320, height: 180, x_anchor: 0, y_anchor: 0, opacity: 0.5, speed: 2 },
      ],
    });
    expect(choice?.ok && choice.plan.clips.map(({ left, top, width, height, opacity, playbackRate }) => ({ left, top, width, height, opacity, playbackRate }))).toEqual([
      { left: 0, top: 0, width: 320, height: 180, opacity: 1, playbackRate: 1 },
      { left: 0, top: 0, width: 320, height: 180, opacity: 0.5, playbackRate: 2 },
    ]);
  });

  it('takes odd whole reductions, where the page samples source pixel centres', () => {
    // 640x360 covering 128x60 at 1:5: its middle 640x300; 128x72, the whole source.
    for (const [box, crop] of [[{ width: 128, height: 60 }, { x: 0, y: 30, width: 640, height: 300 }], [{ width: 128, height: 72 }, { x: 0, y: 0, width: 640, height: 360 }]] as const) {
      const choice = choose(withVideo(box));
      expect(choice?.ok && choice.plan.clips[0].sourceCrop).toEqual(crop);
    }
    const source = { width: 640, height: 360 };
    const whole = (box: { width: number; height: number }) => sourceSampling(box, source, coverPlacement(box, source));
    expect(whole({ width: 640, height: 360 })).toMatchObject({ reduction: 'none' });
    expect(whole({ width: 320, height: 180 })).toMatchObject({ reduction: 'halve' });
    expect(whole({ width: 128, height: 72 })).toMatchObject({ reduction: 'pick' });
    // 1:4 is even: its samples fall between pixels.
    expect(whole({ width: 160, height: 90 })).toMatchObject({ reduction: 'bilinear' });
    // Near 1:3 with the crop centred between source pixels: the samples fall between them too.
    expect(whole({ width: 160, height: 118 })).toMatchObject({ reduction: 'bilinear' });
    // 1:3 cover-cropped: Blink lays 640 out in 213 21/64 pixels at −26 42/64, snapped to 214 at −27.
    expect(whole({ width: 160, height: 120 })).toMatchObject({ reduction: 'bilinear' });
  });

  it('lays a source out as Blink does for object-fit: cover, in 1/64 pixels snapped to whole ones', () => {
    // The square bench clip in a 1000x400 box: 1000x1000, 300 rows above and below.
    expect(coverPlacement({ width: 1000, height: 400 }, { width: 1080, height: 1080 })).toEqual({ x: 0, y: -300, width: 1000, height: 1000 });
    // 640x360 in 200x200: 355 34/64 wide at −77 49/64: its edges −78 and 278.
    expect(coverPlacement({ width: 200, height: 200 }, { width: 640, height: 360 })).toEqual({ x: -78, y: 0, width: 356, height: 200 });
    // 640x360 in 300x100: 168.75 high at −34.375: its edges −34 and 134.
    expect(coverPlacement({ width: 300, height: 100 }, { width: 640, height: 360 })).toEqual({ x: 0, y: -34, width: 300, height: 168 });
    // 160x90 in 150x80: 84.375 high at −2.1875: its edges −2 and 82.
    expect(coverPlacement({ width: 150, height: 80 }, { width: 160, height: 90 })).toEqual({ x: 0, y: -2, width: 150, height: 84 });
  });

  it('takes any reduction, cover-cropped or whole, sampled bilinearly from the rows and columns it needs, and no enlargement', () => {
    const square = { width: 1080, height: 1080 };
    const box = { width: 1000, height: 400 };
    // Box rows 0 … 399 sample source rows (300.5 … 699.5)·1.08 − ½ = 324.04 … 754.96: rows 324 … 755 are read.
    expect(sourceSampling(box, square, coverPlacement(box, square))).toEqual({ reduction: 'bilinear', crop: { x: 0, y: 324, width: 1080, height: 432 } });
    expect(sourceSampling({ width: 960, height: 540 }, { width: 640, height: 360 }, coverPlacement({ width: 960, height: 540 }, { width: 640, height: 360 }))).toBe('is scaled by 1.500 (enlargements are drawn by the browser)');
    for (const [size, reduction] of [[{ width: 200, height: 100 }, 'bilinear'], [{ width: 201, height: 120 }, 'bilinear'], [{ width: 160, height: 120 }, 'bilinear'], [{ width: 128, height: 60 }, 'pick']] as const) {
      const choice = choose(withVideo(size));
      expect(choice?.ok && choice.plan.clips[0].reduction).toBe(reduction);
    }
  });

  it.each([
    ['a rotated clip', withVideo({ z_rotation: 10 }), 'is rotated'],
    ['a flipped clip', withVideo({ flip_horizontal: true }), 'is flipped'],
    ['a grade beyond curves, saturation and overlay', withVideo({ brightness: 10, hue_rotate: 30 }), 'sets hue_rotate'],
    ['rounded corners', withVideo({ border_radius: 8 }), 'sets border_radius'],
    ['an effect', withVideo({ effects: [{ type: 'grayscale' }] }), 'sets effects'],
    ['a motion', withVideo({ motion: [{ type: 'fade' }] }), 'sets motion'],
    ['a speed ramp', withVideo({ playback_rate_keyframes: [{ time: 0, rate: 2 }] }), 'sets playback_rate_keyframes'],
    ['a blend mode', withVideo({ blend_mode: 'multiply' }), 'has a blend mode'],
    ['a box off whole pixels', withVideo({ x: 40.5 }), 'not on whole pixels'],
    ['an enlargement', withVideo({ width: 960, height: 540 }), 'is scaled by 1.500'],
    ['overlapping fades', withVideo({ fade_in_duration: 1.5, fade_out_duration: 1 }), 'fades overlap'],
  ])('falls back for %s', (_name, request, reason) => {
    expect(reasonOf(request)).toContain(reason);
  });

  it('falls back when something above needs the clip\'s pixels', () => {
    const over = (fields: Record<string, unknown>) => ({ ...scene, elements: scene.elements!.map((element) => (element.type === 'text' ? { ...element, ...fields } : element)) }) as RenderRequest;
    expect(reasonOf(over({ blend_mode: 'screen' }))).toContain('text element 2 above a video clip has a blend mode');
    const blurred: RenderRequest = { ...scene, elements: [...scene.elements!, { type: 'image', source_url: PHOTO, backdrop_blur: 4 }] };
    expect(reasonOf(blurred)).toContain('backdrop blur');
  });

  it('falls back for an element between two clips, transitions and motion blur', () => {
    const between: RenderRequest = { ...scene, elements: [...scene.elements!, { type: 'video', source_url: CLIP }] };
    expect(reasonOf(between)).toContain('between two video clips');
    expect(reasonOf({ ...scene, motion_blur: {} })).toContain('motion blur');
    const cut: RenderRequest = {
      width: 320, height: 180,
      elements: [{ type: 'video', id: 'a', source_url: CLIP, track: 1 }, { type: 'video', id: 'b', source_url: CLIP, track: 1 }],
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b' }],
    };
    expect(reasonOf(cut)).toContain('transitions');
  });

  it('falls back for outputs other than a whole H.264 timeline', () => {
    expect(reasonOf(scene, { plan: planOutput('webm', false) })).toContain('not H.264');
    expect(reasonOf(scene, { scale: 0.5 })).toContain('preview');
    expect(reasonOf(scene, { frameRange: [0, 10] })).toContain('preview');
    expect(reasonOf({ ...scene, width: 321 })).toContain('odd canvas');
  });

  it('falls back when the source size is unknown', () => {
    const request: RenderRequest = { ...scene, elements: [{ type: 'video', source_url: 'https://example.com/other.mp4', out_point: 2 }] };
    expect(reasonOf(request)).toContain('source size is unknown');
  });
});

describe('text the layer passes leave to the browser', () => {
  const withText = (fields: Record<string, unknown>): RenderRequest => ({
    ...scene,
    elements: scene.elements!.map((element) => (element.type === 'text' ? { ...element, ...fields } : element)) as RenderRequest['elements'],
  });

  it('keeps Latin, Greek and Cyrillic text in shipped families on the composite path', () => {
    expect(choose(withText({ text: 'Title Ωλ Жд — 12 €' }))?.ok).toBe(true);
  });

  it('leaves fallback scripts, emoji, other families and fitted text to the browser', () => {
    expect(reasonOf(withText({ text: '汉语' }))).toMatch(/fallback fonts/);
    expect(reasonOf(withText({ text: 'Go 🚀' }))).toMatch(/fallback fonts/);
    expect(reasonOf(withText({ font_family: 'Lobster' }))).toMatch(/uses the font Lobster/);
    expect(reasonOf(withText({ font_size: 'auto', width: 200, height: 40 }))).toMatch(/fits its font size/);
  });
});

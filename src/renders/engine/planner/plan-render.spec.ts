import { resolveRequest, type MediaInfo, type RenderRequest } from '../../../../composition/src/schema';
import { planOutput, type OutputFormat } from '../output-formats';
import { COST_MODEL, scaledCosts } from './cost-model';
import { DEFAULT_STITCH } from '../encode/stitch-settings';
import { chunkGridFrames, planRender, splitFrames, type PlannerConfig, type PlanRequest } from './plan-render';
import { planSummary, storedPlan, frameRanges, type RenderPlan, type StrategyName } from './render-plan';
import type { SourceFacts } from './source-facts';

const CLIP = 'https://media.example/clip.mp4';
const SQUARE = 'https://media.example/square.mp4';
const BT601 = 'https://media.example/bt601.mp4';
const LOGO = 'https://media.example/logo.png';
const TONE = 'https://media.example/tone.wav';
const MP3 = 'https://media.example/song.mp3';

const MEDIA: Record<string, MediaInfo> = {
  [CLIP]: { duration: 12, width: 1920, height: 1080, has_video: true, has_audio: true },
  [SQUARE]: { duration: 12, width: 1080, height: 1080, has_video: true, has_audio: false },
  [BT601]: { duration: 12, width: 1920, height: 1080, has_video: true, has_audio: false },
  [LOGO]: { width: 200, height: 200 },
  [TONE]: { duration: 12, has_audio: true },
  [MP3]: { duration: 12, has_audio: true },
};

/** What the worker's probes found: every source local, the clips convertible but one, sound streams as named. */
const FACTS: SourceFacts = {
  files: Object.fromEntries(Object.keys(MEDIA).map((url) => [url, `/work/${url.split('/').pop()}`])),
  pictures: { [CLIP]: null, [SQUARE]: null, [BT601]: 'color space bt470bg (only BT.709 or untagged)' },
  sounds: { [CLIP]: { codec: 'aac', sampleRate: 48000, channels: 2 }, [TONE]: { codec: 'pcm_s16le', sampleRate: 48000, channels: 1 }, [MP3]: { codec: 'mp3', sampleRate: 44100, channels: 2 } },
};

const CONFIG: PlannerConfig = {
  holdFrames: true, blendFades: true, skipPictures: true, mixSound: true, warmStills: true, compositeMedia: true,
  chunkFrames: 0, chunkSplit: 'never', tabs: 2, cores: 2, x264Preset: 'medium', x264Crf: 18, jpegQuality: 90, strategy: null,
};

type Element = NonNullable<RenderRequest['elements']>[number];
const shape = (extra: Record<string, unknown> = {}) => ({ type: 'shape', shape: 'rectangle', x: '70%', y: '50%', width: '20%', height: '20%', fill_color: '#ef4444', ...extra }) as Element;
const clip = (extra: Record<string, unknown> = {}) => ({ type: 'video', source_url: CLIP, x: '35%', y: '50%', width: '50%', height: '50%', out_point: 10, ...extra }) as Element;
const logo = { type: 'image', source_url: LOGO, x: '10%', y: '15%', width: '10%', height: '18%' } as Element;
const title = (extra: Record<string, unknown> = {}) => ({ type: 'text', text: 'Render service benchmark', x: '50%', y: '85%', width: '80%', height: '12%', font_size: 72, fill_color: '#ffffff', ...extra }) as Element;

/** The standard scene (bench/bench-service.mts standardScene): gradient, shape, clip, logo, fading title. */
const standard = (elements: Element[] = [shape(), clip(), logo, title({ fade_in_duration: 1 })]): RenderRequest => ({
  width: 1920, height: 1080, duration: 10, frame_rate: 30, background_gradient: 'linear-gradient(90deg, #1d4ed8, #9333ea)', elements,
});

/** The moving scene: the shape spinning under the clip, the title typewritten above it (or as `typed` says). */
const moving = (typed: Element = title({ animation_preset: 'typewriter' })): RenderRequest => ({
  ...standard([shape({ motion: [{ type: 'spin', duration: 10, easing: 'linear' }] }), clip(), logo, typed]),
  ...(typed === loopingTitle ? { custom_animations: { text: [{ name: 'type', split: 'letter', stagger: 0.05, duration: 0.001, keyframes: [{ offset: 0, opacity: 0 }, { offset: 1, opacity: 1 }] }] } } : {}),
});
/** A title typing again and again (a looping text animation): it never stands still. */
const loopingTitle = title({ motion: [{ custom: 'type', loop: true }] });

/** A shape spinning for the whole timeline: every frame differs, so only the browser draws it. */
const spinning = (duration: number, width = 1920, height = 1080): RenderRequest => ({
  width, height, duration, background_color: '#000000', elements: [shape({ motion: [{ type: 'spin', duration, easing: 'linear' }] })],
});
/** A box wiggling for the whole timeline (a slow spin or glide repeats frames at 320x180, and is held). */
const wiggling = (duration: number, width: number, height: number): RenderRequest => ({
  width, height, duration, background_color: '#000000', elements: [shape({ motion: [{ type: 'wiggle', loop: true }] })],
});
const AUTO: Partial<PlannerConfig> = { chunkFrames: null, chunkSplit: 'auto' };
/**
 * The texts row (bench/engine.mts texts): three scenes on a track, a cross-dissolve and a
 * wipe between them, 20 texts entering 0.1 s apart (slides, scales, fades, text animations).
 */
const textsRow = (): RenderRequest => {
  const scenes = [{ id: 'scene0', duration: 3.5, fill: '#1e3a8a' }, { id: 'scene1', duration: 4, fill: '#581c87' }, { id: 'scene2', duration: 3.5, fill: '#064e3b' }];
  const starts = [0, 3, 7];
  const entrances = [{ motion: [{ type: 'slide', direction: 'left', duration: 0.5 }] }, { animation_preset: 'rise_words' }, { motion: [{ type: 'scale', duration: 0.4 }] }, { animation_preset: 'word_pop' }, { motion: [{ type: 'fade', duration: 0.5 }] }, { animation_preset: 'typewriter' }];
  const texts = Array.from({ length: 20 }, (_, i) => {
    const scene = i < 7 ? 0 : i < 14 ? 1 : 2;
    const j = i - [0, 7, 14][scene];
    const time = starts[scene] + (scene === 0 ? 0 : 0.5) + 0.2 + 0.1 * j;
    const end = starts[scene] + scenes[scene].duration - (scene === 2 ? 0 : 0.5);
    return { type: 'text', text: `Point ${j}, said in a few words`, time, duration: end - time, x: '50%', y: `${12 + j * 12}%`, font_size: 49, fill_color: '#ffffff', ...entrances[i % 6] } as Element;
  });
  return {
    width: 1920, height: 1080, duration: 10, frame_rate: 30, background_color: '#000000',
    elements: [...scenes.map(({ id, duration, fill }) => ({ type: 'shape', id, track: 1, duration, x: 0, y: 0, x_anchor: 0, y_anchor: 0, width: '100%', height: '100%', fill_color: fill }) as Element), ...texts],
    transitions: [{ type: 'cross_dissolve', from_id: 'scene0', to_id: 'scene1', duration: 0.5 }, { type: 'wipe_left', from_id: 'scene1', to_id: 'scene2', duration: 0.5 }],
  } as RenderRequest;
};


const still = (extra: Partial<RenderRequest> = {}): RenderRequest => ({ width: 1920, height: 1080, duration: 10, background_color: '#000000', elements: [shape(), title()], ...extra });

interface Row {
  name: string;
  request: RenderRequest;
  format?: OutputFormat;
  config?: Partial<PlannerConfig>;
  facts?: SourceFacts;
  call?: Pick<PlanRequest, 'frameRange' | 'scale' | 'muted' | 'stillFrame' | 'workers'>;
  strategy: StrategyName;
  sound: RenderPlan['sound']['via'];
  chunks?: number;
  /** Segments of the chunk grid a whole render draws in turn (0: one encoder). */
  segments?: number;
  /** Tabs drawing the chosen strategy's frames. */
  tabs?: number;
  /** Part of a weighed candidate's reason. */
  rejected?: Partial<Record<StrategyName, string>>;
}

const ROWS: Row[] = [
  // The four scenes.
  { name: 'standard scene: clip, shape, image, fading title', request: standard(), strategy: 'media_composite', sound: 'ffmpeg' },
  {
    name: 'standard scene with a typewritten title and a spinning shape: the browser, the composite\'s lower layer alone costing as much',
    request: moving(),
    strategy: 'browser', sound: 'ffmpeg',
  },
  {
    name: 'the same with a title typing over and over: two layers of every frame, so one browser layer',
    request: moving(loopingTitle),
    strategy: 'browser', sound: 'ffmpeg',
  },
  {
    name: 'a clip cover-fitted into a box of another shape',
    request: standard([clip({ source_url: SQUARE, x: '50%', width: 1000, height: 400 })]),
    strategy: 'media_composite', sound: 'none',
  },
  {
    name: '20 animated texts, two transitions, no media: held, 192 of 300 frames drawn and x264 after the drawing rather than beside the page (measured about 2x faster than the browser)',
    request: textsRow(),
    strategy: 'held_frames', sound: 'none',
  },
  { name: '5 s webm with alpha', request: { ...still({ duration: 5 }), output_format: 'webm', alpha: true } as RenderRequest, format: 'webm', strategy: 'browser', sound: 'encoder', rejected: { held_frames: 'not H.264', media_composite: 'no video clip' } },
  // Cover-fitted clips.
  {
    name: 'a clip cover-fitted, faded and graded under a title',
    request: standard([clip({ source_url: SQUARE, x: '50%', width: 1000, height: 400, fade_in_duration: 1, saturation: 30 }), title({ fade_in_duration: 1 })]),
    strategy: 'media_composite', sound: 'none',
  },
  {
    name: 'a clip cover-fitted and enlarged: the browser',
    request: standard([clip({ source_url: SQUARE, x: '50%', width: 1800, height: 1000 })]),
    strategy: 'browser', sound: 'none', rejected: { media_composite: 'enlargements are drawn by the browser' },
  },
  // Still timelines and fades.
  { name: 'nothing moves: one frame drawn, held', request: still(), strategy: 'held_frames', sound: 'none' },
  { name: 'a title fading in: corners drawn, the fade mixed', request: still({ elements: [shape(), title({ fade_in_duration: 1 })] }), strategy: 'blended_frames', sound: 'none' },
  { name: 'fades with RENDER_BLEND_FADES off: each fading frame drawn, held between', request: still({ elements: [shape(), title({ fade_in_duration: 1 })] }), config: { blendFades: false }, strategy: 'held_frames', sound: 'none', rejected: { blended_frames: 'RENDER_BLEND_FADES is off' } },
  { name: 'held with RENDER_HOLD_FRAMES off: the browser', request: still(), config: { holdFrames: false }, strategy: 'browser', sound: 'none', rejected: { held_frames: 'RENDER_HOLD_FRAMES is off' } },
  { name: 'moving for the first of ten seconds: held', request: still({ elements: [shape({ motion: [{ type: 'slide', duration: 1 }] }), title()] }), strategy: 'held_frames', sound: 'none' },
  { name: 'moving all the time: the browser, with two tabs', request: still({ elements: [shape({ motion: [{ type: 'spin', duration: 10, easing: 'linear' }] })] }), strategy: 'browser', sound: 'none', tabs: 2 },
  // Every tab loads the bundle (secondTabMs): a second one only where the frames it saves repay that.
  { name: '320x180, wiggling for a second: the browser on one tab', request: wiggling(1, 320, 180), strategy: 'browser', sound: 'none', tabs: 1 },
  { name: '320x180, wiggling for six seconds: two tabs', request: wiggling(6, 320, 180), strategy: 'browser', sound: 'none', tabs: 2 },
  { name: '1080p, spinning for 0.8 s: one tab', request: spinning(0.8), strategy: 'browser', sound: 'none', tabs: 1 },
  { name: '1080p, spinning for two seconds: two tabs', request: spinning(2), strategy: 'browser', sound: 'none', tabs: 2 },
  { name: '720p, wiggling for a second: one tab', request: wiggling(1, 1280, 720), strategy: 'browser', sound: 'none', tabs: 1 },
  { name: 'odd canvas: the browser evens it', request: still({ width: 321, height: 181 }), strategy: 'browser', sound: 'none', rejected: { held_frames: 'odd canvas' } },
  // Sound.
  { name: 'a still timeline with music: the worker mixes it', request: still({ elements: [shape(), { type: 'audio', source_url: TONE } as Element] }), strategy: 'held_frames', sound: 'ffmpeg' },
  { name: 'mp3 music: the page makes it after drawing', request: still({ elements: [shape(), { type: 'audio', source_url: MP3 } as Element] }), strategy: 'held_frames', sound: 'page_audio_pass' },
  { name: 'music with RENDER_MIX_SOUND off, everything moving: the page collects it while drawing', request: still({ elements: [shape({ motion: [{ type: 'spin', duration: 10, easing: 'linear' }] }), { type: 'audio', source_url: TONE } as Element] }), config: { mixSound: false }, strategy: 'browser', sound: 'page_while_drawing' },
  { name: 'webm with music: the encoder takes the page\'s sound', request: { ...still({ elements: [shape(), { type: 'audio', source_url: TONE } as Element] }), output_format: 'webm' } as RenderRequest, format: 'webm', strategy: 'browser', sound: 'encoder' },
  // Clips.
  { name: 'a clip filling the canvas under a static title', request: standard([clip({ x: 0, y: 0, x_anchor: 0, y_anchor: 0, width: '100%', height: '100%' }), title()]), strategy: 'media_composite', sound: 'ffmpeg' },
  { name: 'a rotated clip: the browser, saying why', request: standard([shape(), clip({ z_rotation: 5 }), logo, title()]), strategy: 'browser', sound: 'ffmpeg', rejected: { media_composite: 'is rotated' } },
  { name: 'a BT.601 source: the browser converts it', request: standard([clip({ source_url: BT601 })]), strategy: 'browser', sound: 'none', rejected: { media_composite: 'color space bt470bg' } },
  { name: 'a clip with no local copy: the browser', request: standard(), facts: { ...FACTS, files: { [LOGO]: '/work/logo.png' } }, strategy: 'browser', sound: 'page_while_drawing', rejected: { media_composite: 'no local copy' } },
  { name: 'RENDER_COMPOSITE_MEDIA off: the browser draws the clip', request: standard(), config: { compositeMedia: false }, strategy: 'browser', sound: 'ffmpeg', rejected: { media_composite: 'RENDER_COMPOSITE_MEDIA is off' } },
  { name: 'RENDER_STRATEGY forces the composite where the browser is cheaper', request: moving(loopingTitle), config: { strategy: 'media_composite' }, strategy: 'media_composite', sound: 'ffmpeg' },
  // The e2e suite's small scenes (320x180) take the strategy their tests exercise.
  {
    name: '320x180, a bar gliding for the first of two seconds: held',
    request: { width: 320, height: 180, duration: 2, background_color: '#000000', elements: [shape({ x: 5, y: '50%', width: 10, height: 180, motion: [{ type: 'slide', duration: 1, easing: 'linear' }] })] },
    strategy: 'held_frames', sound: 'none',
  },
  { name: '320x180, a box over a clip for a second: the composite', request: { width: 320, height: 180, duration: 1, background_color: '#000000', elements: [clip({ x: 0, y: 0, x_anchor: 0, y_anchor: 0, width: 160, height: 90 }), shape({ width: 40, height: 40 })] }, strategy: 'media_composite', sound: 'ffmpeg' },
  {
    name: '320x180, a dissolve and a title\'s fades, blending and skip pictures off: held',
    request: {
      width: 320, height: 180,
      elements: [
        { type: 'image', id: 'a', source_url: LOGO, track: 1, duration: 1.2 } as Element,
        { type: 'image', id: 'b', source_url: LOGO, track: 1, duration: 1.2 } as Element,
        title({ text: 'A fading title', time: 0.6, duration: 1.2, fade_in_duration: 0.4, fade_out_duration: 0.4, width: undefined, height: undefined, font_size: 14 }),
      ],
      transitions: [{ type: 'cross_dissolve', from_id: 'a', to_id: 'b', duration: 0.4 }],
    } as RenderRequest,
    config: { blendFades: false, skipPictures: false },
    strategy: 'held_frames', sound: 'none',
  },
  // Chunks, previews, stills.
  { name: 'a long moving render with RENDER_CHUNK_FRAMES: chunks', request: spinning(10), config: { chunkFrames: 90, chunkSplit: 'always' }, strategy: 'browser', sound: 'none', chunks: 4, segments: 4 },
  { name: 'a short 320x180 render moving throughout, RENDER_CHUNK_FRAMES=30 (the image test): chunks, not held', request: wiggling(3, 320, 180), config: { chunkFrames: 30, chunkSplit: 'always' }, call: { workers: 2 }, strategy: 'browser', sound: 'none', chunks: 3, segments: 3 },
  { name: 'RENDER_CHUNK_FRAMES splits with one worker too', request: spinning(10), config: { chunkFrames: 90, chunkSplit: 'always' }, call: { workers: 1 }, strategy: 'browser', sound: 'none', chunks: 4, segments: 4 },
  { name: 'a held render stays whole despite RENDER_CHUNK_FRAMES', request: still(), config: { chunkFrames: 90, chunkSplit: 'always' }, strategy: 'held_frames', sound: 'none' },
  { name: 'a chunk: its frames, muted, in the browser', request: spinning(10), config: { chunkFrames: 90, chunkSplit: 'always' }, call: { frameRange: [90, 179], muted: true }, strategy: 'browser', sound: 'none' },
  { name: 'the grid without splitting: whole, drawn a segment at a time', request: spinning(10), config: { chunkFrames: 90, chunkSplit: 'never' }, call: { workers: 4 }, strategy: 'browser', sound: 'none', segments: 4 },
  // Scale-out by default (RENDER_CHUNK_FRAMES unset): split when more than one worker is live and it pays.
  // 1080p: cells of 26 s (780 frames), 320x180: 30 s (the longest), 4K with a clip: 8 s (chunkGridFrames).
  { name: 'auto, 90 s 1080p, one worker: whole, on the grid', request: spinning(90), config: AUTO, call: { workers: 1 }, strategy: 'browser', sound: 'none', segments: 4 },
  { name: 'auto, 90 s 1080p, two workers: split', request: spinning(90), config: AUTO, call: { workers: 2 }, strategy: 'browser', sound: 'none', chunks: 4, segments: 4 },
  { name: 'auto, 90 s 320x180, two workers: split', request: wiggling(90, 320, 180), config: AUTO, call: { workers: 2 }, strategy: 'browser', sound: 'none', chunks: 3, segments: 3 },
  { name: 'auto, 90 s 320x180, one worker: whole', request: wiggling(90, 320, 180), config: AUTO, call: { workers: 1 }, strategy: 'browser', sound: 'none', segments: 3 },
  { name: 'auto, 90 s 4K with a clip and its sound, ten workers: split', request: { ...standard([shape({ motion: [{ type: 'spin', duration: 90, easing: 'linear' }] }), clip({ out_point: 90, rotation: 20 })]), width: 3840, height: 2160, duration: 90 }, config: AUTO, call: { workers: 10 }, strategy: 'browser', sound: 'ffmpeg', chunks: 12, segments: 12 },
  { name: 'auto, 10 s 1080p, two workers: one cell, whole', request: spinning(10), config: AUTO, call: { workers: 2 }, strategy: 'browser', sound: 'none' },
  { name: 'auto, a 20 s 320x180 render barely over one cell, one core, two workers: whole (the second chunk would not repay itself)', request: wiggling(20.5, 320, 180), config: { ...AUTO, chunkFrames: 600, cores: 1 }, call: { workers: 2 }, strategy: 'browser', sound: 'none', segments: 2, tabs: 1 },
  { name: 'auto, the same on two cores, two workers: split (the 15-frame tail runs on the other worker instead of costing the whole render a further segment start)', request: wiggling(20.5, 320, 180), config: { ...AUTO, chunkFrames: 600 }, call: { workers: 2 }, strategy: 'browser', sound: 'none', chunks: 2, segments: 2, tabs: 2 },
  { name: 'auto, 90 s held slideshow, two workers: whole (only browser renders split)', request: still({ duration: 90 }), config: AUTO, call: { workers: 2 }, strategy: 'held_frames', sound: 'none' },
  { name: 'RENDER_CHUNK_FRAMES=0, 90 s, two workers: never split, one encoder', request: spinning(90), config: { chunkFrames: 0, chunkSplit: 'never' }, call: { workers: 2 }, strategy: 'browser', sound: 'none' },
  { name: 'auto, 90 s webm, two workers: whole (only H.264 joins without re-encoding)', request: { ...spinning(90), output_format: 'webm' } as RenderRequest, format: 'webm', config: AUTO, call: { workers: 2 }, strategy: 'browser', sound: 'encoder' },
  { name: 'a clip preview at half size: the browser, its sound from the page', request: standard(), call: { frameRange: [30, 89], scale: 0.5 }, strategy: 'browser', sound: 'page_while_drawing', rejected: { media_composite: 'scaled output' } },
  { name: 'a png still on the warm tab', request: { ...still(), output_format: 'png' } as RenderRequest, format: 'png', strategy: 'still', sound: 'none' },
  { name: 'a jpg still at frame 12', request: { ...still(), output_format: 'jpg' } as RenderRequest, format: 'jpg', call: { stillFrame: 12 }, strategy: 'still', sound: 'none' },
  { name: 'a gif: the browser', request: { ...still({ duration: 3 }), output_format: 'gif' } as RenderRequest, format: 'gif', strategy: 'browser', sound: 'none' },
  // BeginFrame capture (RENDER_BEGIN_FRAME): the browser's frames cost less, and the page's sound comes from its audio pass.
  { name: 'BeginFrame: the moving scene in the browser', request: moving(), config: { beginFrame: true }, strategy: 'browser', sound: 'ffmpeg' },
  { name: 'BeginFrame: 5 s webm with alpha', request: { ...still({ duration: 5 }), output_format: 'webm', alpha: true } as RenderRequest, format: 'webm', config: { beginFrame: true }, strategy: 'browser', sound: 'encoder' },
  { name: 'BeginFrame: music with RENDER_MIX_SOUND off, everything moving: the page\'s audio pass after drawing', request: still({ elements: [shape({ motion: [{ type: 'spin', duration: 10, easing: 'linear' }] }), { type: 'audio', source_url: TONE } as Element] }), config: { mixSound: false, beginFrame: true }, strategy: 'browser', sound: 'page_audio_pass' },
  { name: 'BeginFrame: a chunk, muted', request: spinning(10), config: { chunkFrames: 90, chunkSplit: 'always', beginFrame: true }, call: { frameRange: [90, 179], muted: true }, strategy: 'browser', sound: 'none' },
];

function scaledCostsFor(width: number, height: number) {
  return scaledCosts(COST_MODEL, width * height);
}

function plan(row: Row): RenderPlan {
  const resolved = resolveRequest(row.request, MEDIA);
  const output = planOutput(row.format ?? 'mp4', resolved.alpha);
  return planRender({ props: { request: row.request, media: MEDIA }, resolved, output, ...row.call }, row.facts ?? FACTS, { ...CONFIG, ...row.config });
}

describe('planRender', () => {
  it('covers at least twenty requests', () => expect(ROWS.length).toBeGreaterThanOrEqual(20));

  it.each(ROWS.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const made = plan(row);
    expect({ strategy: made.pictures.strategy, sound: made.sound.via, chunks: made.chunks?.length ?? 0, segments: made.segments?.length ?? 0 }).toEqual({
      strategy: row.strategy,
      sound: row.sound,
      chunks: row.chunks ?? 0,
      segments: row.segments ?? 0,
    });
    if (row.tabs !== undefined) expect('tabs' in made.pictures ? made.pictures.tabs : null).toBe(row.tabs);
    // A split render's chunks are its grid: split or not, the same segments.
    if (made.chunks) expect(made.chunks).toEqual(made.segments);
    for (const [strategy, reason] of Object.entries(row.rejected ?? {})) {
      expect(made.candidates.find((candidate) => candidate.strategy === strategy)?.reason).toContain(reason);
    }
    // Unless forced, the chosen strategy is the cheapest weighed.
    const costs = made.candidates.flatMap((candidate) => (candidate.seconds === undefined ? [] : [candidate.seconds]));
    expect(costs.length).toBeGreaterThan(0);
    // A whole render on the grid pays each further segment's start on top.
    if (!row.config?.strategy && !made.chunks && !made.segments) expect(made.estimatedSeconds).toBe(Math.min(...costs));
    if (!row.config?.strategy && !made.chunks && made.segments) expect(made.estimatedSeconds).toBeGreaterThan(Math.min(...costs));
    // Split by itself only when that beats the whole render with its segments' starts.
    if (made.chunks && row.config?.chunkSplit === 'auto') expect(made.estimatedSeconds).toBeLessThan(Math.min(...costs) + ((made.chunks.length - 1) * COST_MODEL.segmentStartMs) / 1000);
  });

  it('sizes the grid from the request and the configuration, never from the workers', () => {
    const grids = [1, 2, 10].map((workers) => plan({ ...ROWS[0], request: spinning(90), config: AUTO, call: { workers } }).segments);
    expect(grids[1]).toEqual(grids[0]);
    expect(grids[2]).toEqual(grids[0]);
    const at = (width: number, height: number, fps = 30) => chunkGridFrames(resolveRequest({ ...spinning(90, width, height), frame_rate: fps }, MEDIA), { chunkFrames: null, chunkSplit: 'auto' }, scaledCostsFor(width, height));
    // Whole seconds of frames, at most 30 s: a 90 s render splits at any size.
    for (const [width, height] of [[320, 180], [1920, 1080], [3840, 2160]]) {
      const frames = at(width, height)!;
      expect(frames % 30).toBe(0);
      expect(frames).toBeLessThanOrEqual(900);
    }
    expect(at(320, 180)).toBeGreaterThanOrEqual(at(1920, 1080)!);
    expect(chunkGridFrames({ fps: 30, elements: [] }, { chunkFrames: 45, chunkSplit: 'always' }, COST_MODEL)).toBe(45);
    expect(chunkGridFrames({ fps: 30, elements: [] }, { chunkFrames: 0, chunkSplit: 'never' }, COST_MODEL)).toBeNull();
  });

  it('estimates the standard scene\'s composite several times cheaper than the browser, and the moving one the other way round, its upper layer held after typing', () => {
    const seconds = (made: RenderPlan, strategy: StrategyName) => made.candidates.find((candidate) => candidate.strategy === strategy)!.seconds!;
    const standardPlan = plan(ROWS[0]);
    expect(seconds(standardPlan, 'browser') / seconds(standardPlan, 'media_composite')).toBeGreaterThan(2);
    const typed = plan(ROWS[1]);
    expect(seconds(typed, 'media_composite')).toBeGreaterThan(seconds(typed, 'browser'));
    // The typewriter's 22 letters take 1.05 s: the upper layer is drawn for 34 frames of 300, then held.
    const composite = (plan({ ...ROWS[1], config: { strategy: 'media_composite' } }).pictures as Extract<RenderPlan['pictures'], { strategy: 'media_composite' }>).composite;
    expect(composite.below.frames.frames).toHaveLength(300);
    expect({ drawn: composite.above!.frames.frames.length, lastHold: composite.above!.frames.holds.at(-1) }).toEqual({ drawn: 34, lastHold: 267 });
    // Typing over and over, the upper layer is every frame too: the composite costs more still.
    const looping = plan(ROWS[2]);
    expect(seconds(looping, 'media_composite')).toBeGreaterThan(seconds(typed, 'media_composite'));
  });

  it('plans the whole render: frames, tabs, encoder, chunk ranges', () => {
    const chunked = plan(ROWS.find((row) => row.chunks)!);
    expect(chunked.chunks).toEqual(splitFrames(300, 90));
    expect(chunked.encoder).toEqual({ codec: 'h264', pixelFormat: 'yuv420p', capture: 'jpeg', jpegQuality: 90, frameCapture: 'screenshot', x264: { preset: 'medium', crf: 18 }, audioCodec: 'aac' });
    expect(chunked.pictures).toEqual({ strategy: 'browser', frames: [0, 299], tabs: 2, scale: 1 });
    const webmRow = ROWS.find((row) => row.name.startsWith('5 s webm'))!;
    const alpha = plan(webmRow);
    expect(alpha.encoder).toMatchObject({ codec: 'vp9', pixelFormat: 'yuva420p', capture: 'png', vp9: DEFAULT_STITCH.vp9 });
    expect(alpha.encoder.prores).toBeUndefined();
    // Stitched after the drawing: the encoder's frames are on top of the page's.
    const opaque = plan({ ...webmRow, format: 'mp4', request: { ...webmRow.request, output_format: 'mp4', alpha: false } as RenderRequest });
    const browserSeconds = (made: RenderPlan) => made.candidates.find((candidate) => candidate.strategy === 'browser')!.seconds!;
    expect(browserSeconds(alpha)).toBeGreaterThan(browserSeconds(opaque));
    expect(alpha.frames).toEqual({ total: 150, first: 0, last: 149 });
    const held = plan(ROWS.find((row) => row.name.startsWith('nothing moves'))!);
    expect(held.encoder.skipPictures).toBe(true);
    expect(held.pictures).toMatchObject({ strategy: 'held_frames', tabs: 1, drawn: { frames: [0], holds: [300] } });
  });

  it('captures with BeginFrame where configured and it can, on one tab, cheaper than the screenshot; else Remotion\'s screenshot', () => {
    const browserSeconds = (made: RenderPlan) => made.candidates.find((candidate) => candidate.strategy === 'browser')!.seconds!;
    const moved = ROWS.find((row) => row.name === 'BeginFrame: the moving scene in the browser')!;
    const captured = plan(moved);
    expect(captured.encoder.frameCapture).toBe('begin_frame');
    expect(captured.pictures).toMatchObject({ strategy: 'browser', tabs: 1 });
    expect(browserSeconds(captured)).toBeLessThan(browserSeconds(plan({ ...moved, config: {} })));
    expect(plan({ ...moved, config: {} }).encoder.frameCapture).toBe('screenshot');
    const heldRow = ROWS.find((row) => row.name.startsWith('nothing moves'))!;
    expect(plan({ ...heldRow, config: { beginFrame: true } }).encoder.frameCapture).toBe('begin_frame');
    // A preview's sound is collected by renderMedia, and a scaled output is Remotion's: the screenshot.
    const preview = ROWS.find((row) => row.name.startsWith('a clip preview at half size'))!;
    expect(plan({ ...preview, config: { beginFrame: true } }).encoder.frameCapture).toBe('screenshot');
    expect(plan({ ...preview, call: { frameRange: [30, 89] }, config: { beginFrame: true } }).encoder.frameCapture).toBe('screenshot');
    // A composite draws its layers on the warm tab: no sequence to capture.
    expect(plan({ ...ROWS[0], config: { beginFrame: true } }).encoder.frameCapture).toBeUndefined();
  });

  it('summarises the plan in the diagnostics older readers know, and stores it whole without the frame lists\' bulk', () => {
    const made = plan(ROWS[0]);
    expect(planSummary(made)).toEqual({ render_path: 'media_composite', frames_total: 300, frames_drawn: expect.any(Number), frames_blended: expect.any(Number) });
    const rotated = plan(ROWS.find((row) => row.name.startsWith('a rotated clip'))!);
    expect(planSummary(rotated)).toEqual({ render_path: 'browser', frames_total: 300, frames_drawn: 300, drawing_tabs: 1, media_fallback: 'video element 1 is rotated' });
    const stored = storedPlan(made);
    expect(stored).toMatchObject({ pictures: { strategy: 'media_composite', below: { drawn: '0' } }, sound: { via: 'ffmpeg' } });
    expect(JSON.stringify(stored).length).toBeLessThan(4000);
    expect(JSON.parse(JSON.stringify(stored))).toEqual(stored);
  });

  it('writes frame lists as ranges', () => {
    expect(frameRanges([0, 1, 2, 5, 7, 8])).toBe('0-2,5,7-8');
    expect(frameRanges([])).toBe('');
  });
});

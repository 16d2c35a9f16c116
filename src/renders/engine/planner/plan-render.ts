import { blendedFrames, drawnFrames, type BlendedFrames, type CompositionProps, type DrawnFrames, type ResolvedRequest } from '../../../../composition/src/schema';
import { mediaCompositePlan, type CompositePlan } from './composite-plan';
import type { OutputPlan } from '../output-formats';
import { soundStreamProblem, timelineSoundPlan } from '../sound/timeline-sound-plan';
import { drawingTabs, WARM_TAB_MAX_FRAMES } from '../browser/tabs';
import { COST_MODEL, scaledCosts, type CostModel } from './cost-model';
import { NO_CLIP, type Candidate, type EncoderPlan, type PicturesPlan, type RenderPlan, type SoundPlan, type StrategyName } from './render-plan';
import type { SourceFacts } from './source-facts';
import { DEFAULT_STITCH, type StitchSettings } from '../encode/stitch-settings';

/** What is asked of one render call: the resolved request, its output, and which part of it. */
export interface PlanRequest {
  props: Pick<CompositionProps, 'request' | 'media'>;
  resolved: ResolvedRequest;
  output: OutputPlan;
  /** Stills only: the frame to capture (default 0). */
  stillFrame?: number;
  /** Output size as a fraction of the canvas (previews); default 1. */
  scale?: number;
  /** The first and last frame to draw (a chunk, a clip preview); default all. */
  frameRange?: [number, number];
  /** No sound track at all (a chunk: its parent makes the sound once). */
  muted?: boolean;
  /** Worker processes alive now (WorkerPresence), the ones that could take a chunk; default 1. */
  workers?: number;
}

/**
 * The configuration the planner reads (AppConfig.render): which strategies it may weigh
 * (RENDER_HOLD_FRAMES, RENDER_BLEND_FADES, RENDER_COMPOSITE_MEDIA, RENDER_WARM_STILLS), how
 * the held pictures are encoded (RENDER_SKIP_PICTURES), whether the worker may mix the sound
 * (RENDER_MIX_SOUND), chunking, tabs and encoder settings.
 */
export interface PlannerConfig {
  holdFrames: boolean;
  blendFades: boolean;
  skipPictures: boolean;
  mixSound: boolean;
  warmStills: boolean;
  compositeMedia: boolean;
  /** RENDER_CHUNK_FRAMES: the chunk grid in frames (0: none); null: sized from the cost model. */
  chunkFrames: number | null;
  /** Whether a render on the grid is split into chunks: when it pays with the live workers, whenever longer than one chunk, or never. */
  chunkSplit: 'auto' | 'always' | 'never';
  tabs: number;
  /** The machine's cores (os.availableParallelism): Remotion draws with at most that many tabs. */
  cores: number;
  x264Preset: string;
  x264Crf: number;
  jpegQuality: number;
  /** The encoders Remotion stitches with after drawing (VP9, ProRes, GIF); default DEFAULT_STITCH. */
  stitch?: StitchSettings;
  /** RENDER_BEGIN_FRAME: sequences may be captured with BeginFrame control (the headless shell); default false. */
  beginFrame?: boolean;
  /** RENDER_STRATEGY: take this one whenever it can draw the request exactly, whatever it costs (tests, benchmarks); null: the cheapest. */
  strategy: StrategyName | null;
}

/** A jpg still is the delivered file, not a frame on its way to an encoder: its own quality. */
export const STILL_JPEG_QUALITY = 90;

/**
 * The whole plan of one render, from the request, what is known of its sources, the
 * configuration and the cost model; pure. Every strategy that can draw the request exactly is
 * estimated and the cheapest taken (or RENDER_STRATEGY's, when it can); the others say why not.
 */
export function planRender(request: PlanRequest, facts: SourceFacts, config: PlannerConfig, model: CostModel = COST_MODEL): RenderPlan {
  const { resolved, output } = request;
  const scale = request.scale ?? 1;
  const costs = scaledCosts(model, resolved.width * resolved.height * scale * scale);
  if (output.kind === 'still') {
    const frame = request.stillFrame ?? 0;
    const via = config.warmStills ? 'warm_page' : 'render_still';
    const seconds = (via === 'warm_page' ? costs.warmTabFrameMs : costs.tabOpenMs + costs.warmTabFrameMs) / 1000;
    return {
      output,
      frames: { total: 1, first: frame, last: frame },
      pictures: { strategy: 'still', frame, via, scale },
      sound: { via: 'none' },
      encoder: { codec: output.imageFormat, capture: output.imageFormat === 'png' ? 'png' : 'jpeg', ...(output.imageFormat === 'jpeg' ? { jpegQuality: STILL_JPEG_QUALITY } : {}), audioCodec: null },
      segments: null,
      workers: request.workers ?? 1,
      chunks: null,
      candidates: [{ strategy: 'still', seconds: round(seconds) }],
      estimatedSeconds: round(seconds),
    };
  }
  const [first, last] = request.frameRange ?? [0, resolved.durationInFrames - 1];
  const frames = last - first + 1;
  const hasClip = resolved.elements.some((element) => element.type === 'video');
  // Weighed over the frames this call draws, as the held strategy's are (a chunk is its own call).
  const screenshotTabs = tabsWorthOpening(drawingTabs(resolved, config), frames, costs);
  const screenshotFrame = hasClip ? costs.pageFrameWithClipMs : screenshotTabs > 1 ? costs.pageFrameTwoTabsMs : costs.pageFrameMs;
  const beginFrame = beginFrameProblem(request, config) === null;
  const captureFrame = hasClip ? costs.beginFrameWithClipMs : costs.beginFrameMs;
  // BeginFrame capture draws on one tab with the encoder beside it: a frame costs the slower of the two.
  const browserFrame = beginFrame
    ? Math.max(captureFrame, encodeFrameMs(output.codec, costs))
    : screenshotFrame + stitchFrameMs(output.codec, costs);
  const browserBeginFrame = beginFrame && browserFrame < screenshotFrame + stitchFrameMs(output.codec, costs);
  const tabs = browserBeginFrame ? 1 : screenshotTabs;
  const pageFrame = browserBeginFrame ? browserFrame : screenshotFrame;

  const options: { pictures: PicturesPlan; seconds: number }[] = [];
  const candidates: Candidate[] = [];
  const consider = (strategy: StrategyName, made: { pictures: PicturesPlan; ms: number } | string) => {
    if (typeof made === 'string') {
      candidates.push({ strategy, reason: made });
      return;
    }
    const seconds = round(made.ms / 1000);
    candidates.push({ strategy, seconds });
    options.push({ pictures: made.pictures, seconds });
  };

  const browserMs = frames * (browserBeginFrame ? browserFrame : screenshotFrame + stitchFrameMs(output.codec, costs)) + (tabs - 1) * costs.secondTabMs;
  consider('browser', { pictures: { strategy: 'browser', frames: [first, last], tabs, scale }, ms: browserMs });

  const heldProblem = heldProblemOf(request, config);
  const drawn = heldProblem ? null : drawnFrames(request.props.request, resolved);
  const heldCapture = beginFrame ? captureFrame : null;
  consider('held_frames', heldProblem ?? heldCost(drawn!, drawingTabs(resolved, config), hasClip, costs, config, heldCapture));
  const blended = heldProblem || !config.blendFades ? null : blendedFrames(request.props.request, resolved);
  consider(
    'blended_frames',
    heldProblem ?? (!config.blendFades ? 'RENDER_BLEND_FADES is off' : blended!.blended === 0 ? 'no frame differs from another only by opacity' : blendedCost(blended!, hasClip, costs, config, heldCapture)),
  );
  consider('media_composite', compositeOption(request, facts, config, costs));

  const forced = config.strategy ? options.find((option) => option.pictures.strategy === config.strategy) : undefined;
  // The cheapest; on a tie the first in the table (the browser, then the held strategies).
  const chosen = forced ?? options.reduce((best, option) => (option.seconds < best.seconds ? option : best));
  const pictures = chosen.pictures;
  // The strategy is chosen before the grid is weighed, so the workers never change it (nor the frames):
  // a browser render on the grid draws it a segment at a time, each with a fresh encoder, or splits it.
  const onGrid = pictures.strategy === 'browser' ? segmentsOf(request, config, costs) : null;
  const wholeSeconds = round(chosen.seconds + (onGrid ? ((onGrid.length - 1) * costs.segmentStartMs) / 1000 : 0));
  const split = onGrid ? splitOf(onGrid, request.workers ?? 1, pageFrame, wholeSeconds, config, costs) : null;
  return {
    output,
    frames: { total: frames, first, last },
    pictures,
    sound: soundOf(request, facts, config, pictures.strategy === 'browser' && onGrid === null && !browserBeginFrame),
    encoder: encoderOf(output, config, pictures, pictures.strategy === 'browser' ? browserBeginFrame : beginFrame),
    segments: onGrid,
    workers: request.workers ?? 1,
    chunks: split ? onGrid : null,
    candidates,
    estimatedSeconds: split ? split.seconds : wholeSeconds,
  };
}

/** Why neither held strategy can draw this render (they draw a whole H.264 timeline at full size); null when they can. */
function heldProblemOf(request: PlanRequest, config: PlannerConfig): string | null {
  const { output, resolved } = request;
  if (!config.holdFrames) return 'RENDER_HOLD_FRAMES is off';
  if (output.kind !== 'video' || output.codec !== 'h264') return 'the output is not H.264';
  if (output.audioCodec !== 'aac' && output.audioCodec !== null) return 'the sound is not AAC';
  if (request.frameRange || (request.scale ?? 1) !== 1) return 'a part of the timeline or a scaled output';
  // Remotion evens odd sizes for H.264 itself; the held strategies leave them to the browser.
  if (resolved.width % 2 !== 0 || resolved.height % 2 !== 0) return 'odd canvas size (the browser path evens it)';
  return null;
}

function heldCost(drawn: DrawnFrames, browserTabs: number, hasClip: boolean, costs: CostModel, config: PlannerConfig, beginFrameMs: number | null): { pictures: PicturesPlan; ms: number } {
  const count = drawn.frames.length;
  // Encoded after the drawing, so the drawing has the cores (BeginFrame capture draws on one tab).
  const tabs = beginFrameMs === null ? tabsWorthOpening(browserTabs, count, costs) : 1;
  // x264 runs after the drawing, not beside the page as in the browser path's frame figures.
  const page = beginFrameMs ?? (hasClip ? costs.pageFrameWithClipMs : tabs > 1 ? costs.pageFrameTwoTabsMs : costs.pageFrameMs) - costs.encoderBesidePageMs;
  const repeats = drawn.durationInFrames - count;
  const encode = count * costs.x264PictureMs + (config.skipPictures ? 0 : repeats * costs.x264HeldRepeatMs);
  return { pictures: { strategy: 'held_frames', drawn, tabs }, ms: costs.startMs + (tabs - 1) * costs.secondTabMs + count * page + encode };
}

/**
 * The tabs that draw `frames` frames of a page without a clip: every tab loads the bundle
 * (secondTabMs), so the tabs beyond the first are opened only when the frames they save repay them.
 */
export function tabsWorthOpening(maxTabs: number, frames: number, costs: CostModel): number {
  if (maxTabs <= 1) return 1;
  const saved = frames * (costs.pageFrameMs - costs.pageFrameTwoTabsMs);
  return saved > (maxTabs - 1) * costs.secondTabMs ? maxTabs : 1;
}

function blendedCost(blended: BlendedFrames, hasClip: boolean, costs: CostModel, config: PlannerConfig, beginFrameMs: number | null): { pictures: PicturesPlan; ms: number } {
  // One tab: x264 and the sound mix share the cores with the drawing.
  const page = beginFrameMs ?? (hasClip ? costs.pageFrameWithClipMs : costs.pageFrameMs);
  let encoded = 0;
  let mixed = 0;
  for (const run of blended.runs) {
    const terms = run.mix.length;
    // With skip pictures a fade between two pictures is the decoder's, a repeat a skip picture.
    if (terms === 1) encoded += config.skipPictures ? 1 : run.hold;
    else if (terms === 2 && config.skipPictures) continue;
    else {
      encoded += run.hold;
      mixed += run.hold;
    }
  }
  const ms = costs.startMs + blended.frames.length * page + encoded * costs.x264PictureMs + mixed * costs.mixFrameMs;
  return { pictures: { strategy: 'blended_frames', blended, tabs: 1 }, ms };
}

/** The composite's plan with each clip's local file and its cost, or why the browser must draw the clips. */
function compositeOption(request: PlanRequest, facts: SourceFacts, config: PlannerConfig, costs: CostModel): { pictures: PicturesPlan; ms: number } | string {
  if (!config.compositeMedia) return 'RENDER_COMPOSITE_MEDIA is off';
  const choice = mediaCompositePlan(request.props, request.resolved, { plan: request.output, scale: request.scale, frameRange: request.frameRange });
  if (choice === null) return NO_CLIP;
  if (!choice.ok) return choice.reason;
  const clipFiles: string[] = [];
  for (const clip of choice.plan.clips) {
    const file = facts.files[clip.src];
    if (!file) return `video element ${clip.index} has no local copy`;
    const problem = facts.pictures[clip.src];
    if (problem === undefined) return `video element ${clip.index}: the source was not probed`;
    if (problem !== null) return `video element ${clip.index}: ${problem}`;
    clipFiles.push(file);
  }
  return { pictures: { strategy: 'media_composite', composite: choice.plan, clipFiles }, ms: compositeCost(choice.plan, request.resolved.durationInFrames, costs, config) };
}

function compositeCost(plan: CompositePlan, total: number, costs: CostModel, config: PlannerConfig): number {
  const below = plan.below.frames.frames.length;
  const above = plan.above ? (plan.above.blended ?? plan.above.frames).frames.length : 0;
  const warm = (count: number) => config.warmStills && count <= WARM_TAB_MAX_FRAMES;
  const layer = (count: number, frameMs: number) => (count === 0 ? 0 : warm(count) ? count * costs.warmTabFrameMs : costs.tabOpenMs + count * frameMs);
  const [belowMs, aboveMs] = [layer(below, costs.pageFrameMs), layer(above, costs.layerFramePngMs)];
  // Two layers each in a tab of its own draw side by side, as two tabs of one render do, but only
  // while both are drawing: the longer one finishes alone, at one tab's pace.
  const sideBySide = !warm(below) && !warm(above) && below > 0 && above > 0;
  const together = costs.pageFrameTwoTabsMs / costs.pageFrameMs;
  const [shorter, longer] = [Math.min(belowMs, aboveMs), Math.max(belowMs, aboveMs)];
  const draw = sideBySide ? 2 * shorter * together + (longer - shorter) : belowMs + aboveMs;
  const mix = (plan.above?.blended?.blended ?? 0) * costs.layerMixFrameMs;
  // The graph starts once the upper layer is drawn and mixed, and encodes while the lower layer is
  // still drawing: the longer of the two, and a share of the shorter for the cores they share.
  const aboveDone = sideBySide && aboveMs <= belowMs ? 2 * aboveMs * together : draw;
  const [stillDrawing, graph] = [Math.max(0, draw - aboveDone - mix), total * costs.compositeFrameMs];
  return costs.startMs + aboveDone + mix + Math.max(stillDrawing, graph) + costs.overlapShare * Math.min(stillDrawing, graph);
}

/** A chunk's drawing is at least this many times its fixed cost (chunkStartMs): the grid's size when not configured. */
const CHUNK_WORK_PER_START = 20;
/** The grid's longest cell: a 90 s render splits in three at any size. */
const MAX_CHUNK_SECONDS = 30;

/**
 * The chunk grid of a whole-timeline H.264 render (AAC or silent) longer than one cell: frame
 * ranges each encoded by a fresh encoder and joined by stream copy, whether a worker draws them
 * in turn or the chunks are spread over workers, so both give the same frames
 * (docs/decisions/0100-chunk-boundaries.md). The grid follows from the request and the
 * configuration only, never from the workers: RENDER_CHUNK_FRAMES, or whole seconds long enough
 * that a chunk's fixed cost is a twentieth of its drawing at one tab. Null: one encoder for all.
 */
function segmentsOf(request: PlanRequest, config: PlannerConfig, costs: CostModel): [number, number][] | null {
  const { output, resolved } = request;
  if (output.kind !== 'video' || output.codec !== 'h264' || request.frameRange || request.muted || (request.scale ?? 1) !== 1) return null;
  if (output.audioCodec !== 'aac' && output.audioCodec !== null) return null;
  const cell = chunkGridFrames(resolved, config, costs);
  if (cell === null || resolved.durationInFrames <= cell) return null;
  return splitFrames(resolved.durationInFrames, cell);
}

/** Frames per chunk of the grid; null: no grid (RENDER_CHUNK_FRAMES=0). */
export function chunkGridFrames(resolved: Pick<ResolvedRequest, 'fps' | 'elements'>, config: Pick<PlannerConfig, 'chunkFrames' | 'chunkSplit'>, costs: CostModel): number | null {
  if (config.chunkFrames !== null) return config.chunkFrames > 0 ? config.chunkFrames : null;
  if (config.chunkSplit === 'never') return null;
  const frameMs = resolved.elements.some((element) => element.type === 'video') ? costs.pageFrameWithClipMs : costs.pageFrameMs;
  const fps = Math.max(1, Math.round(resolved.fps));
  const seconds = Math.ceil((CHUNK_WORK_PER_START * costs.chunkStartMs) / frameMs / fps);
  return Math.min(seconds, MAX_CHUNK_SECONDS) * fps;
}

/**
 * Whether the grid's cells go to the workers as chunks: always or never when RENDER_CHUNK_FRAMES
 * says so; else when more than one worker is live and the chunks, drawn side by side in rounds of
 * one per worker, each paying its fixed cost, finish before one worker would.
 */
function splitOf(
  segments: [number, number][],
  workers: number,
  frameMs: number,
  wholeSeconds: number,
  config: PlannerConfig,
  costs: CostModel,
): { seconds: number } | null {
  if (config.chunkSplit === 'never') return null;
  const longest = Math.max(...segments.map(([first, last]) => last - first + 1));
  const rounds = Math.ceil(segments.length / Math.max(1, workers));
  const seconds = round((rounds * (longest * frameMs + costs.chunkStartMs)) / 1000);
  if (config.chunkSplit === 'always') return { seconds };
  return workers > 1 && seconds < wholeSeconds ? { seconds } : null;
}

/** Consecutive frame ranges of at most `size` frames covering `total` frames. */
export function splitFrames(total: number, size: number): [number, number][] {
  const ranges: [number, number][] = [];
  for (let first = 0; first < total; first += size) ranges.push([first, Math.min(total, first + size) - 1]);
  return ranges;
}

/**
 * How the sound is made: the worker's own mix wherever it matches the browser's (every H.264
 * whole-timeline render, so the path taken never changes the sound), else the page's.
 */
function soundOf(request: PlanRequest, facts: SourceFacts, config: PlannerConfig, drawnByRenderMedia: boolean): SoundPlan {
  const { output, resolved } = request;
  if (output.kind !== 'video' || request.muted || output.audioCodec === null) return { via: 'none' };
  if (output.audioCodec !== 'aac') return { via: 'encoder' };
  if (!resolved.hasAudio) return { via: 'none' };
  // A part of the timeline (a clip preview): the page collects its sound while drawing.
  if (request.frameRange) return { via: 'page_while_drawing' };
  const problem = config.mixSound ? soundMixProblem(request, facts) : 'RENDER_MIX_SOUND is off';
  if (problem === null) return { via: 'ffmpeg' };
  // Only one renderMedia over the whole timeline collects the page's sound; chunks and segments are drawn muted.
  return { via: drawnByRenderMedia ? 'page_while_drawing' : 'page_audio_pass', ...(config.mixSound ? { reason: problem } : {}) };
}

/** Why the worker cannot mix this timeline's sound as the browser would (timeline-sound.ts); null when it can. */
function soundMixProblem(request: PlanRequest, facts: SourceFacts): string | null {
  const plan = timelineSoundPlan(request.props, request.resolved);
  if (!plan.ok) return plan.reason;
  for (const clip of plan.clips) {
    if (!facts.files[clip.src]) return `no local copy of ${clip.src}`;
    const stream = facts.sounds[clip.src];
    if (stream === undefined) return `a source could not be probed (${clip.src} was not)`;
    if (stream && 'problem' in stream) return `a source could not be probed (${stream.problem})`;
    const problem = stream ? soundStreamProblem(stream) : null;
    if (problem) return problem;
  }
  return null;
}

function encoderOf(output: Extract<OutputPlan, { kind: 'video' }>, config: PlannerConfig, pictures: PicturesPlan, beginFrame: boolean): EncoderPlan {
  const capture = output.imageFormat === 'png' ? 'png' : 'jpeg';
  const held = pictures.strategy === 'held_frames' || pictures.strategy === 'blended_frames';
  const sequence = held || pictures.strategy === 'browser';
  return {
    codec: output.codec,
    pixelFormat: output.pixelFormat,
    capture,
    ...(capture === 'jpeg' ? { jpegQuality: config.jpegQuality } : {}),
    ...(sequence ? { frameCapture: beginFrame ? ('begin_frame' as const) : ('screenshot' as const) } : {}),
    ...(output.codec === 'h264' ? { x264: { preset: config.x264Preset, crf: config.x264Crf } } : {}),
    ...(held ? { skipPictures: config.skipPictures } : {}),
    ...stitchOf(output.codec, config.stitch ?? DEFAULT_STITCH),
    audioCodec: output.audioCodec,
  };
}

/**
 * Why this render's sequence cannot be captured with BeginFrame control (our own frame loop, one
 * tab, at full size, the pictures piped into the encoder, the page's sound collected by no one);
 * null when it can.
 */
function beginFrameProblem(request: PlanRequest, config: PlannerConfig): string | null {
  const { output, resolved } = request;
  if (!config.beginFrame) return 'RENDER_BEGIN_FRAME is off';
  if (output.kind !== 'video' || !PIPED_CODECS.includes(output.codec)) return 'the output is not H.264, VP9, ProRes or GIF';
  if ((request.scale ?? 1) !== 1) return 'a scaled output';
  // Remotion evens odd sizes for H.264 itself.
  if (output.codec === 'h264' && (resolved.width % 2 !== 0 || resolved.height % 2 !== 0)) return 'odd canvas size';
  const audible = !request.muted && output.audioCodec !== null && resolved.hasAudio;
  // Only renderMedia collects the page's sound of a part of the timeline, or muxes it into a non-AAC track.
  if (audible && (output.audioCodec !== 'aac' || request.frameRange)) return 'the page collects the sound while drawing';
  return null;
}

const PIPED_CODECS: readonly string[] = ['h264', 'vp9', 'prores', 'gif'];

/** The piped encoder's time for one frame beside the drawing (BeginFrame capture). */
function encodeFrameMs(codec: string, costs: CostModel): number {
  return codec === 'h264' ? costs.x264PictureMs : stitchFrameMs(codec, costs);
}

/** Remotion encodes VP9, ProRes and GIF after drawing every frame (x264 runs beside the drawing, in pageFrameMs). */
function stitchFrameMs(codec: string, costs: CostModel): number {
  return codec === 'vp9' ? costs.vp9FrameMs : codec === 'prores' ? costs.proresFrameMs : codec === 'gif' ? costs.gifFrameMs : 0;
}

function stitchOf(codec: string, stitch: StitchSettings): Pick<EncoderPlan, 'vp9' | 'prores' | 'gif'> {
  if (codec === 'vp9' && stitch.vp9) return { vp9: stitch.vp9 };
  if (codec === 'prores' && stitch.prores) return { prores: stitch.prores };
  if (codec === 'gif' && stitch.gif) return { gif: stitch.gif };
  return {};
}

function round(seconds: number): number {
  return Math.round(seconds * 100) / 100;
}

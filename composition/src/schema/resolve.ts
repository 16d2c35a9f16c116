import { captionPages, CAPTION_DEFAULTS, type CaptionWord } from '../captions/pages';
import { attachAnimations, type ElementAnimation, type ResolvedTransition } from '../motion/animation';
import { duckCurve, type DuckCurve, type SoundSource, type SoundSpan } from '../motion/ducking';
import { timeForOffset, type RateKeyframe } from '../motion/time-remap';
import { trackOverlaps } from '../motion/transitions';
import { CANVAS_LIMITS } from './limits';
import { DEFAULT_HIGHLIGHT_COLOR, type Element, type TextElement, type VisualElement } from './elements';
import { parseDegrees, parsePercent, toFraction } from './primitives';
import { fontStack } from './font-fallbacks';
import type { GradientObject, RenderRequest } from './request';
import type { OutputFormat } from './vocabulary';

/**
 * Turns the author's intent (seconds, percents, omitted fields, track sequencing) into the
 * explicit numbers the composition draws. Pure, so the server (metadata, violations), Remotion's
 * `calculateMetadata` and the browser Player all agree.
 */

/** What the server knows about a source URL (from probing or the upload record). */
export interface MediaInfo {
  duration?: number;
  width?: number;
  height?: number;
  has_audio?: boolean;
  has_video?: boolean;
  /** Source seconds where the sound is above −45 dBFS (the server's one-time analysis; ducking). */
  audible_spans?: SoundSpan[];
  /** Source seconds where voice activity is detected (the server's one-time analysis; ducking under "speech"). */
  speech_spans?: SoundSpan[];
}

export const DEFAULT_FRAME_RATE = CANVAS_LIMITS.frame_rate.default;
export const DEFAULT_CANVAS = { width: 1920, height: 1080 } as const;
/**
 * Seconds assumed for an element that has no length of its own (a text, image or shape without
 * `duration`, or a video/audio without `out_point` whose source duration is unknown) wherever a
 * number is needed: when another element follows it on its track, and when the composition
 * duration is inferred. Otherwise such an element lasts until the composition ends.
 */
export const DEFAULT_ELEMENT_SECONDS = 5;

/** The one conversion from seconds to frames. */
export function secondsToFrames(seconds: number, fps: number): number {
  return Math.round(seconds * fps);
}

export type RelativeLength = { unit: 'px' | '%'; value: number };

export interface ResolvedTiming {
  /** Position in `request.elements`. */
  index: number;
  id: string | null;
  startSeconds: number;
  durationSeconds: number;
  /** First frame, composition frames. */
  from: number;
  durationInFrames: number;
  fadeInFrames: number;
  fadeOutFrames: number;
  /** Motions, transitions, groups and text animation (motion/animation.ts). */
  animation?: ElementAnimation;
}

export interface ResolvedBox {
  /** The anchor point on the canvas, px. */
  x: number;
  y: number;
  /** px; null means the box fits its content (text only). */
  width: number | null;
  height: number | null;
  /** The anchor point inside the element box. */
  xAnchor: RelativeLength;
  yAnchor: RelativeLength;
  /** Degrees. */
  xRotation: number;
  yRotation: number;
  zRotation: number;
  /** Factors, negative when flipped. */
  scaleX: number;
  scaleY: number;
  opacity: number;
}

export interface ResolvedMedia {
  src: string;
  /** Source frames (at the composition frame rate) cut from the start / where the clip ends. */
  trimBefore: number | undefined;
  trimAfter: number | undefined;
  playbackRate: number;
  volume: number;
  /** Speed ramp (motion/time-remap.ts); null: constant `playbackRate`. */
  rateKeyframes: RateKeyframe[] | null;
  /** Auto-ducking gain curve (motion/ducking.ts); null: never ducked. */
  duck: DuckCurve | null;
}

export interface ResolvedTextStyle {
  fontFamily: string;
  /** `font_size: "auto"`: the page fits `fontSize` between these (fit-text.ts); `fontSize` is then `max`. */
  fit: { min: number; max: number } | null;
  /** CSS `font-family` list: the family, then fallbacks by script and colour emoji (font-fallbacks.ts). */
  fontStack: string;
  fontSize: number;
  fontWeight: number;
  fontStyle: 'normal' | 'italic';
  color: string;
  xAlignment: 'left' | 'center' | 'right';
  yAlignment: 'top' | 'center' | 'bottom';
  /** Multiple of the font size. */
  lineHeight: number;
  /** px */
  letterSpacing: number;
  textTransform: 'none' | 'uppercase' | 'lowercase' | 'capitalize';
  wrap: boolean;
  strokeColor: string | null;
  strokeWidth: number;
  backgroundColor: string | null;
  backgroundXPadding: number;
  backgroundYPadding: number;
  backgroundBorderRadius: number;
}

export type ResolvedVideo = ResolvedTiming & ResolvedMedia & { type: 'video'; box: ResolvedBox & { width: number; height: number } };
export type ResolvedAudio = ResolvedTiming & ResolvedMedia & { type: 'audio' };
export type ResolvedImage = ResolvedTiming & {
  type: 'image';
  box: ResolvedBox & { width: number; height: number };
  src: string;
  fit: 'cover' | 'contain' | 'fill';
};
/** A caption word: its first frame, counted from the text element's start. */
export interface ResolvedCaptionWord {
  text: string;
  from: number;
}

/** A caption page on screen for frames [from, to) of the text element. */
export interface ResolvedCaptionPage {
  from: number;
  to: number;
  lines: ResolvedCaptionWord[][];
}

export interface ResolvedCaptions {
  pages: ResolvedCaptionPage[];
  highlightColor: string;
  highlightBackground: string | null;
  reveal: 'page' | 'word';
}

/**
 * Words of each transcript source (`transcript.source`: element id or task id), resolved by the
 * server before rendering and passed to the composition with the request: seconds of the source's
 * audio for an element source, seconds from the text element's start for a task source.
 */
export type TranscriptWords = Record<string, CaptionWord[]>;

export type ResolvedText = ResolvedTiming & {
  type: 'text';
  box: ResolvedBox;
  /** The text; for captions, every word of the transcript (font loading, layout estimates). */
  text: string;
  style: ResolvedTextStyle;
  /** Captions from a transcript instead of fixed text; null for plain text. */
  captions: ResolvedCaptions | null;
};
export type ResolvedShape = ResolvedTiming & {
  type: 'shape';
  box: ResolvedBox & { width: number; height: number };
  shape: 'rectangle' | 'ellipse';
  fillColor: string;
  strokeColor: string | null;
  strokeWidth: number;
  borderRadius: number;
};
export type ResolvedWaveform = ResolvedTiming & {
  type: 'waveform';
  box: ResolvedBox & { width: number; height: number };
  /** Index (in `request.elements`) of the sound element shown; null: the mix. */
  sourceIndex: number | null;
  style: 'bars' | 'line';
  fillColor: string;
  barCount: number;
  barGap: number;
  barRadius: number;
  mirror: boolean;
  smoothing: number;
  strokeWidth: number;
};
export type ResolvedElement = ResolvedVideo | ResolvedAudio | ResolvedImage | ResolvedText | ResolvedShape | ResolvedWaveform;

export interface ResolvedRequest {
  width: number;
  height: number;
  fps: number;
  durationInFrames: number;
  durationSeconds: number;
  outputFormat: OutputFormat;
  outputFilename: string | null;
  alpha: boolean;
  backgroundColor: string;
  backgroundImageUrl: string | null;
  /** CSS `background` value. */
  backgroundGradient: string | null;
  watermarkUrl: string | null;
  /** Whether any element can be heard (the output then needs an audio stream). */
  hasAudio: boolean;
  /** Visible elements with at least one frame, back to front. */
  elements: ResolvedElement[];
  /** Transitions that run (elements that overlap). */
  transitions: ResolvedTransition[];
}

export interface Canvas {
  width: number;
  height: number;
}

export interface ElementTimeline {
  startSeconds: number;
  /** Unclipped end: may lie beyond the composition end. */
  endSeconds: number;
  /** Own length in seconds; null when the element has none (it lasts until the end). */
  ownSeconds: number | null;
  from: number;
  /** Clipped to the composition end; 0 or less means never shown. */
  durationInFrames: number;
}

export interface Timeline {
  fps: number;
  durationSeconds: number;
  durationInFrames: number;
  elements: ElementTimeline[];
}

export function resolveRequest(request: RenderRequest, media: Record<string, MediaInfo>, transcripts: TranscriptWords = {}): ResolvedRequest {
  const canvas = resolveCanvas(request, media);
  const timeline = resolveTimeline(request, media);
  const drawn = (request.elements ?? [])
    .map((element, index) => ({ element, index, timing: timeline.elements[index] }))
    .filter(({ element, timing }) => element.visible !== false && timing.durationInFrames > 0 && timing.from < timeline.durationInFrames)
    .sort((a, b) => zIndex(a.element) - zIndex(b.element))
    .map(({ element, index, timing }) => {
      const resolved = resolveElement(element, index, timing, timeline.fps, canvas, media, request.elements ?? []);
      if (resolved.type === 'text' && element.type === 'text' && element.transcript) {
        resolved.captions = resolveCaptions(request, timeline, element, timing, transcripts[element.transcript.source] ?? []);
        resolved.text = resolved.captions.pages.flatMap((page) => page.lines.flat().map((word) => word.text)).join(' ');
        resolved.style = { ...resolved.style, fontStack: fontStack(resolved.style.fontFamily, resolved.text) };
      }
      return resolved;
    });
  const animated = attachAnimations(request, drawn, canvas, timeline.fps);
  const elements = attachDucking(request, animated.elements, media);
  const transitions = animated.transitions;
  return {
    ...canvas,
    fps: timeline.fps,
    durationInFrames: timeline.durationInFrames,
    durationSeconds: timeline.durationSeconds,
    outputFormat: request.output_format ?? 'mp4',
    outputFilename: request.output_filename ?? null,
    alpha: request.alpha ?? false,
    backgroundColor: request.background_color ?? '#000000ff',
    backgroundImageUrl: request.background_image_url ?? null,
    backgroundGradient: request.background_gradient == null ? null : gradientCss(request.background_gradient),
    watermarkUrl: request.watermark_url ?? null,
    hasAudio: elements.some((element) => isAudible(element, media)),
    elements,
    transitions,
  };
}

/**
 * Canvas size: width/height when set; else the first visible video or image whose media size is
 * known (scaled into 16..8192 and rounded to even numbers, which H.264 needs); else 1920x1080.
 */
export function resolveCanvas(request: RenderRequest, media: Record<string, MediaInfo>): Canvas {
  if (request.width != null && request.height != null) return { width: request.width, height: request.height };
  for (const element of request.elements ?? []) {
    if ((element.type !== 'video' && element.type !== 'image') || element.visible === false) continue;
    const { width, height } = media[element.source_url] ?? {};
    if (width && height) return fitCanvas(width, height);
  }
  return { ...DEFAULT_CANVAS };
}

function fitCanvas(width: number, height: number): Canvas {
  const scale = Math.min(1, CANVAS_LIMITS.size.max / Math.max(width, height));
  const even = (size: number) => Math.max(16, 2 * Math.round((size * scale) / 2));
  return { width: even(width), height: even(height) };
}

/**
 * Start and end of every element (in request order) and the composition duration:
 * `time` when set; else right after the previous element on the same `track`; else 0.
 * Media length = ((out_point ?? source duration) − (in_point ?? 0)) / speed.
 */
export function resolveTimeline(request: RenderRequest, media: Record<string, MediaInfo>): Timeline {
  const fps = request.frame_rate ?? DEFAULT_FRAME_RATE;
  const elements = request.elements ?? [];
  const own = elements.map((element) => ownSeconds(element, media));
  const lengths = [...own];
  // A transition to the next element on a track starts that element its duration earlier.
  const overlaps = trackOverlaps(request);
  const starts: number[] = [];
  const lastOnTrack = new Map<number, number>();
  elements.forEach((element, index) => {
    const previous = element.track === undefined ? undefined : lastOnTrack.get(element.track);
    if (element.time !== undefined) starts[index] = element.time;
    else if (previous !== undefined) {
      const length = (lengths[previous] ??= DEFAULT_ELEMENT_SECONDS);
      const overlap = overlaps.get(index)?.fromIndex === previous ? Math.min(overlaps.get(index)!.seconds, length, lengths[index] ?? Infinity) : 0;
      starts[index] = starts[previous] + length - overlap;
    }
    else starts[index] = 0;
    if (element.track !== undefined) lastOnTrack.set(element.track, index);
  });
  const inferred = Math.max(0, ...starts.map((start, index) => start + (lengths[index] ?? DEFAULT_ELEMENT_SECONDS)));
  const durationSeconds = request.duration ?? (inferred > 0 ? inferred : DEFAULT_ELEMENT_SECONDS);
  const durationInFrames = Math.max(1, secondsToFrames(durationSeconds, fps));
  return {
    fps,
    durationSeconds,
    durationInFrames,
    elements: elements.map((_, index) => {
      const startSeconds = starts[index];
      const endSeconds = lengths[index] === null ? Math.max(startSeconds, durationSeconds) : startSeconds + lengths[index];
      const from = secondsToFrames(startSeconds, fps);
      const end = Math.min(secondsToFrames(endSeconds, fps), durationInFrames);
      return { startSeconds, endSeconds, ownSeconds: own[index], from, durationInFrames: end - from };
    }),
  };
}

function ownSeconds(element: Element, media: Record<string, MediaInfo>): number | null {
  if (element.type !== 'video' && element.type !== 'audio') return element.duration ?? null;
  const end = element.out_point ?? media[element.source_url]?.duration;
  if (end === undefined) return null;
  const sourceLength = Math.max(0, end - (element.in_point ?? 0));
  if (element.playback_rate_keyframes?.length) return timeForOffset(element.playback_rate_keyframes, element.speed ?? 1, sourceLength);
  return sourceLength / (element.speed ?? 1);
}

function resolveElement(
  element: Element,
  index: number,
  timeline: ElementTimeline,
  fps: number,
  canvas: Canvas,
  media: Record<string, MediaInfo>,
  elements: readonly Element[],
): ResolvedElement {
  const timing: ResolvedTiming = {
    index,
    id: element.id ?? null,
    startSeconds: timeline.from / fps,
    durationSeconds: timeline.durationInFrames / fps,
    from: timeline.from,
    durationInFrames: timeline.durationInFrames,
    fadeInFrames: secondsToFrames(element.fade_in_duration ?? 0, fps),
    fadeOutFrames: secondsToFrames(element.fade_out_duration ?? 0, fps),
  };
  switch (element.type) {
    case 'audio':
      return { ...timing, type: 'audio', ...resolveMedia(element, fps) };
    case 'video':
      return { ...timing, type: 'video', ...resolveMedia(element, fps), box: sizedBox(element, canvas, media) };
    case 'image':
      return { ...timing, type: 'image', src: element.source_url, fit: element.fit ?? 'cover', box: sizedBox(element, canvas, media) };
    case 'shape':
      return {
        ...timing,
        type: 'shape',
        box: sizedBox(element, canvas, media),
        shape: element.shape ?? 'rectangle',
        fillColor: element.fill_color ?? '#ffffff',
        strokeColor: element.stroke_color ?? null,
        strokeWidth: element.stroke_width ?? 0,
        borderRadius: element.border_radius ?? 0,
      };
    case 'text': {
      const box = resolveBox(element, canvas, media);
      return { ...timing, type: 'text', box, text: element.text ?? '', style: textStyle(element, canvas, box), captions: null };
    }
    case 'waveform': {
      const sourceIndex = element.source === undefined ? -1 : elements.findIndex((other) => other.id === element.source);
      return {
        ...timing,
        type: 'waveform',
        box: sizedBox(element, canvas, media),
        sourceIndex: sourceIndex < 0 ? null : sourceIndex,
        style: element.style ?? 'bars',
        fillColor: element.fill_color ?? '#ffffff',
        barCount: element.bar_count ?? 32,
        barGap: element.bar_gap ?? 0.3,
        barRadius: element.bar_radius ?? 0,
        mirror: element.mirror ?? false,
        smoothing: toFraction(element.smoothing ?? 0.5),
        strokeWidth: element.stroke_width ?? 3,
      };
    }
  }
}

/** Fills each ducked element's gain curve from the sound analysis of the others (motion/ducking.ts). */
function attachDucking(request: RenderRequest, elements: ResolvedElement[], media: Record<string, MediaInfo>): ResolvedElement[] {
  const requested = request.elements ?? [];
  if (!requested.some((element) => (element.type === 'audio' || element.type === 'video') && element.duck)) return elements;
  const sounds: SoundSource[] = elements.flatMap((element) =>
    (element.type === 'audio' || element.type === 'video') && isAudible(element, media)
      ? [{
          id: element.id,
          index: element.index,
          startSeconds: element.startSeconds,
          durationSeconds: element.durationSeconds,
          inPoint: (element.trimBefore ?? 0) / (request.frame_rate ?? DEFAULT_FRAME_RATE),
          playbackRate: element.playbackRate,
          rateKeyframes: element.rateKeyframes,
          audible: media[element.src]?.audible_spans,
          speech: media[element.src]?.speech_spans,
        }]
      : [],
  );
  return elements.map((element) => {
    const own = requested[element.index];
    if ((element.type !== 'audio' && element.type !== 'video') || (own.type !== 'audio' && own.type !== 'video') || !own.duck) return element;
    const self = sounds.find((sound) => sound.index === element.index);
    return self ? { ...element, duck: duckCurve(self, own.duck, sounds) } : element;
  });
}

/**
 * Caption pages of a text element in its own frames. Words of an element source are moved onto
 * the composition clock as that element plays them (its start, trim and speed; words outside the
 * trimmed clip are not spoken in the video and are left out). A word starts on the frame its
 * start time falls in.
 */
function resolveCaptions(request: RenderRequest, timeline: Timeline, element: TextElement, timing: ElementTimeline, words: CaptionWord[]): ResolvedCaptions {
  const transcript = element.transcript!;
  const fps = timeline.fps;
  const sourceIndex = (request.elements ?? []).findIndex((candidate) => candidate.id === transcript.source && (candidate.type === 'video' || candidate.type === 'audio'));
  let onClock: CaptionWord[];
  const source = sourceIndex === -1 ? undefined : request.elements![sourceIndex];
  if (source && (source.type === 'video' || source.type === 'audio')) {
    const start = timeline.elements[sourceIndex].from / fps;
    const trim = source.in_point ? secondsToFrames(source.in_point, fps) / fps : 0;
    const speed = source.speed ?? 1;
    const clipEnd = timeline.elements[sourceIndex].endSeconds;
    onClock = words
      .filter((word) => word.start >= trim && (source.out_point === undefined || word.start < source.out_point))
      .map((word) => ({ text: word.text, start: start + (word.start - trim) / speed, end: start + (word.end - trim) / speed }))
      .filter((word) => word.start < clipEnd);
  } else {
    const start = timing.from / fps;
    onClock = words.map((word) => ({ text: word.text, start: start + word.start, end: start + word.end }));
  }
  const layout = {
    maxWords: transcript.max_words ?? CAPTION_DEFAULTS.maxWords,
    maxChars: transcript.max_chars ?? CAPTION_DEFAULTS.maxChars,
    maxLines: transcript.max_lines ?? CAPTION_DEFAULTS.maxLines,
  };
  // A tiny tolerance, so a time computed as 0.99999… of a frame boundary still lands on that frame.
  const frameOf = (seconds: number) => Math.floor(seconds * fps + 1e-6) - timing.from;
  const pages = captionPages(onClock, layout)
    .map((page) => ({
      from: frameOf(page.start),
      to: Math.max(frameOf(page.start) + 1, frameOf(page.end)),
      lines: page.lines.map((line) => line.map((word) => ({ text: word.text, from: frameOf(word.start) }))),
    }))
    .filter((page) => page.to > 0 && page.from < timing.durationInFrames);
  return {
    pages,
    highlightColor: transcript.highlight_color ?? DEFAULT_HIGHLIGHT_COLOR,
    highlightBackground: transcript.highlight_background ?? null,
    reveal: transcript.reveal ?? 'page',
  };
}

function resolveMedia(
  element: { source_url: string; in_point?: number; out_point?: number; speed?: number; volume?: number | string; playback_rate_keyframes?: RateKeyframe[] },
  fps: number,
): ResolvedMedia {
  return {
    src: element.source_url,
    trimBefore: element.in_point ? secondsToFrames(element.in_point, fps) : undefined,
    trimAfter: element.out_point === undefined ? undefined : secondsToFrames(element.out_point, fps),
    playbackRate: element.speed ?? 1,
    volume: toFraction(element.volume ?? 1),
    rateKeyframes: element.playback_rate_keyframes?.length ? [...element.playback_rate_keyframes].sort((a, b) => a.time - b.time) : null,
    duck: null,
  };
}

/**
 * Position, size and transform in canvas pixels. x/width are relative to the canvas width,
 * y/height to its height; when only one of width/height is set the other follows `aspect_ratio`
 * (or the media's own). Omitted sizes fill the canvas, except for text, which fits its content.
 */
export function resolveBox(element: VisualElement, canvas: Canvas, media: Record<string, MediaInfo>): ResolvedBox {
  const info = element.type === 'video' || element.type === 'image' ? media[element.source_url] : undefined;
  const aspect = element.aspect_ratio ?? (info?.width && info?.height ? info.width / info.height : undefined);
  let width = element.width === undefined ? undefined : toPixels(element.width, canvas.width);
  let height = element.height === undefined ? undefined : toPixels(element.height, canvas.height);
  if (aspect !== undefined && width !== undefined && height === undefined) height = width / aspect;
  if (aspect !== undefined && height !== undefined && width === undefined) width = height * aspect;
  if (element.type !== 'text') {
    width ??= canvas.width;
    height ??= canvas.height;
  }
  return {
    x: toPixels(element.x ?? '50%', canvas.width),
    y: toPixels(element.y ?? '50%', canvas.height),
    width: width ?? null,
    height: height ?? null,
    xAnchor: toRelative(element.x_anchor ?? '50%'),
    yAnchor: toRelative(element.y_anchor ?? '50%'),
    xRotation: parseDegrees(element.x_rotation ?? 0),
    yRotation: parseDegrees(element.y_rotation ?? 0),
    zRotation: parseDegrees(element.z_rotation ?? 0),
    scaleX: (parsePercent(element.x_scale ?? '100%') / 100) * (element.flip_horizontal ? -1 : 1),
    scaleY: (parsePercent(element.y_scale ?? '100%') / 100) * (element.flip_vertical ? -1 : 1),
    opacity: toFraction(element.opacity ?? 1),
  };
}

/** Boxes of elements other than text always have a size. */
function sizedBox(element: Exclude<VisualElement, TextElement>, canvas: Canvas, media: Record<string, MediaInfo>) {
  return resolveBox(element, canvas, media) as ResolvedBox & { width: number; height: number };
}

/** The anchor point in element-box pixels, when the box size is known. */
export function anchorPixels(anchor: RelativeLength, size: number): number {
  return anchor.unit === 'px' ? anchor.value : (anchor.value / 100) * size;
}

function textStyle(element: TextElement, canvas: Canvas, box: ResolvedBox): ResolvedTextStyle {
  const fit = element.font_size === 'auto' ? { min: element.min_font_size ?? 8, max: element.max_font_size ?? box.height ?? canvas.height } : null;
  const fontSize = fit ? Math.max(fit.min, fit.max) : typeof element.font_size === 'number' ? element.font_size : canvas.height / 20;
  const lineHeight = element.line_height ?? 1.2;
  const letterSpacing = element.letter_spacing ?? 0;
  const fontFamily = element.font_family ?? 'Inter';
  return {
    fontFamily,
    fontStack: fontStack(fontFamily, element.text ?? ''),
    fit,
    fontSize,
    fontWeight: element.font_weight ?? 400,
    fontStyle: element.font_style ?? 'normal',
    color: element.fill_color ?? '#ffffff',
    xAlignment: element.x_alignment ?? 'left',
    yAlignment: element.y_alignment ?? 'top',
    lineHeight: typeof lineHeight === 'number' ? lineHeight : parsePercent(lineHeight) / 100,
    letterSpacing: typeof letterSpacing === 'number' ? letterSpacing : (parsePercent(letterSpacing) / 100) * fontSize,
    textTransform: element.text_transform ?? 'none',
    wrap: element.text_wrap ?? true,
    strokeColor: element.stroke_color ?? null,
    strokeWidth: element.stroke_color ? (element.stroke_width ?? 1) : 0,
    backgroundColor: element.background_color ?? null,
    backgroundXPadding: element.background_x_padding ?? 0,
    backgroundYPadding: element.background_y_padding ?? 0,
    backgroundBorderRadius: element.background_border_radius ?? 0,
  };
}

function toPixels(value: number | string, reference: number): number {
  return typeof value === 'number' ? value : (parsePercent(value) / 100) * reference;
}

function toRelative(value: number | string): RelativeLength {
  return typeof value === 'number' ? { unit: 'px', value } : { unit: '%', value: parsePercent(value) };
}

function zIndex(element: Element): number {
  return element.type === 'audio' ? 0 : (element.z_index ?? 0);
}

function isAudible(element: ResolvedElement, media: Record<string, MediaInfo>): boolean {
  if (element.type !== 'audio' && element.type !== 'video') return false;
  return element.volume > 0 && media[element.src]?.has_audio !== false;
}

/** The CSS `background` value of a gradient; the string form is already CSS. */
function gradientCss(gradient: string | GradientObject): string {
  if (typeof gradient === 'string') return gradient.trim();
  const stops = gradient.stops.map((stop) => `${stop.color} ${stop.offset * 100}%`).join(', ');
  if (gradient.type === 'radial') return `radial-gradient(${stops})`;
  return `linear-gradient(${parseDegrees(gradient.angle ?? 180)}deg, ${stops})`;
}

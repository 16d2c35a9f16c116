import { anchorPixels, blendedFrames, drawnFrames, fastGrade, FONT_FAMILIES, gradeSettings, isNeutral, matteSourceIds, type TextElement, type BlendedFrames, type CompositionProps, type DrawnFrames, type ResolvedRequest, type ResolvedVideo, type VideoElement } from '../../../../composition/src/schema';
import type { OutputPlan } from '../output-formats';

/**
 * Whether a render's video clips can be decoded, scaled and composited by ffmpeg instead of the
 * browser, read from the resolved timeline alone (pure). The browser then draws only the layers
 * below the clips (opaque) and above them (transparent), each distinct frame once.
 *
 * Conservative: a clip qualifies only when ffmpeg can reproduce exactly what the composition draws
 * for it — an axis-aligned box on whole pixels, `cover` fit, constant opacity times its fades, a
 * constant speed, no look field (frame, mask, effect, motion) but the colour fields the page grades
 * with per-channel curves, saturation and an overlay (GRADE_FIELDS). Nothing above a clip may need
 * its pixels (blend modes, backdrop blur, mattes), and nothing may change the paint order while the
 * render runs (transitions). Anything else is a reason to leave the render to the browser.
 */
export interface CompositeClip {
  /** Position in `request.elements`. */
  index: number;
  /** The request's URL of the source. */
  src: string;
  /** The element box on the canvas, whole pixels. */
  left: number;
  top: number;
  width: number;
  height: number;
  /** The source's size in pixels. */
  source: { width: number; height: number };
  /**
   * Where the whole source lands relative to the box's top-left corner as the page lays it out
   * (`objectFit: cover`: scaled to cover the box, centred; coverPlacement), in canvas pixels.
   */
  placement: { x: number; y: number; width: number; height: number };
  /** How ffmpeg brings the source's pixels onto the box as the page samples them (sourceSampling). */
  reduction: SourceReduction;
  /**
   * The source pixels ffmpeg reads, in whole source pixels: for `none`, `halve` and `pick` the part
   * that covers the box, cropped then reduced to it; for `bilinear` the rows and columns the box's
   * samples fall between, which the perspective filter maps onto the box.
   */
  sourceCrop: { x: number; y: number; width: number; height: number };
  /** First frame on the timeline and number of frames shown (its `<Sequence>`). */
  from: number;
  durationInFrames: number;
  /** Source second shown on the clip's first frame. */
  startSeconds: number;
  playbackRate: number;
  opacity: number;
  fadeInFrames: number;
  fadeOutFrames: number;
  /**
   * The colour grade as the page's grade pass computes it (`fastGrade`): each channel through its
   * curve, then the saturation mix (1: none), then the overlay (RGBA 0..1); null when not graded.
   */
  grade: { curves: [number[], number[], number[]]; saturation: number; overlay: [number, number, number, number] | null } | null;
}

export interface CompositePlan {
  clips: CompositeClip[];
  /** Drawn by the browser below the clips: the background and these elements. */
  below: { hidden: NonNullable<CompositionProps['hidden']>; frames: DrawnFrames };
  /**
   * Drawn above the clips on a transparent page; null when nothing is there. `blended`: when fewer
   * pictures need drawing that way, the corners to draw and how each output frame mixes them
   * (fades of whole elements; `blendedFrames`), else null and each of `frames` is drawn.
   */
  above: { hidden: NonNullable<CompositionProps['hidden']>; frames: DrawnFrames; blended: BlendedFrames | null } | null;
}

/** null: no video clip on screen, nothing to composite; else the plan or why the browser must draw it. */
export type CompositeChoice = { ok: true; plan: CompositePlan } | { ok: false; reason: string } | null;

/** Colour fields the page grades with per-channel curves, a saturation mix and an overlay, which ffmpeg draws the same way. */
const GRADE_FIELDS = ['brightness', 'contrast', 'saturation', 'exposure', 'temperature', 'tint', 'color_overlay'] as const satisfies readonly (keyof VideoElement)[];

/** Fields of a video element that change its pixels in ways the ffmpeg path does not reproduce. */
const LOOK_FIELDS = [
  // colour grading beyond GRADE_FIELDS: a 3D table, or depending on the pixel's place or neighbours
  'lut_url', 'sharpness', 'blur', 'noise', 'vignette', 'hue_rotate', 'vibrance', 'highlights', 'shadows',
  // frame
  'crop_top', 'crop_bottom', 'crop_left', 'crop_right', 'border_radius', 'border_color', 'border_width',
  'shadow_color', 'shadow_blur', 'shadow_x', 'shadow_y', 'backdrop_blur',
  // compositing and behaviour
  'mask_shape', 'mask', 'mask_keyframes', 'matte', 'clip', 'effects', 'motion', 'playback_rate_keyframes',
] as const satisfies readonly (keyof VideoElement)[];

/** A box edge closer than this to a whole pixel counts as on it. */
const WHOLE_PIXEL = 1e-6;

export function mediaCompositePlan(
  props: Pick<CompositionProps, 'request' | 'media'>,
  resolved: ResolvedRequest,
  output: { plan: OutputPlan; scale?: number; frameRange?: [number, number] },
): CompositeChoice {
  const { request } = props;
  const visual = resolved.elements.filter((element) => element.type !== 'audio');
  const videoPositions = visual.flatMap((element, position) => (element.type === 'video' ? [position] : []));
  if (videoPositions.length === 0) return null;
  const no = (reason: string) => ({ ok: false as const, reason });

  const { plan } = output;
  if (plan.kind !== 'video' || plan.codec !== 'h264') return no('the output is not H.264');
  if (plan.audioCodec !== 'aac' && plan.audioCodec !== null) return no('the sound is not AAC');
  if (resolved.alpha) return no('the output is transparent');
  if (output.frameRange || (output.scale ?? 1) !== 1) return no('a part of the timeline or a scaled output (preview)');
  if (resolved.width % 2 !== 0 || resolved.height % 2 !== 0) return no('odd canvas size (the browser path evens it)');
  if (request.motion_blur) return no('motion blur draws several instants per frame');
  if (resolved.transitions.length > 0 || visual.some((element) => element.animation?.transitions.length)) {
    return no('transitions change the paint order while they run');
  }
  // The clips must be neighbours in paint order: what lies between two clips would need a pass of its own.
  const first = videoPositions[0];
  const last = videoPositions[videoPositions.length - 1];
  if (last - first + 1 !== videoPositions.length) return no('another element lies between two video clips in paint order');

  const matteSources = matteSourceIds(request);
  const clips: CompositeClip[] = [];
  for (const position of videoPositions) {
    const element = visual[position] as ResolvedVideo;
    const raw = request.elements?.[element.index] as VideoElement | undefined;
    const which = `video element ${element.index}`;
    if (!raw || raw.type !== 'video') return no(`${which} is not in the request`);
    if (element.id !== null && matteSources.has(element.id)) return no(`${which} is another element's matte`);
    const field = LOOK_FIELDS.find((name) => raw[name] !== undefined && raw[name] !== false);
    if (field) return no(`${which} sets ${field}`);
    if (raw.blend_mode !== undefined && raw.blend_mode !== 'normal') return no(`${which} has a blend mode`);
    if (element.rateKeyframes) return no(`${which} has a speed ramp`);
    if (element.animation?.groups || element.animation?.motions.length) return no(`${which} moves (motions or groups)`);
    const box = element.box;
    if (box.xRotation !== 0 || box.yRotation !== 0 || box.zRotation !== 0) return no(`${which} is rotated`);
    if (box.scaleX <= 0 || box.scaleY <= 0) return no(`${which} is flipped`);
    const info = props.media[element.src];
    if (info?.has_video === false) return no(`${which} has no picture`);
    if (!info?.width || !info.height) return no(`${which}: the source size is unknown`);
    // ElementBox: the anchor at (x, y), the box scaled around it.
    const left = box.x - box.scaleX * anchorPixels(box.xAnchor, box.width);
    const top = box.y - box.scaleY * anchorPixels(box.yAnchor, box.height);
    const width = box.width * box.scaleX;
    const height = box.height * box.scaleY;
    if (![left, top, width, height].every((value) => Math.abs(value - Math.round(value)) < WHOLE_PIXEL)) return no(`${which}: the box is not on whole pixels`);
    if (Math.round(width) < 1 || Math.round(height) < 1) return no(`${which} has an empty box`);
    if (element.fadeInFrames + element.fadeOutFrames > element.durationInFrames) return no(`${which}: its fades overlap`);
    // The page lays the source out in the unscaled box, the element's scale stretches both.
    const laid = coverPlacement({ width: box.width, height: box.height }, { width: info.width, height: info.height });
    const placement = { x: laid.x * box.scaleX, y: laid.y * box.scaleY, width: laid.width * box.scaleX, height: laid.height * box.scaleY };
    const sampling = sourceSampling({ width: Math.round(width), height: Math.round(height) }, { width: info.width, height: info.height }, placement);
    if (typeof sampling === 'string') return no(`${which} ${sampling}`);
    const settings = GRADE_FIELDS.some((name) => raw[name] !== undefined) ? gradeSettings(raw) : null;
    const fast = settings && !isNeutral(settings) ? fastGrade(settings, null) : null;
    clips.push({
      index: element.index,
      src: element.src,
      left: Math.round(left),
      top: Math.round(top),
      width: Math.round(width),
      height: Math.round(height),
      source: { width: info.width, height: info.height },
      placement,
      reduction: sampling.reduction,
      sourceCrop: sampling.crop,
      from: element.from,
      durationInFrames: element.durationInFrames,
      startSeconds: (element.trimBefore ?? 0) / resolved.fps,
      playbackRate: element.playbackRate,
      opacity: box.opacity,
      fadeInFrames: element.fadeInFrames,
      fadeOutFrames: element.fadeOutFrames,
      grade: fast ? { curves: [Array.from(fast.curves[0]), Array.from(fast.curves[1]), Array.from(fast.curves[2])], saturation: fast.saturation, overlay: fast.overlay } : null,
    });
  }

  const belowElements = visual.slice(0, first);
  const aboveElements = visual.slice(last + 1);
  for (const element of aboveElements) {
    const raw = request.elements?.[element.index];
    if (!raw || raw.type === 'audio') continue;
    const which = `${element.type} element ${element.index} above a video clip`;
    if (raw.blend_mode !== undefined && raw.blend_mode !== 'normal') return no(`${which} has a blend mode`);
    if ('backdrop_blur' in raw && (raw.backdrop_blur ?? 0) > 0) return no(`${which} has a backdrop blur`);
    if (raw.matte) return no(`${which} has a matte`);
  }
  for (const element of visual) {
    const raw = request.elements?.[element.index];
    const why = raw?.type === 'text' ? browserOnlyText(raw) : null;
    if (why) return no(`text element ${element.index} ${why}`);
  }
  const indexes = (elements: typeof visual) => elements.map((element) => element.index);
  const videoIndexes = clips.map((clip) => clip.index);
  const below = {
    hidden: { elements: [...videoIndexes, ...indexes(aboveElements)], watermark: true },
    frames: drawnFrames(request, { ...resolved, elements: belowElements }),
  };
  const hasAbove = aboveElements.length > 0 || resolved.watermarkUrl !== null;
  const aboveResolved = { ...resolved, elements: aboveElements };
  const aboveFrames = hasAbove ? drawnFrames(request, aboveResolved) : null;
  const aboveBlended = aboveFrames ? blendedFrames(request, aboveResolved) : null;
  const above = aboveFrames
    ? {
        hidden: { elements: [...indexes(belowElements), ...videoIndexes], background: true },
        frames: aboveFrames,
        blended: aboveBlended && aboveBlended.blended > 0 && aboveBlended.frames.length < aboveFrames.frames.length ? aboveBlended : null,
      }
    : null;
  return { ok: true, plan: { clips, below, above } };
}

/** Characters the shipped families draw themselves: Latin, Greek, Cyrillic, punctuation, currency, letterlike symbols. */
const BEYOND_SHIPPED_SCRIPTS = /[^\t\n\r\u0020-\u052f\u1e00-\u1fff\u2000-\u20cf\u2100-\u218f]/u;

/**
 * Why a text element is left to the single browser pass (null: the layer passes may draw it):
 * text fitted to its box, and text drawn with faces other than the shipped families (script
 * fallbacks, catalogue and custom fonts), whose loading the per-frame layer passes do not wait on.
 */
export function browserOnlyText(element: TextElement): string | null {
  if ((element as { font_size?: unknown }).font_size === 'auto') return 'fits its font size to its box';
  if (element.font_family !== undefined && !(FONT_FAMILIES as readonly string[]).includes(element.font_family)) return `uses the font ${element.font_family}`;
  if (BEYOND_SHIPPED_SCRIPTS.test(element.text ?? '')) return 'has characters drawn by fallback fonts (scripts beyond Latin, Greek, Cyrillic, or emoji)';
  return null;
}

/** How a clip's source becomes its box (sourceSampling). */
export type SourceReduction = 'none' | 'halve' | 'pick' | 'bilinear';

/** How far from a whole factor's sample point a page's sample may lie for the crop-and-reduce paths, in source pixels (≤ 4/255 at a full-contrast edge). */
const SAMPLE_SLACK = 1 / 64;

/** A LayoutUnit: Blink lays boxes out in 1/64 of a pixel. */
const LAYOUT_UNIT = 64;

/**
 * Where the page draws a source of `source` pixels with `object-fit: cover` (centred) in a box,
 * relative to the box's top-left corner. Blink lays it out in LayoutUnits (1/64 px): the box's size
 * grown to the source's shape (`PhysicalSize::FitToAspectRatio`, `MulDiv` truncating), offset by
 * half the free space (`object-position: 50%`, truncated toward zero); the clip's canvas is a
 * composited layer, placed on that rectangle snapped to whole pixels (each edge rounded, half up).
 * Measured with stills of a detailed clip against each box pixel computed from the source: the
 * snapped rectangle left 0.15–0.8 % of pixels over 8/255, the unsnapped one 1.5–3.5 %.
 */
export function coverPlacement(box: { width: number; height: number }, source: { width: number; height: number }): { x: number; y: number; width: number; height: number } {
  const [boxWidth, boxHeight] = [Math.round(box.width * LAYOUT_UNIT), Math.round(box.height * LAYOUT_UNIT)];
  const constrainedHeight = Math.trunc((boxWidth * source.height) / source.width);
  const [width, height] = constrainedHeight < boxHeight ? [Math.trunc((boxHeight * source.width) / source.height), boxHeight] : [boxWidth, constrainedHeight];
  const [x, y] = [Math.trunc((boxWidth - width) / 2), Math.trunc((boxHeight - height) / 2)];
  // LayoutUnit::Round: half up, in whole pixels.
  const snap = (raw: number) => Math.floor((raw + LAYOUT_UNIT / 2) / LAYOUT_UNIT);
  return { x: snap(x), y: snap(y), width: snap(x + width) - snap(x), height: snap(y + height) - snap(y) };
}

/**
 * How ffmpeg reduces a clip's source onto its box as the page does, or why it cannot. The page
 * samples the source bilinearly at each box pixel's centre, box pixel i at source x = (i + ½ − x)·W/w
 * − ½ for the placement (x, w) of the source's W pixels (and the same down), with no wider average
 * (measured: docs/decisions/0029-clip-pixels.md). Where those samples fall on whole pixels or
 * halfway between two, swscale draws them from a crop: `none` (1:1), `halve` (1:2, a 2x2 average),
 * `pick` (an odd whole reduction 1:n, n ≥ 3: the middle pixel of each n x n block); at any other
 * reduction, `bilinear`: ffmpeg's perspective filter samples bilinearly where it is told, from the
 * rows and columns the samples fall between. An enlargement is left to the page.
 */
export function sourceSampling(
  box: { width: number; height: number },
  source: { width: number; height: number },
  placement: { x: number; y: number; width: number; height: number },
): { reduction: SourceReduction; crop: { x: number; y: number; width: number; height: number } } | string {
  const [factorX, factorY] = [source.width / placement.width, source.height / placement.height];
  // A whole factor n where every sample lies within SAMPLE_SLACK of n·i + (n − 1)/2 of a whole crop
  // (Blink's 1/64 layout can leave the factor a hair off n).
  const whole = Math.round(factorX);
  const crop = { x: Math.round(-placement.x * whole) + 0, y: Math.round(-placement.y * whole) + 0, width: box.width * whole, height: box.height * whole };
  const onGrid = (offset: number, factor: number, length: number, start: number) =>
    [0, length - 1].every((i) => Math.abs((i + 0.5 - offset) * factor - 0.5 - (start + whole * i + (whole - 1) / 2)) <= SAMPLE_SLACK);
  if (whole >= 1 && onGrid(placement.x, factorX, box.width, crop.x) && onGrid(placement.y, factorY, box.height, crop.y)) {
    if (whole === 1) return { reduction: 'none', crop };
    if (whole === 2) return { reduction: 'halve', crop };
    if (whole % 2 === 1) return { reduction: 'pick', crop };
  }
  if (factorX <= 1 || factorY <= 1) return `is scaled by ${(1 / Math.min(factorX, factorY)).toFixed(3)} (enlargements are drawn by the browser)`;
  // The samples' extent, and the pixel past each end that bilinear sampling reads.
  const span = (offset: number, factor: number, length: number, size: number) => {
    const first = Math.max(0, Math.floor((0.5 - offset) * factor - 0.5));
    const end = Math.min(size, Math.floor((length - 0.5 - offset) * factor - 0.5) + 2);
    // The filter's frame holds the box: at least its length (a reduction reads more pixels than it draws).
    const start = Math.max(0, Math.min(first, end - length));
    return { start, length: Math.max(end, start + length) - start };
  };
  const columns = span(placement.x, factorX, box.width, source.width);
  const rows = span(placement.y, factorY, box.height, source.height);
  return { reduction: 'bilinear', crop: { x: columns.start, y: rows.start, width: columns.length, height: rows.length } };
}

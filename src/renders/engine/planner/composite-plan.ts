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
  /**
   * The part of the source that covers the box (`objectFit: cover`: scaled to cover it, centred),
   * in whole source pixels; ffmpeg crops it, then scales it to the box.
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
    const cover = Math.max(width / info.width, height / info.height);
    const cropWidth = Math.min(info.width, Math.max(1, Math.round(width / cover)));
    const cropHeight = Math.min(info.height, Math.max(1, Math.round(height / cover)));
    // The page samples the source bilinearly at each box pixel's centre, without averaging more
    // (measured: docs/decisions.md). ffmpeg draws that exactly where the sample points fall on
    // whole pixels or halfway between two: 1:1, 1:2 (swscale's area average of 2x2) and odd whole
    // reductions (1:3, 1:5, …: the middle pixel of each n x n block, swscale's nearest neighbour);
    // and at any other reduction of the whole source into a box of exactly its shape, with
    // ffmpeg's perspective filter, which samples bilinearly where it is told.
    const reduction = sourceReduction(
      { width: cropWidth, height: cropHeight },
      { width: Math.round(width), height: Math.round(height) },
      { width: info.width, height: info.height },
    );
    if (reduction === null) {
      return no(`${which} is scaled by ${(width / cropWidth).toFixed(3)} (drawn as the browser draws them: 1:1, 1:2, odd whole reductions, and any reduction of a whole source into a box of its shape)`);
    }
    // Picked pixels are the page's samples only where the centred crop starts on a whole pixel.
    if (reduction === 'pick' && ((info.width - cropWidth) % 2 !== 0 || (info.height - cropHeight) % 2 !== 0)) {
      return no(`${which}: its crop is centred between source pixels at 1:${cropWidth / Math.round(width)}`);
    }
    const settings = GRADE_FIELDS.some((name) => raw[name] !== undefined) ? gradeSettings(raw) : null;
    const fast = settings && !isNeutral(settings) ? fastGrade(settings, null) : null;
    clips.push({
      index: element.index,
      src: element.src,
      left: Math.round(left),
      top: Math.round(top),
      width: Math.round(width),
      height: Math.round(height),
      sourceCrop: { x: Math.round((info.width - cropWidth) / 2), y: Math.round((info.height - cropHeight) / 2), width: cropWidth, height: cropHeight },
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

/** How a clip's crop becomes its box (sourceReduction). */
export type SourceReduction = 'none' | 'halve' | 'pick' | 'bilinear';

/**
 * How ffmpeg reduces a clip's crop to its box as the page does, or null where it cannot: `none`
 * (1:1), `halve` (1:2, a 2x2 average), `pick` (an odd whole reduction 1:n, n ≥ 3: the middle
 * pixel of each n x n block, where the page's bilinear sample at the box pixel's centre falls),
 * or `bilinear`: the crop is the whole `source`, the box has its shape exactly and is smaller,
 * so each box pixel's sample lies inside the source at ((i + ½)·W/w − ½, (j + ½)·H/h − ½)
 * (measured: docs/decisions.md).
 */
export function sourceReduction(
  crop: { width: number; height: number },
  box: { width: number; height: number },
  source?: { width: number; height: number },
): SourceReduction | null {
  const factor = crop.width / box.width;
  if (Number.isInteger(factor) && crop.height === factor * box.height) {
    if (factor === 1) return 'none';
    if (factor === 2) return 'halve';
    if (factor % 2 === 1) return 'pick';
  }
  const whole = source !== undefined && crop.width === source.width && crop.height === source.height;
  const sameShape = box.width * crop.height === box.height * crop.width;
  return whole && sameShape && box.width < crop.width ? 'bilinear' : null;
}

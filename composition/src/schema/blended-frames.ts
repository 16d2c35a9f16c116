import { matteSourceIds } from '../look/matte-sources';
import { elementMotionStyle } from '../motion/element-style';
import { overlayOpacity, transitionProgress } from '../motion/transitions';
import { varyingOpacity } from '../motion/varying-opacity';
import { changesThroughout, textAnimationWindow } from './drawn-frames';
import type { FixedOpacity } from './index';
import type { RenderRequest } from './request';
import type { ResolvedRequest } from './resolve';

/**
 * Which frames of a render the browser draws, which it holds and which the worker computes from
 * drawn ones. A frame that differs from its neighbours only by the opacity factor φ of whole
 * elements (fades, cross-dissolves, opacity-only motions) is blended: the page composites each
 * element as a group, `out = φ·E + (1 − φ)·under`, which is affine in φ, so a picture with k
 * varying factors (everything else still) is the multilinear mix of the 2^k "corner" pictures
 * drawn with each factor forced to 0 or 1 (CompositionProps.fixedOpacity):
 * frame = Σ_c Π_i (c_i ? φ_i : 1 − φ_i) · corner(c), exact up to the page's 8-bit rounding.
 *
 * Each frame is evaluated with the functions the layers draw with (elementMotionStyle,
 * varyingOpacity, overlayOpacity); whatever may change otherwise (drawnFrames' still-element
 * rule: video, effects, a text animation while it plays, …) makes its frames drawn, as does an element that reads
 * the layers below it (a blend mode, a backdrop blur), whose picture is not affine in theirs.
 */
export interface BlendedFrames {
  durationInFrames: number;
  /** Frames the browser draws, ascending (corners included, drawn with `fixedOpacity`). */
  frames: number[];
  fixedOpacity: FixedOpacity[];
  /** The output in order: runs of `hold` equal frames. */
  runs: BlendedRun[];
  /** Output frames mixed from two or more drawn frames. */
  blended: number;
}

export interface BlendedRun {
  /** Positions in `frames` and their weights (summing to 1); one term: that drawn frame as is. */
  mix: { drawn: number; weight: number }[];
  hold: number;
}

/** At most this many factors vary together in a blended stretch (2^k corners each). */
export const MAX_BLENDED_FACTORS = 3;

/** Weights below this are left out of a mix (they cannot move an 8-bit value). */
const NEGLIGIBLE_WEIGHT = 1e-6;

interface FrameState {
  /** Something on screen changes in ways other than opacity factors: the frame is drawn. */
  drawn: boolean;
  /** Everything on screen but the opacity factors (elements, their placement, overlays). */
  scene: string;
  /** Element index → its varying opacity factor. */
  factors: Map<number, number>;
  /**
   * What is on screen, layer by layer: each element's placement (with its index and z-index) and
   * each visible transition overlay (element null).
   */
  layers: { element: number | null; line: string; zIndex: number | null }[];
  /** An element on screen reads the pixels below it. */
  readsBelow: boolean;
}

export function blendedFrames(request: RenderRequest, resolved: ResolvedRequest): BlendedFrames {
  const total = resolved.durationInFrames;
  const matteSources = matteSourceIds(request);
  const states = Array.from({ length: total }, (_, frame) => frameState(request, resolved, matteSources, frame));
  const frames: number[] = [];
  const fixedOpacity: FixedOpacity[] = [];
  const runs: BlendedRun[] = [];
  let blended = 0;
  const draw = (frame: number, hold: number) => {
    frames.push(frame);
    runs.push({ mix: [{ drawn: frames.length - 1, weight: 1 }], hold });
  };
  let start = 0;
  while (start < total) {
    if (states[start].drawn) {
      draw(start, 1);
      start++;
      continue;
    }
    // A stretch: consecutive frames showing the same scene, only factors may change.
    let end = start + 1;
    while (end < total && !states[end].drawn && states[end].scene === states[start].scene) end++;
    const pictures = distinctPictures(states, start, end);
    const varying = [...states[start].factors.keys()].filter((element) => pictures.some((picture) => states[picture.frame].factors.get(element) !== states[start].factors.get(element)));
    const corners = 2 ** varying.length;
    if (varying.length === 0 || varying.length > MAX_BLENDED_FACTORS || corners >= pictures.length || states[start].readsBelow) {
      for (const picture of pictures) draw(picture.frame, picture.hold);
    } else {
      // Corner c is drawn at frame start + c (the stretch is longer than 2^k frames), bit i of c
      // forcing the factor of varying[i].
      const first = frames.length;
      for (let corner = 0; corner < corners; corner++) {
        frames.push(start + corner);
        varying.forEach((element, bit) => fixedOpacity.push({ frame: start + corner, element, factor: (corner >> bit) & 1 ? 1 : 0 }));
      }
      for (const picture of pictures) {
        const factors = varying.map((element) => states[picture.frame].factors.get(element)!);
        const mix: BlendedRun['mix'] = [];
        for (let corner = 0; corner < corners; corner++) {
          const weight = factors.reduce((product, factor, bit) => product * ((corner >> bit) & 1 ? factor : 1 - factor), 1);
          if (weight > NEGLIGIBLE_WEIGHT) mix.push({ drawn: first + corner, weight });
        }
        const sum = mix.reduce((total, term) => total + term.weight, 0);
        for (const term of mix) term.weight /= sum;
        runs.push({ mix, hold: picture.hold });
        if (mix.length > 1) blended += picture.hold;
      }
    }
    start = end;
  }
  return drawEachPictureOnce(states, { durationInFrames: total, frames, fixedOpacity, runs, blended });
}

/**
 * The plan with each picture drawn once: two drawn frames showing the same elements (factor > 0)
 * with the same scene lines and factors, and the same overlays, are the same picture — an
 * element at factor 0 draws nothing, so the corner of a fade with the title at 0 is the picture
 * before the title came. Runs then mix (or show) the first of them.
 */
function drawEachPictureOnce(states: FrameState[], plan: BlendedFrames): BlendedFrames {
  const forced = new Map<number, Map<number, number>>();
  for (const { frame, element, factor } of plan.fixedOpacity) forced.set(frame, (forced.get(frame) ?? new Map<number, number>()).set(element, factor));
  const firstOf = new Map<string, number>();
  const kept: number[] = [];
  const positionOf = plan.frames.map((frame) => {
    const key = pictureKey(states[frame], forced.get(frame));
    const earlier = key === null ? undefined : firstOf.get(key);
    if (earlier !== undefined) return earlier;
    kept.push(frame);
    if (key !== null) firstOf.set(key, kept.length - 1);
    return kept.length - 1;
  });
  if (kept.length === plan.frames.length) return plan;
  const keptFrames = new Set(kept);
  const runs = plan.runs.map((run) => {
    const mix: BlendedRun['mix'] = [];
    for (const term of run.mix) {
      const drawn = positionOf[term.drawn];
      const same = mix.find((other) => other.drawn === drawn);
      if (same) same.weight += term.weight;
      else mix.push({ drawn, weight: term.weight });
    }
    return { mix, hold: run.hold };
  });
  return { ...plan, frames: kept, fixedOpacity: plan.fixedOpacity.filter((entry) => keptFrames.has(entry.frame)), runs };
}

/**
 * What a drawn frame shows (null: a frame drawn for its own sake, compared with nothing): the
 * visible elements' placements and factors in paint order (z-index, then document order: the
 * numbers themselves shift when a transition pairs two elements), then the visible overlays.
 */
function pictureKey(state: FrameState, forced: Map<number, number> | undefined): string | null {
  if (state.drawn) return null;
  const visible = state.layers
    .map((layer, order) => ({ ...layer, order, factor: layer.element === null ? 1 : (forced?.get(layer.element) ?? state.factors.get(layer.element) ?? 1) }))
    .filter((layer) => layer.factor > 0);
  const elements = visible.filter((layer) => layer.element !== null);
  // Without a z-index, an element paints in document order with the others: no reordering then.
  const ordered = elements.some((layer) => layer.zIndex === null) ? elements : [...elements].sort((a, b) => a.zIndex! - b.zIndex! || a.order - b.order);
  return [
    ...ordered.map((layer) => `${layer.line}|${layer.zIndex === null ? 'auto' : 'z'}|${layer.factor}`),
    ...visible.filter((layer) => layer.element === null).map((layer) => layer.line),
  ].join('\n');
}

/** Runs of equal factors within [start, end): their first frame and length. */
function distinctPictures(states: FrameState[], start: number, end: number): { frame: number; hold: number }[] {
  const pictures: { frame: number; hold: number }[] = [];
  for (let frame = start; frame < end; frame++) {
    if (frame > start && sameFactors(states[frame].factors, states[frame - 1].factors)) pictures[pictures.length - 1].hold++;
    else pictures.push({ frame, hold: 1 });
  }
  return pictures;
}

function sameFactors(a: Map<number, number>, b: Map<number, number>): boolean {
  for (const [element, factor] of a) if (b.get(element) !== factor) return false;
  return a.size === b.size;
}

function frameState(request: RenderRequest, resolved: ResolvedRequest, matteSources: Set<string>, frame: number): FrameState {
  const { fps, width, height } = resolved;
  const factors = new Map<number, number>();
  const scene: string[] = [];
  let readsBelow = false;
  const layers: FrameState['layers'] = [];
  if (request.motion_blur) return { drawn: true, scene: '', factors, layers, readsBelow };
  for (const element of resolved.elements) {
    if (element.type === 'audio' || (element.id !== null && matteSources.has(element.id))) continue;
    const local = frame - element.from;
    if (local < 0 || local >= element.durationInFrames) continue;
    if (changesThroughout(element, request)) return { drawn: true, scene: '', factors, layers, readsBelow };
    // A text animation is drawn while it plays (drawnFrames' window); before and after it the parts stand still.
    const text = textAnimationWindow(element);
    if (text && local >= Math.floor(text.start * fps) - 1 && local <= Math.ceil(text.end * fps) + 1) return { drawn: true, scene: '', factors, layers, readsBelow };
    const style = elementMotionStyle(element, element.box, local, fps, { width, height }, null);
    const textPhase = text ? (local < text.start * fps ? 'before' : 'after') : '';
    const placement = `${element.index}|${style.groups}|${style.translate}|${style.rotateScale}|${style.clipPath ?? ''}|${textPhase}`;
    scene.push(`${placement}|${style.zIndex ?? ''}`);
    layers.push({ element: element.index, line: placement, zIndex: style.zIndex ?? null });
    factors.set(element.index, varyingOpacity(local, element, style));
    const source = request.elements?.[element.index];
    if (source && source.type !== 'audio' && ((source.blend_mode !== undefined && source.blend_mode !== 'normal') || ('backdrop_blur' in source && (source.backdrop_blur ?? 0) > 0))) readsBelow = true;
  }
  const seconds = frame / fps;
  for (const transition of resolved.transitions) {
    if (seconds < transition.window.start || seconds > transition.window.end) continue;
    const opacity = overlayOpacity(transition.type, transitionProgress(transition.window, seconds));
    const line = `overlay ${transition.index} ${opacity}`;
    scene.push(line);
    // An overlay at opacity 0 (every transition's but a dip's) draws nothing.
    if (opacity > 0) layers.push({ element: null, line, zIndex: null });
  }
  return { drawn: false, scene: scene.join('\n'), factors, layers, readsBelow };
}

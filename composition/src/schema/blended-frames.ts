import { matteSourceIds } from '../look/matte-sources';
import { elementMotionStyle } from '../motion/element-style';
import { overlayOpacity, transitionProgress } from '../motion/transitions';
import { varyingOpacity } from '../motion/varying-opacity';
import { changesThroughout } from './drawn-frames';
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
 * rule: video, effects, text animations, …) makes its frames drawn, as does an element that reads
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
  return { durationInFrames: total, frames, fixedOpacity, runs, blended };
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
  if (request.motion_blur) return { drawn: true, scene: '', factors, readsBelow };
  for (const element of resolved.elements) {
    if (element.type === 'audio' || (element.id !== null && matteSources.has(element.id))) continue;
    const local = frame - element.from;
    if (local < 0 || local >= element.durationInFrames) continue;
    if (changesThroughout(element, request)) return { drawn: true, scene: '', factors, readsBelow };
    const style = elementMotionStyle(element, element.box, local, fps, { width, height }, null);
    scene.push(`${element.index}|${style.groups}|${style.translate}|${style.rotateScale}|${style.clipPath ?? ''}|${style.zIndex ?? ''}`);
    factors.set(element.index, varyingOpacity(local, element, style));
    const source = request.elements?.[element.index];
    if (source && source.type !== 'audio' && ((source.blend_mode !== undefined && source.blend_mode !== 'normal') || ('backdrop_blur' in source && (source.backdrop_blur ?? 0) > 0))) readsBelow = true;
  }
  const seconds = frame / fps;
  for (const transition of resolved.transitions) {
    if (seconds < transition.window.start || seconds > transition.window.end) continue;
    scene.push(`overlay ${transition.index} ${overlayOpacity(transition.type, transitionProgress(transition.window, seconds))}`);
  }
  return { drawn: false, scene: scene.join('\n'), factors, readsBelow };
}

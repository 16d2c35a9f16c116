import type { BlendedFrames, DrawnFrames } from '../../../../composition/src/schema';
import type { RENDER_STRATEGIES } from '../../../config/app-config';
import type { CompositePlan } from './composite-plan';
import type { OutputPlan } from '../output-formats';
import type { GifSettings, ProResSettings, Vp9Settings } from '../encode/stitch-settings';

/** The ways of producing a render's pictures, one module each under strategies/ (RENDER_STRATEGY names them). */
export type StrategyName = (typeof RENDER_STRATEGIES)[number];

/** What the browser draws and at which frames, and what ffmpeg composites: one variant per strategy. */
export type PicturesPlan =
  /** One frame as the delivered image: on the warm tab, or Remotion's renderStill (the tab busy, or RENDER_WARM_STILLS off). */
  | { strategy: 'still'; frame: number; via: 'warm_page' | 'render_still'; scale: number }
  /** Remotion's renderMedia: every frame of `frames` drawn and encoded by it. */
  | { strategy: 'browser'; frames: [number, number]; tabs: number; scale: number }
  /** Each distinct frame drawn once (`drawnFrames`), ffmpeg holds it. */
  | { strategy: 'held_frames'; drawn: DrawnFrames; tabs: number }
  /** Corner frames drawn with fixed opacities, fading frames mixed from them (`blendedFrames`). */
  | { strategy: 'blended_frames'; blended: BlendedFrames; tabs: number }
  /** ffmpeg decodes and composites the clips (`clipFiles`, in plan order), the browser draws the layers around them. */
  | { strategy: 'media_composite'; composite: CompositePlan; clipFiles: string[] };

/**
 * How the sound is made. `ffmpeg`: the worker mixes the timeline (timeline-sound.ts) and muxes it
 * as AAC. `page_while_drawing`: Remotion collects it while renderMedia draws (browser strategy),
 * ffmpeg muxes it as AAC. `page_audio_pass`: Remotion's audio-only render, after the pictures.
 * `encoder`: Remotion muxes what it collects into a non-AAC output (Opus, PCM). `none`: no sound
 * track (nothing audible, a silent format, or a chunk: its parent makes the sound once).
 */
export type SoundPlan =
  | { via: 'none' }
  | { via: 'ffmpeg' }
  | { via: 'page_while_drawing' | 'page_audio_pass'; reason?: string }
  | { via: 'encoder' };

/** The encoder and the capture that feeds it. */
export interface EncoderPlan {
  codec: string;
  pixelFormat?: string;
  /** What the page captures: JPEG (opaque) or PNG (alpha, gif, stills). */
  capture: 'jpeg' | 'png';
  jpegQuality?: number;
  /**
   * How a drawn sequence is captured (browser and held strategies): `begin_frame`, Chromium's
   * BeginFrame control in our own frame loop (browser/begin-frame-capture.ts, one tab, the
   * pictures piped into the encoder), or `screenshot`, Remotion's renderMedia/renderFrames.
   */
  frameCapture?: 'begin_frame' | 'screenshot';
  /** H.264 outputs: x264's settings, on every strategy. */
  x264?: { preset: string; crf: number };
  /** Held and blended strategies: repeats and decoder-mixed fades as skip pictures (codec/h264-holds.ts). */
  skipPictures?: boolean;
  /** VP9 outputs: libvpx's speed settings (encode/stitch-settings.ts). */
  vp9?: Vp9Settings;
  /** ProRes outputs: prores_ks's fixed quantiser. */
  prores?: ProResSettings;
  /** GIF outputs: how the palette is made and applied. */
  gif?: GifSettings;
  audioCodec: string | null;
}

/** A strategy the planner weighed: its estimated seconds, or why it cannot draw this request exactly. */
export interface Candidate {
  strategy: StrategyName;
  seconds?: number;
  reason?: string;
}

/**
 * Everything decided about one render before its first frame: the only place a path is chosen
 * (planRender). The executor and the chunked render carry it out; the job's diagnostics store it.
 */
export interface RenderPlan {
  output: OutputPlan;
  /** Output frames of the timeline this render makes (a chunk or a clip preview: a part). */
  frames: { total: number; first: number; last: number };
  pictures: PicturesPlan;
  sound: SoundPlan;
  encoder: EncoderPlan;
  /**
   * The chunk grid (browser strategy, whole H.264 timelines longer than one cell): frame ranges each
   * encoded by a fresh encoder, joined without re-encoding; null: one encoder for the whole.
   */
  segments: [number, number][] | null;
  /** Worker processes live when it was planned (a render on the grid splits only with more than one, unless RENDER_CHUNK_FRAMES says). */
  workers: number;
  /** The grid's ranges drawn as separate `render-chunk` jobs any worker can take; null: drawn here (segment by segment when `segments`). */
  chunks: [number, number][] | null;
  /** Every strategy weighed: its estimate, or why it cannot draw the request exactly. */
  candidates: Candidate[];
  /** The chosen strategy's estimate (COST_MODEL, scaled to the canvas). */
  estimatedSeconds: number;
}

/** The composite's reason when the render shows no video clip. */
export const NO_CLIP = 'no video clip';

/** How the render was carried out: the summary older readers of jobs.diagnostics read, derived from the plan. */
export type RenderPath = 'browser' | 'held_frames' | 'still' | 'chunks' | 'media_composite';

/** The frames the browser draws for a plan (both layers of a composite; each chunk's). */
export function framesDrawn(pictures: PicturesPlan): number {
  switch (pictures.strategy) {
    case 'still':
      return 1;
    case 'browser':
      return pictures.frames[1] - pictures.frames[0] + 1;
    case 'held_frames':
      return pictures.drawn.frames.length;
    case 'blended_frames':
      return pictures.blended.frames.length;
    case 'media_composite': {
      const { below, above } = pictures.composite;
      return below.frames.frames.length + (above ? (above.blended ?? above.frames).frames.length : 0);
    }
  }
}

/** The flat fields of jobs.diagnostics that follow from the plan alone (render_path, frames, tabs, the composite's reason when not taken). */
export function planSummary(plan: RenderPlan) {
  const { pictures } = plan;
  const path: RenderPath = plan.chunks
    ? 'chunks'
    : pictures.strategy === 'blended_frames'
      ? 'held_frames'
      : pictures.strategy;
  const tabs = 'tabs' in pictures ? { drawing_tabs: pictures.tabs } : {};
  const composite = plan.candidates.find((candidate) => candidate.strategy === 'media_composite');
  // Why a render with video clips did not take the composite (none when it has no clip).
  const fallback = pictures.strategy !== 'media_composite' && composite?.reason && composite.reason !== NO_CLIP ? { media_fallback: composite.reason } : {};
  const blended =
    pictures.strategy === 'blended_frames'
      ? { frames_blended: pictures.blended.blended }
      : pictures.strategy === 'held_frames'
        ? { frames_blended: 0 }
        : pictures.strategy === 'media_composite'
          ? { frames_blended: pictures.composite.above?.blended?.blended ?? 0 }
          : {};
  return {
    render_path: path,
    frames_total: plan.frames.last - plan.frames.first + 1,
    frames_drawn: plan.chunks ? plan.frames.last - plan.frames.first + 1 : framesDrawn(pictures),
    ...(plan.chunks ? {} : tabs),
    ...blended,
    ...fallback,
  };
}

/**
 * The plan as stored on the job (jobs.diagnostics.plan): every decision, frame lists written as
 * ranges ("0-29,45"), the mixes of blended frames and the grade tables left out (they follow from
 * the request).
 */
export function storedPlan(plan: RenderPlan): Record<string, unknown> {
  const { pictures } = plan;
  const picturesStored = (() => {
    switch (pictures.strategy) {
      case 'still':
      case 'browser':
        return pictures;
      case 'held_frames':
        return { strategy: pictures.strategy, tabs: pictures.tabs, drawn: frameRanges(pictures.drawn.frames) };
      case 'blended_frames':
        return { strategy: pictures.strategy, tabs: pictures.tabs, drawn: frameRanges(pictures.blended.frames), mixed: pictures.blended.blended };
      case 'media_composite': {
        const { clips, below, above } = pictures.composite;
        return {
          strategy: pictures.strategy,
          clips: clips.map(({ grade, ...clip }) => ({ ...clip, graded: grade !== null })),
          below: { hidden: below.hidden, drawn: frameRanges(below.frames.frames) },
          above: above
            ? { hidden: above.hidden, drawn: frameRanges((above.blended ?? above.frames).frames), mixed: above.blended?.blended ?? 0 }
            : null,
        };
      }
    }
  })();
  return {
    output: { extension: plan.output.extension, kind: plan.output.kind },
    frames: plan.frames,
    pictures: picturesStored,
    sound: plan.sound,
    encoder: plan.encoder,
    segments: plan.segments,
    workers: plan.workers,
    chunks: plan.chunks,
    candidates: plan.candidates,
    estimated_seconds: plan.estimatedSeconds,
  };
}

/** Ascending frame numbers as ranges: [0, 1, 2, 5] → "0-2,5". */
export function frameRanges(frames: readonly number[]): string {
  const parts: string[] = [];
  for (let index = 0; index < frames.length; ) {
    let end = index;
    while (end + 1 < frames.length && frames[end + 1] === frames[end] + 1) end += 1;
    parts.push(end === index ? String(frames[index]) : `${frames[index]}-${frames[end]}`);
    index = end + 1;
  }
  return parts.join(',');
}

import { planSummary, storedPlan, type RenderPlan } from './planner/render-plan';

/** `ffmpeg`: mixed from the resolved timeline (sound/timeline-sound.ts); `browser`: Remotion's. */
export type SoundPath = 'ffmpeg' | 'browser';

/** What only running a plan tells: stage times, what the encoder was spared, who made the sound, where a still was drawn. */
export interface Measured {
  /** Seconds drawing, mixing the sound and encoding (held and composite strategies; with blending, `encode` is what is left after the last frame). */
  stage_seconds?: { draw: number; audio: number; encode: number };
  /** Held strategies: output frames written as skip pictures, copies x264 never saw (codec/h264-holds.ts). */
  frames_skipped?: number;
  /** Blended strategy: fading frames x264 never saw, written as the decoder's weighted mix. */
  frames_faded?: number;
  /** Who made the sound, and why not ffmpeg when the page did. */
  sound_path?: SoundPath;
  sound_fallback?: string;
  /** Stills: the warm tab, or renderStill when it was busy. */
  still_path?: 'warm_page' | 'render_still';
  /** Chunked renders: each chunk's render seconds in order, and the join and mux after the last. */
  chunks?: number;
  chunk_seconds?: number[];
  join_seconds?: number;
  /** Chunked renders: the worker that drew each chunk, in order. */
  chunk_workers?: (string | null)[];
  /** A whole render on the chunk grid: the segments drawn in turn, each by a fresh encoder. */
  segments?: number;
}

/** A render as carried out: the plan it followed and what was measured. */
export interface RenderReport {
  plan: RenderPlan;
  measured: Measured;
}

/**
 * What jobs.diagnostics records: the plan whole (`plan`), with the flat fields readers of the
 * diagnostics know (render_path, frames_total, frames_drawn, drawing_tabs, media_fallback, …)
 * derived from it, and the measured figures.
 */
export function diagnosticsOf(report: RenderReport): Record<string, unknown> {
  return { ...planSummary(report.plan), ...report.measured, plan: storedPlan(report.plan) };
}

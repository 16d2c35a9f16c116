import type { CompositionProps, ResolvedRequest } from '../../../composition/src/schema';
import type { OutputPlan } from './output-formats';

export type RenderStage = 'compositing' | 'encoding';

/** One call of the engine: what to render, where the file goes, and which part of the timeline. */
export interface RenderArgs {
  props: CompositionProps;
  resolved: ResolvedRequest;
  /** The output format's encoding (planOutput). */
  plan: OutputPlan;
  outputPath: string;
  onProgress: (stage: RenderStage, fraction: number) => void;
  signal: AbortSignal;
  /** Stills only: the frame to capture (default 0). */
  stillFrame?: number;
  /** Output size as a fraction of the canvas (previews); default 1. */
  scale?: number;
  /** Videos only: the first and last frame to draw (a clip preview, a chunk); default all. */
  frameRange?: [number, number];
  /** Videos only: no audio track at all (a chunk: the sound is mixed once for the whole timeline). */
  muted?: boolean;
}

export interface StillsArgs {
  props: CompositionProps;
  resolved: ResolvedRequest;
  frames: number[];
  imageFormat: 'png' | 'jpeg';
  scale: number;
  /** Called once per frame drawn, in any order. */
  onFrame: (frame: number, image: Buffer) => Promise<void>;
  onProgress: (fraction: number) => void;
  signal: AbortSignal;
}

import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Injectable } from '@nestjs/common';
import {
  clipFrameRate,
  CompositionProps,
  MediaInfo,
  planPreview,
  PreviewPlan,
  RenderedPreviewOptions,
  resolveRequest,
  ResolvedRequest,
} from '../../composition/src/schema';
import { runFfmpeg } from '../infra/media/media-runner';
import { probeMedia } from '../infra/media/probe';
import { planOutput } from './engine/output-formats';
import { RemotionRenderer, RenderStage } from './engine/remotion-renderer';
import { RenderFailure } from './render-failure';

/** A drawn file, before upload. */
export interface DrawnFile {
  file: string;
  extension: string;
  contentType: string;
  width: number;
  height: number;
  /** Seconds; 0 for an image. */
  duration: number;
}

export interface PreviewInputs {
  props: CompositionProps;
  media: Record<string, MediaInfo>;
  resolved: ResolvedRequest;
  workDir: string;
  signal: AbortSignal;
  onProgress: (stage: RenderStage, fraction: number) => void;
}

/**
 * Draws a preview job with the engine of full renders and the same composition: a frame is a
 * still at a scaled canvas; a clip is the timeline between start and end, resolved again at the
 * clip's lower frame rate and drawn scaled; a contact sheet is chosen stills set in a grid by
 * ffmpeg, each labelled with its time.
 */
@Injectable()
export class PreviewRendererService {
  constructor(private readonly renderer: RemotionRenderer) {}

  async draw(preview: RenderedPreviewOptions, inputs: PreviewInputs): Promise<DrawnFile> {
    if (preview.mode === 'clip') {
      // Every time in the request is in seconds: the same request at another frame rate is the same timeline.
      const request = { ...inputs.props.request, frame_rate: clipFrameRate(preview, inputs.resolved.fps) };
      const resolved = resolveRequest(request, inputs.media);
      const plan = plannedOrFail(preview, resolved);
      if (plan.mode !== 'clip') throw new Error('a clip plan was expected');
      return this.clip(plan, { ...inputs, props: { ...inputs.props, request }, resolved });
    }
    const plan = plannedOrFail(preview, inputs.resolved);
    if (plan.mode === 'frame') return this.frame(plan, inputs);
    if (plan.mode === 'contact_sheet') return this.contactSheet(plan, inputs);
    throw new Error(`unexpected preview plan ${plan.mode}`);
  }

  private async frame(plan: Extract<PreviewPlan, { mode: 'frame' }>, inputs: PreviewInputs): Promise<DrawnFile> {
    const output = planOutput(plan.format, false);
    const file = path.join(inputs.workDir, `preview.${output.extension}`);
    await this.renderer.render({ ...common(inputs), plan: output, outputPath: file, stillFrame: plan.frame, scale: plan.scale });
    return described(file, output.extension, output.contentType, 0);
  }

  private async clip(plan: Extract<PreviewPlan, { mode: 'clip' }>, inputs: PreviewInputs): Promise<DrawnFile> {
    const output = planOutput('mp4', false);
    const file = path.join(inputs.workDir, `preview.${output.extension}`);
    await this.renderer.render({ ...common(inputs), plan: output, outputPath: file, frameRange: [plan.firstFrame, plan.lastFrame], scale: plan.scale });
    return described(file, output.extension, output.contentType, (plan.lastFrame - plan.firstFrame + 1) / plan.fps);
  }

  private async contactSheet(plan: Extract<PreviewPlan, { mode: 'contact_sheet' }>, inputs: PreviewInputs): Promise<DrawnFile> {
    const output = planOutput(plan.format, false);
    if (output.kind !== 'still') throw new Error('a contact sheet is an image');
    const tileExtension = output.imageFormat === 'png' ? 'png' : 'jpg';
    const tile = (frame: number) => path.join(inputs.workDir, `tile-${frame}.${tileExtension}`);
    await this.renderer.stills({
      props: inputs.props,
      resolved: inputs.resolved,
      frames: plan.frames,
      imageFormat: output.imageFormat,
      scale: plan.scale,
      onFrame: (frame, image) => writeFile(tile(frame), image),
      onProgress: (fraction) => inputs.onProgress('compositing', fraction * 0.9),
      signal: inputs.signal,
    });
    inputs.signal.throwIfAborted();
    const first = await probeMedia(tile(plan.frames[0]));
    if (!first?.width || !first.height) throw new Error('the first contact sheet tile could not be read');
    const file = path.join(inputs.workDir, `preview.${output.extension}`);
    const args = ['-v', 'error', '-y'];
    for (const frame of plan.frames) args.push('-i', tile(frame));
    args.push(
      '-filter_complex',
      contactSheetFilter(plan, first.width, first.height),
      '-map',
      '[sheet]',
      '-frames:v',
      '1',
      ...(output.imageFormat === 'jpeg' ? ['-q:v', '2'] : []),
      file,
    );
    inputs.onProgress('encoding', 0.9);
    await runFfmpeg(args, { signal: inputs.signal, timeoutMs: 5 * 60_000 });
    inputs.onProgress('encoding', 1);
    return described(file, output.extension, output.contentType, 0);
  }
}

/**
 * Each tile labelled with its time (bottom left, white on a dark box, in the DejaVu Sans every
 * install ships), then the tiles laid out row by row; a short last row leaves black cells.
 */
export function contactSheetFilter(plan: { frames: number[]; fps: number; columns: number }, tileWidth: number, tileHeight: number): string {
  const fontSize = Math.max(10, Math.round(tileHeight / 8));
  const pad = Math.max(2, Math.round(fontSize / 4));
  const labelled = plan.frames.map(
    (frame, i) =>
      `[${i}:v]drawtext=font='DejaVu Sans':text='${timeLabel(frame / plan.fps)}':fontsize=${fontSize}:fontcolor=white:box=1:boxcolor=black@0.65:boxborderw=${pad}:x=${pad}:y=h-th-${pad}[t${i}]`,
  );
  if (plan.frames.length === 1) return `${labelled[0].slice(0, -'[t0]'.length)}[sheet]`;
  const layout = plan.frames.map((_, i) => `${(i % plan.columns) * tileWidth}_${Math.floor(i / plan.columns) * tileHeight}`).join('|');
  const inputs = plan.frames.map((_, i) => `[t${i}]`).join('');
  return `${labelled.join(';')};${inputs}xstack=inputs=${plan.frames.length}:layout=${layout}:fill=black[sheet]`;
}

/** "1.50 s": two decimals, enough to tell frames apart up to 100 fps. */
export function timeLabel(seconds: number): string {
  return `${seconds.toFixed(2)} s`;
}

function plannedOrFail(preview: RenderedPreviewOptions, resolved: ResolvedRequest): PreviewPlan {
  const planned = planPreview(preview, resolved);
  // Checked at submit; with the media probed the timeline may have become shorter.
  if ('problems' in planned) throw new RenderFailure('invalid_request', `With its media probed, the preview no longer fits the timeline: ${planned.problems[0].msg}`);
  return planned.plan;
}

function common(inputs: PreviewInputs) {
  return { props: inputs.props, resolved: inputs.resolved, signal: inputs.signal, onProgress: inputs.onProgress };
}

async function described(file: string, extension: string, contentType: string, duration: number): Promise<DrawnFile> {
  const probed = await probeMedia(file);
  if (!probed?.width || !probed.height) throw new Error(`the preview output ${path.basename(file)} could not be read back`);
  return { file, extension, contentType, width: probed.width, height: probed.height, duration };
}

import { createRequire } from 'node:module';
import * as path from 'node:path';
import { startFfmpeg, type MediaProcess } from '../../../infra/media/media-runner';
import type { EncoderPlan } from '../planner/render-plan';
import { REMOTION_GIF_GRAPH, stitchWith } from './stitch-settings';
import { convertOnOneThread } from './x264';

export interface FramePipeVideo {
  codec: 'h264' | 'vp9' | 'prores' | 'gif';
  pixelFormat: string;
  proResProfile?: '4444';
  fps: number;
  width: number;
  height: number;
  outputPath: string;
}

type GenerateFfmpegArgs = (options: Record<string, unknown>) => string[][];

/** Remotion's own encoder arguments for a codec (not exported by the package, reached by path as browser/remotion-steps.ts does). */
function remotionEncoderArgs(): { generateFfmpegArgs: GenerateFfmpegArgs; getProResProfileName: (codec: string, profile: string | undefined) => string | null } {
  const load = createRequire(__filename);
  const dist = path.dirname(load.resolve('@remotion/renderer'));
  return {
    ...(load(path.join(dist, 'ffmpeg-args.js')) as { generateFfmpegArgs: GenerateFfmpegArgs }),
    ...(load(path.join(dist, 'get-prores-profile-name.js')) as { getProResProfileName: (codec: string, profile: string | undefined) => string | null }),
  };
}

/**
 * The ffmpeg command that encodes captured JPEG or PNG pictures read from stdin (image2pipe) as
 * Remotion's renderMedia encodes them: its encoder arguments for the codec (generateFfmpegArgs),
 * the plan's settings applied as renderMedia's `ffmpegOverride` applies them (x264's BT.709
 * conversion on one thread, stitch-settings.ts for VP9, ProRes and GIF), no sound (muxed after).
 */
export function framePipeArgs(video: FramePipeVideo, capture: 'jpeg' | 'png', encoder: EncoderPlan): string[] {
  const { generateFfmpegArgs, getProResProfileName } = remotionEncoderArgs();
  const x264 = encoder.x264;
  const container = path.extname(video.outputPath).slice(1).toLowerCase();
  const args = [
    ['-v', 'error', '-r', String(video.fps), '-f', 'image2pipe', '-s', `${video.width}x${video.height}`, '-vcodec', capture === 'jpeg' ? 'mjpeg' : 'png', '-i', '-'],
    video.codec === 'gif' ? ['-filter_complex', REMOTION_GIF_GRAPH] : [],
    ['-an'],
    ...generateFfmpegArgs({
      hasPreencoded: false,
      proResProfileName: getProResProfileName(video.codec, video.proResProfile),
      pixelFormat: video.pixelFormat,
      x264Preset: x264?.preset ?? null,
      gopSize: null,
      codec: video.codec,
      crf: x264?.crf ?? null,
      videoBitrate: null,
      encodingMaxRate: null,
      encodingBufferSize: null,
      colorSpace: x264 ? 'bt709' : null,
      hardwareAcceleration: 'disable',
      indent: false,
      logLevel: 'error',
    }),
    ['-map_metadata', '-1'],
    // Remotion moves an MP4's or MOV's index to the front after writing it (its fast-start pass).
    container === 'mp4' || container === 'mov' ? ['-movflags', '+faststart'] : [],
    ['-y', video.outputPath],
  ].flat();
  const override = x264 ? convertOnOneThread : stitchWith({ vp9: encoder.vp9, prores: encoder.prores, gif: encoder.gif });
  return override({ type: 'stitcher', args });
}

/**
 * An encoder fed one captured picture at a time (BeginFrame capture): ffmpeg encodes while the
 * page draws the next frames; `write` waits while its input pipe is full.
 */
export class FramePipeEncoder {
  private readonly process: MediaProcess;

  constructor(video: FramePipeVideo, capture: 'jpeg' | 'png', encoder: EncoderPlan, signal: AbortSignal) {
    this.process = startFfmpeg(framePipeArgs(video, capture, encoder), { signal, timeoutMs: 60 * 60_000 });
  }

  write(picture: Buffer): Promise<void> {
    return this.process.write(picture);
  }

  /** All pictures written: waits for the file. */
  async finish(): Promise<void> {
    this.process.end();
    await this.process.done;
  }

  /** Stops the encoder after a failure elsewhere; its output is left unfinished. */
  async abort(): Promise<void> {
    this.process.kill(new Error('the encoder was stopped'));
    await this.process.done.catch(() => undefined);
  }
}

import { rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { runFfmpeg } from '../../../../infra/media/media-runner';
import { holdableX264Params, mpegTransportStream, spliceHeldFrames, type SplicedPicture } from '../../codec';
import { writeFrameList, type HeldFrame } from '../../encode/frame-list';
import { TO_BT709_TV_RANGE, x264Args, type X264Settings } from '../../encode/x264';

/**
 * Encodes drawn frames, each shown for `hold` output frames, into H.264 at `fps` with exactly
 * `totalFrames` frames. The settings are Remotion's for `codec: 'h264'` with `colorSpace: 'bt709'`
 * (the preset and CRF of `x264`, yuv420p in TV range via zscale, 90 kHz track timescale), so the
 * picture matches the browser path. ffmpeg decodes and converts each distinct frame once. With
 * `skipPictures`, x264 encodes each once (holdableX264Params) and the repeats are skip pictures
 * (h264-holds.ts); without, the `fps` filter repeats each after the conversion and x264 encodes
 * every frame.
 */
export async function encodeHeldFrames(args: {
  frames: HeldFrame[];
  fps: number;
  totalFrames: number;
  outputPath: string;
  signal: AbortSignal;
  /** Absent: DEFAULT_X264. */
  x264?: X264Settings;
  skipPictures?: boolean;
}): Promise<void> {
  const list = path.join(path.dirname(args.outputPath), 'held-frames.txt');
  const skips = args.skipPictures === true;
  await writeFrameList(list, skips ? args.frames.map((frame) => ({ ...frame, hold: 1 })) : args.frames, args.fps);
  const decode = ['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-vf', `${TO_BT709_TV_RANGE},fps=${args.fps}`];
  if (!skips) {
    await runFfmpeg([...decode, '-frames:v', String(args.totalFrames), ...x264Args(args.x264), '-an', args.outputPath], { signal: args.signal, timeoutMs: 30 * 60_000 });
    return;
  }
  const { stdout } = await runFfmpeg(
    [...decode, '-frames:v', String(args.frames.length), ...x264Args(args.x264), '-x264-params', holdableX264Params(args.frames.map((frame) => frame.hold)), '-an', '-f', 'h264', 'pipe:1'],
    { signal: args.signal, timeoutMs: 30 * 60_000, stdout: 'buffer', stdoutLimitBytes: 2 ** 31 - 1 },
  );
  await muxHeldPictures(stdout, args.frames.map((frame) => ({ hold: frame.hold })), args.fps, args.outputPath, args.signal);
}

/**
 * The MP4 (no sound) of an Annex B stream x264 wrote with holdableX264Params, its pictures shown as
 * `pictures` says: the repeats and fades spliced in (h264-holds.ts), carried with their decoding
 * and presentation times in a transport stream (mpeg-ts.ts), then copied into the container.
 */
export async function muxHeldPictures(encoded: Buffer, pictures: readonly SplicedPicture[], fps: number, outputPath: string, signal: AbortSignal): Promise<void> {
  const stream = `${outputPath}.ts`;
  await writeFile(stream, mpegTransportStream(spliceHeldFrames(encoded, pictures), fps));
  try {
    await runFfmpeg(
      ['-v', 'error', '-y', '-f', 'mpegts', '-i', stream, '-c', 'copy', '-video_track_timescale', '90000', '-an', '-f', 'mp4', outputPath],
      { signal, timeoutMs: 10 * 60_000 },
    );
  } finally {
    await rm(stream, { force: true });
  }
}

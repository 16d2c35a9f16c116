import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { holdableX264Params, spliceHeldFrames, type SplicedPicture } from '../codec/h264-holds';
import { mpegTransportStream } from '../codec/mpeg-ts';

const execFileAsync = promisify(execFile);

/**
 * Share of a timeline's frames above which drawing only the distinct frames stops paying: the
 * browser path overlaps capture and encoding, the held path draws first and encodes after.
 */
export const HELD_FRAMES_MAX_SHARE = 0.6;

/** Remotion's conversion of the captured pictures to BT.709 in TV range, as its encoder runs it. */
export const REMOTION_BT709_TV_RANGE = 'zscale=matrix=709:range=limited:primariesin=709:primaries=709:transferin=709:transfer=709';

/**
 * That conversion on one thread, on every H.264 path. On N threads zscale converts N slices of
 * rows apart and does not resample chroma across their seams, so a colour edge on a seam came out
 * sharper than anywhere else, the picture depended on the machine's core count, and a region
 * converted alone (the media composite) would be sliced elsewhere than the whole frame.
 */
export const TO_BT709_TV_RANGE = `${REMOTION_BT709_TV_RANGE}:threads=1`;

/**
 * `ffmpegOverride` for Remotion's renderMedia: its encoder converts with TO_BT709_TV_RANGE too.
 * Throws if a video encoding command no longer carries the conversion this replaces (a Remotion
 * upgrade), rather than let the paths drift apart silently.
 */
export function convertOnOneThread({ type, args }: { type: 'pre-stitcher' | 'stitcher'; args: string[] }): string[] {
  const at = args.indexOf(REMOTION_BT709_TV_RANGE);
  if (at === -1) {
    const encodes = args.some((arg, index) => arg === '-c:v' && args[index + 1] === 'libx264');
    if (encodes) throw new Error(`Remotion's ${type} ffmpeg command has no BT.709 conversion to run on one thread`);
    return args;
  }
  return args.map((arg, index) => (index === at ? TO_BT709_TV_RANGE : arg));
}

/** x264's speed preset and constant rate factor, the same for every H.264 path (RENDER_X264_PRESET, RENDER_X264_CRF). */
export interface X264Settings {
  preset: string;
  crf: number;
}

/** Remotion's own for `codec: 'h264'`: x264's default preset, CRF 18. */
export const DEFAULT_X264: X264Settings = { preset: 'medium', crf: 18 };

/** Remotion's H.264 encoder settings (see encodeHeldFrames) with the preset and CRF of `x264`. */
export function x264Args(x264: X264Settings = DEFAULT_X264): string[] {
  return [
    '-c:v', 'libx264', '-preset', x264.preset, '-crf', String(x264.crf),
    '-colorspace:v', 'bt709', '-color_primaries:v', 'bt709', '-color_trc:v', 'bt709', '-color_range', 'tv',
    '-pix_fmt', 'yuv420p', '-video_track_timescale', '90000',
  ];
}

export interface HeldFrame {
  /** A JPEG of the frame as the browser drew it. */
  file: string;
  /** Output frames that show it. */
  hold: number;
}

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
    await execFileAsync('ffmpeg', [...decode, '-frames:v', String(args.totalFrames), ...x264Args(args.x264), '-an', args.outputPath], { signal: args.signal, timeout: 30 * 60_000 });
    return;
  }
  const { stdout } = await execFileAsync(
    'ffmpeg',
    [...decode, '-frames:v', String(args.frames.length), ...x264Args(args.x264), '-x264-params', holdableX264Params(args.frames.map((frame) => frame.hold)), '-an', '-f', 'h264', 'pipe:1'],
    { signal: args.signal, timeout: 30 * 60_000, encoding: 'buffer', maxBuffer: 2 ** 31 - 1 },
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
    await execFileAsync(
      'ffmpeg',
      ['-v', 'error', '-y', '-f', 'mpegts', '-i', stream, '-c', 'copy', '-video_track_timescale', '90000', '-an', '-f', 'mp4', outputPath],
      { signal, timeout: 10 * 60_000 },
    );
  } finally {
    await rm(stream, { force: true });
  }
}

/**
 * An ffconcat list showing each frame file for `hold` frames at `fps`, for ffmpeg's concat demuxer.
 * Durations in microseconds from cumulative frame positions, so rounding never adds up to a frame.
 */
export async function writeFrameList(list: string, frames: HeldFrame[], fps: number): Promise<void> {
  const lines: string[] = [];
  let position = 0;
  for (const frame of frames) {
    const start = Math.round((position * 1e6) / fps);
    position += frame.hold;
    const end = Math.round((position * 1e6) / fps);
    // Without the frame rate, the image demuxer stamps each picture in 1/25 s and at 30 fps every
    // sixth one-frame picture lands on its neighbour's slot (one dropped, one shown twice).
    lines.push(`file ${quote(frame.file)}`, `option framerate ${fps}`, `duration ${end - start}us`);
  }
  // The concat demuxer ignores the last entry's duration unless the file is listed once more.
  lines.push(`file ${quote(frames[frames.length - 1].file)}`, `option framerate ${fps}`);
  await writeFile(list, `ffconcat version 1.0\n${lines.join('\n')}\n`);
}

function quote(file: string): string {
  return `'${file.replace(/'/g, "'\\''")}'`;
}

import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Share of a timeline's frames above which drawing only the distinct frames stops paying: the
 * browser path overlaps capture and encoding, the held path draws first and encodes after.
 */
export const HELD_FRAMES_MAX_SHARE = 0.6;

export interface HeldFrame {
  /** A JPEG of the frame as the browser drew it. */
  file: string;
  /** Output frames that show it. */
  hold: number;
}

/**
 * Encodes drawn frames, each shown for `hold` output frames, into H.264 at `fps` with exactly
 * `totalFrames` frames. The settings are Remotion's for `codec: 'h264'` with `colorSpace: 'bt709'`
 * (x264 default preset, CRF 18, yuv420p in TV range via zscale, 90 kHz track timescale), so the
 * picture matches the browser path. ffmpeg decodes and converts each distinct frame once; the `fps`
 * filter repeats it after the conversion, so a held frame costs only the encoder.
 */
export async function encodeHeldFrames(args: {
  frames: HeldFrame[];
  fps: number;
  totalFrames: number;
  outputPath: string;
  signal: AbortSignal;
}): Promise<void> {
  const list = path.join(path.dirname(args.outputPath), 'held-frames.txt');
  // Durations in microseconds from cumulative frame positions, so rounding never adds up to a frame.
  const lines: string[] = [];
  let position = 0;
  for (const frame of args.frames) {
    const start = Math.round((position * 1e6) / args.fps);
    position += frame.hold;
    const end = Math.round((position * 1e6) / args.fps);
    lines.push(`file ${quote(frame.file)}`, `duration ${end - start}us`);
  }
  // The concat demuxer ignores the last entry's duration unless the file is listed once more.
  lines.push(`file ${quote(args.frames[args.frames.length - 1].file)}`);
  await writeFile(list, `ffconcat version 1.0\n${lines.join('\n')}\n`);
  await execFileAsync(
    'ffmpeg',
    [
      '-v', 'error', '-y',
      '-f', 'concat', '-safe', '0', '-i', list,
      '-vf', `zscale=matrix=709:range=limited:primariesin=709:primaries=709:transferin=709:transfer=709,fps=${args.fps}`,
      '-frames:v', String(args.totalFrames),
      '-c:v', 'libx264',
      '-colorspace:v', 'bt709', '-color_primaries:v', 'bt709', '-color_trc:v', 'bt709', '-color_range', 'tv',
      '-pix_fmt', 'yuv420p', '-crf', '18', '-video_track_timescale', '90000',
      '-an', args.outputPath,
    ],
    { signal: args.signal, timeout: 30 * 60_000 },
  );
}

function quote(file: string): string {
  return `'${file.replace(/'/g, "'\\''")}'`;
}

import { writeFile } from 'node:fs/promises';

export interface HeldFrame {
  /** An image of the frame as the browser drew it. */
  file: string;
  /** Output frames that show it. */
  hold: number;
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

import { writeFile } from 'node:fs/promises';
import { runFfmpeg } from '../../../infra/media/media-runner';

/**
 * H.264 segments one after the other into one file, copied (ffmpeg's concat demuxer): each was
 * encoded with the same settings by a fresh encoder and starts with a keyframe, so no frame is
 * re-encoded. The one join of the chunk grid, for chunks and a whole render's segments alike.
 */
export async function joinSegments(files: string[], listPath: string, outputPath: string, signal: AbortSignal): Promise<void> {
  await writeFile(listPath, files.map((file) => `file '${file.replaceAll("'", "'\\''")}'\n`).join(''));
  await runFfmpeg(['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', listPath, '-map', '0:v', '-c', 'copy', outputPath], {
    signal,
    timeoutMs: 10 * 60_000,
  });
}

import { stat } from 'node:fs/promises';
import { lastLines, runFfmpeg } from '../../infra/media/media-runner';
import { TaskFailure } from '../task-failure';

/** What the engines read: 16 kHz mono 16-bit PCM, the rate pocketsphinx's model and Google's LINEAR16 expect. */
export const SAMPLE_RATE = 16_000;
const BYTES_PER_SECOND = SAMPLE_RATE * 2;
const WAV_HEADER_BYTES = 44;
/** Peaks below this are no speech at all (digital silence, or hiss far under any voice). */
export const SILENCE_PEAK_DB = -60;

export interface ExtractedAudio {
  file: string;
  durationSeconds: number;
  peakDb: number;
}

/**
 * Decodes the first audio stream of any file ffmpeg reads (audio or video), resampled to 16 kHz
 * mono PCM WAV, measuring its peak level on the way (volumedetect) to tell silence.
 */
export async function extractAudio(input: string, output: string, signal: AbortSignal): Promise<ExtractedAudio> {
  const args = ['-v', 'info', '-y', '-i', input, '-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-af', 'volumedetect', '-c:a', 'pcm_s16le', '-f', 'wav', output];
  const { code, stderr } = await runFfmpeg(args, { signal, allowFailure: true });
  signal.throwIfAborted();
  if (code !== 0) {
    const reason = lastLines(stderr, 1);
    throw new TaskFailure('codec_unsupported', `The source's audio could not be decoded: ${reason}`);
  }
  const { size } = await stat(output);
  const peak = /max_volume: (-?[\d.]+|-inf) dB/.exec(stderr)?.[1];
  return {
    file: output,
    durationSeconds: Math.max(0, size - WAV_HEADER_BYTES) / BYTES_PER_SECOND,
    peakDb: peak === undefined || peak === '-inf' ? -Infinity : Number(peak),
  };
}

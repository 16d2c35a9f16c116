import { lastLines, runFfmpeg } from './media-runner';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SoundSpan } from '../../../composition/src/schema';

/**
 * One-time analysis of a source's sound for auto-ducking: decoded once by ffmpeg to 16 kHz mono,
 * then
 * - audible spans: 20 ms frames whose RMS is above −45 dBFS, pauses under 0.3 s bridged;
 * - speech spans: WebRTC's voice activity detector (libfvad as WebAssembly, mode 3, "very
 *   aggressive") on 30 ms frames, pauses under 0.3 s bridged, blips under 0.15 s dropped.
 */

export const ANALYSIS_RATE = 16000;
const AUDIBLE_FRAME = 320; // 20 ms
const AUDIBLE_DBFS = -45;
const VAD_FRAME = 480; // 30 ms, one of the frame lengths libfvad takes at 16 kHz
const BRIDGE_SECONDS = 0.3;
const MIN_SPEECH_SECONDS = 0.15;
/** Decoded samples kept in memory for one source: over four hours at 16 kHz. */
const MAX_DECODED_BYTES = 512 * 1024 * 1024;

/** The file's sound as 16 kHz mono 16-bit samples (empty when it has none). */
export async function decodeMono(file: string, signal?: AbortSignal): Promise<Int16Array> {
  const args = ['-v', 'error', '-i', file, '-vn', '-ac', '1', '-ar', String(ANALYSIS_RATE), '-f', 's16le', '-'];
  const { code, stdout: bytes, stderr } = await runFfmpeg(args, { signal, stdout: 'buffer', stdoutLimitBytes: MAX_DECODED_BYTES, allowFailure: true });
  if (code !== 0) throw new Error(`ffmpeg could not decode the sound (${code}): ${lastLines(stderr, 1)}`);
  const samples = new Int16Array(Math.floor(bytes.length / 2));
  for (let i = 0; i < samples.length; i += 1) samples[i] = bytes.readInt16LE(i * 2);
  return samples;
}

/** Spans (seconds) where the sound is above −45 dBFS. */
export function audibleSpans(samples: Int16Array): SoundSpan[] {
  const threshold = 32768 * 10 ** (AUDIBLE_DBFS / 20);
  const flags: boolean[] = [];
  for (let start = 0; start + AUDIBLE_FRAME <= samples.length; start += AUDIBLE_FRAME) {
    let sum = 0;
    for (let i = start; i < start + AUDIBLE_FRAME; i += 1) sum += samples[i] * samples[i];
    flags.push(Math.sqrt(sum / AUDIBLE_FRAME) > threshold);
  }
  return spansOf(flags, AUDIBLE_FRAME / ANALYSIS_RATE, 0);
}

/** Spans (seconds) where voice activity is detected. */
export async function speechSpans(samples: Int16Array): Promise<SoundSpan[]> {
  const flags = await detectVoice(samples);
  return spansOf(flags, VAD_FRAME / ANALYSIS_RATE, MIN_SPEECH_SECONDS);
}

/** Runs of true frames as seconds, gaps under BRIDGE_SECONDS joined, spans shorter than `minimum` dropped. */
export function spansOf(flags: readonly boolean[], frameSeconds: number, minimum: number): SoundSpan[] {
  const spans: SoundSpan[] = [];
  flags.forEach((on, index) => {
    if (!on) return;
    const start = index * frameSeconds;
    const last = spans[spans.length - 1];
    if (last && start - last[1] < BRIDGE_SECONDS) last[1] = start + frameSeconds;
    else spans.push([start, start + frameSeconds]);
  });
  return spans.filter(([start, end]) => end - start >= minimum).map(([start, end]) => [round(start), round(end)]);
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/**
 * libfvad ships as an ES module that finds its .wasm beside itself; it runs in a worker thread so
 * it loads the same way wherever the service runs and keeps the event loop free.
 */
const VAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.module).then(async ({ default: createFvad }) => {
  const vad = await createFvad();
  const instance = vad._fvad_new();
  if (!instance) throw new Error('fvad_new failed');
  vad._fvad_set_mode(instance, workerData.mode);
  vad._fvad_set_sample_rate(instance, workerData.rate);
  const frame = workerData.frame;
  const samples = new Int16Array(workerData.samples);
  const pointer = vad._malloc(frame * 2);
  const flags = new Uint8Array(Math.floor(samples.length / frame));
  for (let index = 0; index < flags.length; index += 1) {
    vad.HEAP16.set(samples.subarray(index * frame, (index + 1) * frame), pointer >> 1);
    const result = vad._fvad_process(instance, pointer, frame);
    if (result < 0) throw new Error('fvad_process failed');
    flags[index] = result;
  }
  vad._free(pointer);
  vad._fvad_free(instance);
  parentPort.postMessage(flags);
}).catch((error) => { throw error; });
`;

async function detectVoice(samples: Int16Array): Promise<boolean[]> {
  const module = pathToFileURL(createRequire(__filename).resolve('@echogarden/fvad-wasm')).href;
  const copy = samples.slice().buffer;
  const worker = new Worker(VAD_WORKER, {
    eval: true,
    workerData: { module, mode: 3, rate: ANALYSIS_RATE, frame: VAD_FRAME, samples: copy },
    transferList: [copy],
  });
  try {
    const flags = await new Promise<Uint8Array>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`The voice detector stopped (${code})`)));
    });
    return [...flags].map((flag) => flag === 1);
  } finally {
    await worker.terminate();
  }
}

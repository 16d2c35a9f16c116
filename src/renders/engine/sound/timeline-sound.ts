import { writeFile } from 'node:fs/promises';
import { lastLines, MediaRunError, runFfmpeg, runFfprobe } from '../../../infra/media/media-runner';
import type { CompositionProps, ResolvedRequest } from '../../../../composition/src/schema';
import { clipSourceSamples, clipTrack, DecodedSpan, mixTracks, SOUND_CHANNELS, SOUND_SAMPLE_RATE, SoundTrack } from './browser-sound-rules';
import type { AudioStream } from '../planner/source-facts';
import { soundStreamProblem, timelineSoundPlan } from './timeline-sound-plan';

export type TimelineSoundMixer = { ok: true; mix: () => Promise<{ sampleCount: number }> } | { ok: false; reason: string };

export interface TimelineSoundArgs {
  props: Pick<CompositionProps, 'request' | 'media'>;
  resolved: ResolvedRequest;
  /** Local file of a request URL (the worker's downloaded copy); null when it has none. */
  fileOf: (url: string) => string | null;
  /** Where the 48 kHz stereo 16-bit WAV goes. */
  outputPath: string;
  signal: AbortSignal;
}

/**
 * The whole timeline's sound as the WAV Remotion's audio-only render makes (same samples, same
 * length), made by ffmpeg decoding each source span once and the mix of browser-sound-rules.ts,
 * without a browser. In two steps, so a caller can start drawing the moment it knows whether the
 * browser must also collect the sound: this one reads the plan and probes the sources (`ok: false`
 * with the reason when the mix cannot match; nothing is written then), `mix()` decodes, mixes and
 * writes the file.
 */
export async function timelineSoundMixer(args: TimelineSoundArgs): Promise<TimelineSoundMixer> {
  const plan = timelineSoundPlan(args.props, args.resolved);
  if (!plan.ok) return plan;
  const { fps } = plan;
  const streams = new Map<string, AudioStream | null>();
  for (const clip of plan.clips) {
    if (streams.has(clip.src)) continue;
    const file = args.fileOf(clip.src);
    if (!file) return { ok: false, reason: `no local copy of ${clip.src}` };
    const stream = await probeAudio(file, args.signal);
    const problem = stream ? soundStreamProblem(stream) : null;
    if (problem) return { ok: false, reason: problem };
    streams.set(clip.src, stream);
  }
  const mix = async () => {
    const tracks: SoundTrack[] = [];
    for (const clip of plan.clips) {
      const stream = streams.get(clip.src);
      if (!stream) continue; // no sound in the source: the browser finds none either
      const samples = clipSourceSamples(clip, fps, stream.sampleRate);
      if (!samples) continue;
      const span = await decodeSpan(args.fileOf(clip.src)!, stream, samples, args.signal);
      const track = clipTrack(clip, fps, span);
      if (track) tracks.push(track);
    }
    const mixed = mixTracks(tracks, plan.durationInFrames, fps);
    await writeFile(args.outputPath, wavFile(mixed));
    return { sampleCount: mixed.length / SOUND_CHANNELS };
  };
  return { ok: true, mix };
}

/** The first audio stream (the one `<Audio>`/`<Video>` play), or null. */
export async function probeAudio(file: string, signal: AbortSignal): Promise<AudioStream | null> {
  const { stdout } = await runFfprobe(['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=codec_name,sample_rate,channels', '-of', 'json', file], {
    signal,
    timeoutMs: 60_000,
    stdout: 'buffer',
  });
  const stream = (JSON.parse(stdout.toString('utf8')) as { streams?: { codec_name: string; sample_rate: string; channels: number }[] }).streams?.[0];
  return stream ? { codec: stream.codec_name, sampleRate: Number(stream.sample_rate), channels: stream.channels } : null;
}

/** Source samples [first, end) of the first audio stream, 16-bit interleaved, at the source's rate and channels. */
async function decodeSpan(file: string, stream: AudioStream, [first, end]: [number, number], signal: AbortSignal): Promise<DecodedSpan> {
  const args = ['-v', 'error', '-i', file, '-map', '0:a:0', '-af', `atrim=start_sample=${first}:end_sample=${end}`, '-f', 's16le', '-acodec', 'pcm_s16le', '-'];
  // The span's samples and a second more: a larger output is a wrong file.
  const limit = (end - first + stream.sampleRate) * stream.channels * 2;
  const { stdout: bytes } = await runFfmpeg(args, { signal, stdout: 'buffer', stdoutLimitBytes: limit }).catch((error: unknown) => {
    signal.throwIfAborted();
    throw new Error(`ffmpeg could not decode ${file}: ${error instanceof MediaRunError ? lastLines(error.stderr) : String(error)}`);
  });
  const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.length & ~1)));
  return { sampleRate: stream.sampleRate, channels: stream.channels, first, samples };
}

/** A canonical 44-byte-header PCM WAV of interleaved stereo 16-bit samples. */
function wavFile(samples: Int16Array): Buffer {
  const dataBytes = samples.length * 2;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(SOUND_CHANNELS, 22);
  header.writeUInt32LE(SOUND_SAMPLE_RATE, 24);
  header.writeUInt32LE(SOUND_SAMPLE_RATE * SOUND_CHANNELS * 2, 28);
  header.writeUInt16LE(SOUND_CHANNELS * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, dataBytes)]);
}

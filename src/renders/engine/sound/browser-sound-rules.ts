import type { SoundClip } from './timeline-sound-plan';

/**
 * The arithmetic of Remotion 4.0.529's sound for `@remotion/media`'s `<Audio>`/`<Video>` in a
 * render, so the worker's mix gives the same samples without a browser. Per frame, the browser
 * takes the source samples of that frame's span, resamples them to 48 kHz stereo by averaging
 * (which also speeds them up by the playback rate, pitch included), applies the frame's volume to
 * the 16-bit samples (truncating), and the renderer writes them at the frame's sample position in
 * one file per element; the files are summed ten at a time, clipped to 16 bits, and padded to the
 * composition's length. Pure: no I/O. Pinned to the Remotion version by the e2e comparison in
 * test/timeline-sound.e2e-spec.ts.
 */

export const SOUND_SAMPLE_RATE = 48_000;
export const SOUND_CHANNELS = 2;
/** The renderer mixes at most this many element files in one ffmpeg `amix`. */
const MIX_GROUP = 10;

/** A decoded source span: interleaved 16-bit samples from source sample `first`. */
export interface DecodedSpan {
  sampleRate: number;
  channels: number;
  first: number;
  samples: Int16Array;
}

/** Sample counts from seconds, snapped where floating point strays (Remotion's convert-audiodata). */
function snap(value: number): number {
  const decimal = Math.abs(value % 1);
  if (decimal < 0.0000001) return value < 0 ? Math.ceil(value) : Math.floor(value);
  if (decimal > 0.9999999) return value < 0 ? Math.floor(value) : Math.ceil(value);
  return value;
}

/** The resampler's own snapping (Remotion's resample-audiodata). */
function snapFraction(value: number): number {
  if (value % 1 < 0.0000001) return Math.floor(value);
  if (value % 1 > 0.9999999) return Math.ceil(value);
  return value;
}

/** The renderer's snapping of sample positions (Remotion's inline-audio-mixing). */
function snapPosition(value: number): number {
  const rounded = Math.round(value);
  return Math.abs(value - rounded) < 0.00001 ? rounded : value;
}

/** Source seconds [start, end) that frame `frame` of the clip plays, or null when it plays nothing. */
export function frameSourceSeconds(clip: Pick<SoundClip, 'trimBefore' | 'trimAfter' | 'playbackRate'>, frame: number, fps: number): [number, number] | null {
  const time = (frame / fps) * clip.playbackRate;
  if (clip.trimAfter !== undefined && time >= (clip.trimAfter - (clip.trimBefore ?? 0)) / fps) return null;
  const start = time + (clip.trimBefore ?? 0) / fps;
  return [start, start + (1 / fps) * clip.playbackRate];
}

/** Source samples [first, end) of a frame's span: the first sample it touches to the last. */
export function frameSourceSamples(seconds: [number, number], sampleRate: number): [number, number] {
  return [Math.max(0, Math.floor(snap(seconds[0] * sampleRate))), Math.ceil(snap(seconds[1] * sampleRate))];
}

/** Source samples [first, end) the whole clip reads (frames with sound only), or null. */
export function clipSourceSamples(clip: SoundClip, fps: number, sampleRate: number): [number, number] | null {
  let first = Infinity;
  let end = -Infinity;
  for (let frame = 0; frame < clip.durationInFrames; frame += 1) {
    if (!(clip.gains[frame] > 0)) continue;
    const seconds = frameSourceSeconds(clip, frame, fps);
    if (!seconds) continue;
    const [a, b] = frameSourceSamples(seconds, sampleRate);
    first = Math.min(first, a);
    end = Math.max(end, b);
  }
  return end > first ? [first, end] : null;
}

/** Averages `source` (interleaved, `channels`) down or up to `targetFrames` stereo frames. */
function resample(source: Int16Array, channels: number, targetFrames: number): Int16Array {
  const destination = new Int16Array(targetFrames * SOUND_CHANNELS);
  const chunkSize = source.length / channels / targetFrames;
  const average = (startUnsnapped: number, endUnsnapped: number, channel: number) => {
    const start = snapFraction(startUnsnapped);
    const end = snapFraction(endUnsnapped);
    const startFloor = Math.floor(start);
    const startFraction = start - startFloor;
    const endFloor = Math.floor(end);
    const endFraction = end - endFloor;
    let sum = 0;
    let weight = 0;
    if (startFraction > 0) {
      sum += source[startFloor * channels + channel] * (1 - startFraction);
      weight += 1 - startFraction;
    }
    for (let k = Math.ceil(start); k < endFloor; k += 1) {
      sum += source[k * channels + channel];
      weight += 1;
    }
    if (endFraction > 0) {
      sum += source[endFloor * channels + channel] * endFraction;
      weight += endFraction;
    }
    return sum / weight;
  };
  for (let frame = 0; frame < targetFrames; frame += 1) {
    const start = frame * chunkSize;
    const end = start + chunkSize;
    if (channels === 1) {
      const mono = average(start, end, 0);
      destination[frame * 2] = mono;
      destination[frame * 2 + 1] = mono;
    } else {
      destination[frame * 2] = average(start, end, 0);
      destination[frame * 2 + 1] = average(start, end, 1);
    }
  }
  return destination;
}

/** One frame's samples at the output rate, volume applied; null when the source has none there. */
export function frameSound(span: DecodedSpan, seconds: [number, number], playbackRate: number, gain: number): Int16Array | null {
  const { sampleRate, channels } = span;
  const available = span.first + span.samples.length / channels;
  const [first, wanted] = frameSourceSamples(seconds, sampleRate);
  const end = Math.min(wanted, available);
  if (end <= first || first < span.first) return null;
  const frames = end - first;
  const source = span.samples.subarray((first - span.first) * channels, (end - span.first) * channels);
  const ratio = sampleRate / SOUND_SAMPLE_RATE;
  const targetFrames = Math.ceil(snap(frames / ratio / playbackRate));
  if (targetFrames === 0) return null;
  const data = targetFrames === frames && channels === SOUND_CHANNELS && playbackRate === 1 ? source.slice() : resample(source, channels, targetFrames);
  if (gain !== 1) {
    // Assigning to an Int16Array truncates towards zero, as the browser's does.
    for (let i = 0; i < data.length; i += 1) data[i] = Math.max(-32768, Math.min(32767, data[i] * gain));
  }
  return data;
}

/** An element's file in the renderer: stereo samples from output sample `start`. */
export interface SoundTrack {
  start: number;
  samples: Int16Array;
}

/** Output sample where composition frame `frame` starts. */
export function frameSamplePosition(frame: number, fps: number): number {
  return Math.floor(snapPosition((frame / fps) * SOUND_SAMPLE_RATE));
}

/**
 * The clip's file as the renderer writes it: each frame's samples at the frame's position, a
 * later frame overwriting where they overlap; frames without sound leave zeros. Null when nothing
 * was written.
 */
export function clipTrack(clip: SoundClip, fps: number, span: DecodedSpan): SoundTrack | null {
  const writes: { at: number; data: Int16Array }[] = [];
  const start = frameSamplePosition(clip.from, fps);
  let length = 0;
  for (let frame = 0; frame < clip.durationInFrames; frame += 1) {
    const gain = clip.gains[frame];
    if (!(gain > 0)) continue;
    const seconds = frameSourceSeconds(clip, frame, fps);
    if (!seconds) continue;
    const data = frameSound(span, seconds, clip.playbackRate, gain);
    if (!data) continue;
    const at = (frameSamplePosition(clip.from + frame, fps) - start) * SOUND_CHANNELS;
    writes.push({ at, data });
    length = Math.max(length, at + data.length);
  }
  if (writes.length === 0) return null;
  const samples = new Int16Array(length);
  for (const { at, data } of writes) samples.set(data, at);
  return { start, samples };
}

/** Tracks summed, clipped to 16 bits, ten at a time in order of their start (the renderer's amix). */
function sumTracks(tracks: SoundTrack[]): SoundTrack {
  const start = tracks[0].start;
  let length = 0;
  for (const track of tracks) length = Math.max(length, (track.start - start) * SOUND_CHANNELS + track.samples.length);
  const sum = new Int32Array(length);
  for (const track of tracks) {
    const offset = (track.start - start) * SOUND_CHANNELS;
    for (let i = 0; i < track.samples.length; i += 1) sum[offset + i] += track.samples[i];
  }
  const samples = new Int16Array(length);
  for (let i = 0; i < length; i += 1) samples[i] = Math.max(-32768, Math.min(32767, sum[i]));
  return { start, samples };
}

/** The whole mix: interleaved stereo samples, at least `durationInFrames` long. */
export function mixTracks(tracks: SoundTrack[], durationInFrames: number, fps: number): Int16Array {
  let level = [...tracks].sort((a, b) => a.start - b.start);
  while (level.length > 1) {
    const next: SoundTrack[] = [];
    for (let i = 0; i < level.length; i += MIX_GROUP) {
      const group = level.slice(i, i + MIX_GROUP);
      next.push(group.length === 1 ? group[0] : sumTracks(group));
    }
    level = next;
  }
  const padTo = Math.round((durationInFrames / fps) * SOUND_SAMPLE_RATE) * SOUND_CHANNELS;
  const merged = level[0];
  const length = merged ? Math.max(padTo, merged.start * SOUND_CHANNELS + merged.samples.length) : padTo;
  const out = new Int16Array(length);
  if (merged) out.set(merged.samples, merged.start * SOUND_CHANNELS);
  return out;
}

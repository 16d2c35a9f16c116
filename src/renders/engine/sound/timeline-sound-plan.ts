import { matteSourceIds, mediaVolumeAt, type CompositionProps, type ResolvedRequest } from '../../../../composition/src/schema';

/**
 * What the timeline's sound is made of, read from the resolved request alone (pure): one clip per
 * element the composition plays with sound, with its per-frame volume from the composition's own
 * `mediaVolumeAt`. `reason` when the worker's mix cannot match the browser's and the caller must
 * use Remotion's audio pass instead.
 */
export interface SoundClip {
  /** Position in `request.elements`. */
  index: number;
  /** The request's URL of the source. */
  src: string;
  /** First frame on the timeline and number of frames the clip plays (its `<Sequence>`). */
  from: number;
  durationInFrames: number;
  /** Source frames (at the composition frame rate) cut from the start / where the clip ends. */
  trimBefore: number | undefined;
  trimAfter: number | undefined;
  playbackRate: number;
  /** Volume for each frame of the clip, as `<Audio volume>` evaluates it (never below 0). */
  gains: Float64Array;
}

export type SoundPlan =
  | { ok: true; fps: number; durationInFrames: number; clips: SoundClip[] }
  | { ok: false; reason: string };

export function timelineSoundPlan(props: Pick<CompositionProps, 'request' | 'media'>, resolved: ResolvedRequest): SoundPlan {
  const { fps } = resolved;
  // Matte sources shape another element and are never mounted as media: they stay silent.
  const silent = matteSourceIds(props.request);
  const clips: SoundClip[] = [];
  for (const element of resolved.elements) {
    if (element.type !== 'audio' && element.type !== 'video') continue;
    if (element.id !== null && silent.has(element.id)) continue;
    // `muted` in the composition: Remotion extracts nothing.
    if (element.volume === 0) continue;
    if (props.media?.[element.src]?.has_audio === false) continue;
    // A speed ramp plays each frame as its own clip at that frame's mean rate (RemappedMedia).
    if (element.rateKeyframes) return { ok: false, reason: `element ${element.index} has a speed ramp (playback_rate_keyframes)` };
    const gains = new Float64Array(element.durationInFrames);
    for (let frame = 0; frame < element.durationInFrames; frame += 1) gains[frame] = Math.max(0, mediaVolumeAt(element, frame, fps));
    if (!gains.some((gain) => gain > 0)) continue;
    clips.push({
      index: element.index,
      src: element.src,
      from: element.from,
      durationInFrames: element.durationInFrames,
      trimBefore: element.trimBefore,
      trimAfter: element.trimAfter,
      playbackRate: element.playbackRate,
      gains,
    });
  }
  return { ok: true, fps, durationInFrames: resolved.durationInFrames, clips };
}

/**
 * Source codecs whose decoding by ffmpeg was compared with the browser's: 16-bit PCM identical,
 * AAC and Opus within −69 dB (test/timeline-sound.e2e-spec.ts covers PCM and AAC). MP3 is not
 * among them: the browser does not skip the encoder delay as ffmpeg does, so its sound is shifted
 * by a few hundred samples. Other PCM formats were not compared. Anything else falls back to
 * Remotion's audio pass.
 */
const MATCHING_CODECS = new Set(['pcm_s16le', 'aac', 'opus']);
/** Channel layouts the browser's down-mix and ours agree on. */
const MATCHING_CHANNELS = new Set([1, 2]);

/** Why the worker's decoding of a source's sound would not match the browser's; null when it would. */
export function soundStreamProblem(stream: { codec: string; channels: number }): string | null {
  if (!MATCHING_CODECS.has(stream.codec)) return `sound in ${stream.codec}`;
  if (!MATCHING_CHANNELS.has(stream.channels)) return `sound with ${stream.channels} channels`;
  return null;
}

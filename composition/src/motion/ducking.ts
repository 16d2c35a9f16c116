import type { Duck } from '../schema/elements';
import { timeForOffset, type RateKeyframe } from './time-remap';

/**
 * Auto-ducking, resolved once from the sound analysis the server made of each source (or the same
 * analysis handed to the Player in `media`), so render and Player apply the same gain curve.
 *
 * - Named elements (`under: [ids]`): the spans where each one is audible (its decoded sound above
 *   −45 dBFS, short pauses bridged). Without an analysis (a Player given no `media` spans), the
 *   element's whole timeline span counts.
 * - `under: "speech"`: the spans where voice activity is detected in every other sound element.
 *
 * Spans closer than attack + release merge (the bed stays down between words). Each span ramps
 * down linearly in dB over `attack` seconds ending at its start (the render can look ahead, so the
 * first syllable is already over a lowered bed) and back up over `release` seconds from its end.
 */

/** Source seconds [start, end). */
export type SoundSpan = [number, number];

/** A point of the gain curve: composition seconds and the gain there in dB (0 or below). */
export interface DuckPoint {
  time: number;
  db: number;
}

export interface DuckCurve {
  points: DuckPoint[];
  /** Composition seconds [start, end) during which the element is fully ducked. */
  spans: SoundSpan[];
}

export const DUCK_DEFAULTS = { amount_db: 12, attack: 0.2, release: 0.5 } as const;

/** What ducking needs to know about a sound element once resolved. */
export interface SoundSource {
  id: string | null;
  index: number;
  startSeconds: number;
  durationSeconds: number;
  /** Source seconds where the clip starts. */
  inPoint: number;
  playbackRate: number;
  rateKeyframes: RateKeyframe[] | null;
  /** Analysed spans of the source, source seconds; undefined: not analysed. */
  audible?: SoundSpan[];
  speech?: SoundSpan[];
}

/** Source spans of a clip, moved to composition seconds and clipped to where the clip plays. */
export function compositionSpans(source: SoundSource, spans: readonly SoundSpan[]): SoundSpan[] {
  const toComposition = (sourceTime: number) => {
    const offset = sourceTime - source.inPoint;
    const elementTime = source.rateKeyframes ? timeForOffset(source.rateKeyframes, source.playbackRate, offset) : offset / source.playbackRate;
    return source.startSeconds + elementTime;
  };
  const end = source.startSeconds + source.durationSeconds;
  return spans.flatMap(([a, b]) => {
    const start = Math.max(source.startSeconds, a < source.inPoint ? source.startSeconds : toComposition(a));
    const stop = Math.min(end, toComposition(b));
    return stop > start ? [[start, stop] as SoundSpan] : [];
  });
}

/** The gain curve of `ducked` under `duck`, given every sound element of the request; null when it never ducks. */
export function duckCurve(ducked: SoundSource, duck: Duck, sounds: readonly SoundSource[]): DuckCurve | null {
  const amount = duck.amount_db ?? DUCK_DEFAULTS.amount_db;
  const attack = duck.attack ?? DUCK_DEFAULTS.attack;
  const release = duck.release ?? DUCK_DEFAULTS.release;
  const triggers: SoundSpan[] = [];
  if (duck.under === 'speech') {
    for (const sound of sounds) if (sound.index !== ducked.index && sound.speech) triggers.push(...compositionSpans(sound, sound.speech));
  } else {
    for (const id of duck.under) {
      const sound = sounds.find((candidate) => candidate.id === id && candidate.index !== ducked.index);
      if (!sound) continue;
      triggers.push(...(sound.audible ? compositionSpans(sound, sound.audible) : [[sound.startSeconds, sound.startSeconds + sound.durationSeconds] as SoundSpan]));
    }
  }
  const spans = mergeSpans(triggers, attack + release);
  if (spans.length === 0) return null;
  const points: DuckPoint[] = [];
  for (const [start, end] of spans) {
    points.push({ time: start - attack, db: 0 }, { time: start, db: -amount }, { time: end, db: -amount }, { time: end + release, db: 0 });
  }
  return { points, spans };
}

/** Sorted, overlapping spans or spans less than `gap` apart joined. */
export function mergeSpans(spans: readonly SoundSpan[], gap: number): SoundSpan[] {
  const merged: SoundSpan[] = [];
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = merged[merged.length - 1];
    if (last && start - last[1] < gap) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** Linear gain of the curve at composition second `time` (ramps are linear in dB). */
export function duckGain(curve: DuckCurve | null, time: number): number {
  if (!curve) return 1;
  const { points } = curve;
  if (time <= points[0].time || time >= points[points.length - 1].time) return 1;
  for (let i = 1; i < points.length; i += 1) {
    const a = points[i - 1];
    const b = points[i];
    if (time <= b.time) {
      const db = b.time === a.time ? b.db : a.db + ((b.db - a.db) * (time - a.time)) / (b.time - a.time);
      return 10 ** (db / 20);
    }
  }
  return 1;
}

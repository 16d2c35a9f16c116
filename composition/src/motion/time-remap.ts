/**
 * Speed ramps (`playback_rate_keyframes` on video and audio): the playback rate at element
 * second `time` is interpolated linearly between keyframes (held before the first and after the
 * last) and multiplied by `speed`. The source position is the integral of the rate: at element
 * second t the element plays source second in_point + ∫₀ᵗ rate. The element lasts until that
 * reaches out_point (or the source's end).
 */

export interface RateKeyframe {
  time: number;
  rate: number;
}

function sorted(keyframes: readonly RateKeyframe[]): RateKeyframe[] {
  return [...keyframes].sort((a, b) => a.time - b.time);
}

export function rateAt(keyframes: readonly RateKeyframe[], speed: number, time: number): number {
  const points = sorted(keyframes);
  if (points.length === 0) return speed;
  if (time <= points[0].time) return speed * points[0].rate;
  for (let i = 1; i < points.length; i += 1) {
    const a = points[i - 1];
    const b = points[i];
    if (time <= b.time) return speed * (b.time === a.time ? b.rate : a.rate + ((b.rate - a.rate) * (time - a.time)) / (b.time - a.time));
  }
  return speed * points[points.length - 1].rate;
}

/** Source seconds played in the element's first `time` seconds: ∫₀ᵗ rate (exact, trapezoids). */
export function sourceOffset(keyframes: readonly RateKeyframe[], speed: number, time: number): number {
  if (time <= 0) return 0;
  const points = sorted(keyframes);
  if (points.length === 0) return speed * time;
  // Breakpoints where the rate's slope changes, inside (0, time).
  const breaks = [0, ...points.map((point) => point.time).filter((t) => t > 0 && t < time), time];
  let total = 0;
  for (let i = 1; i < breaks.length; i += 1) {
    const a = breaks[i - 1];
    const b = breaks[i];
    total += ((rateAt(points, speed, a) + rateAt(points, speed, b)) / 2) * (b - a);
  }
  return total;
}

/** The element second at which `offset` source seconds have played (inverse of sourceOffset). */
export function timeForOffset(keyframes: readonly RateKeyframe[], speed: number, offset: number): number {
  if (offset <= 0) return 0;
  let high = 1;
  while (sourceOffset(keyframes, speed, high) < offset) high *= 2;
  let low = 0;
  for (let i = 0; i < 80; i += 1) {
    const middle = (low + high) / 2;
    if (sourceOffset(keyframes, speed, middle) < offset) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

export interface RemappedMedia {
  /** Source frames (composition rate) cut from the start. */
  trimBefore: number | undefined;
  playbackRate: number;
  rateKeyframes?: RateKeyframe[] | null;
}

/** Source seconds shown at element second `seconds`. */
export function sourceSeconds(media: RemappedMedia, seconds: number, fps: number): number {
  const start = (media.trimBefore ?? 0) / fps;
  if (!media.rateKeyframes?.length) return start + media.playbackRate * Math.max(0, seconds);
  return start + sourceOffset(media.rateKeyframes, media.playbackRate, seconds);
}

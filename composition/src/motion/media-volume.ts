import { fadeMultiplier } from './fades';
import type { ResolvedMedia, ResolvedTiming } from '../schema/resolve';
import { duckGain } from './ducking';
import { transitionVolume } from './element-style';

/**
 * Volume of a video's or audio's sound at `frame` (counted from the element's first frame): its
 * own volume, its fades, the transitions it takes part in and its ducking. The composition hands
 * it to `<Audio>`/`<Video>`; the worker's ffmpeg mix (src/renders/engine/timeline-sound.ts)
 * evaluates the same function per frame, so both sounds agree.
 */
export function mediaVolumeAt(element: ResolvedTiming & Pick<ResolvedMedia, 'volume' | 'duck'>, frame: number, fps: number): number {
  return element.volume * fadeMultiplier(frame, element) * transitionVolume(element, frame, fps) * duckGain(element.duck, (element.from + frame) / fps);
}

import { resolveRequest, type CompositionProps, type MediaInfo, type RenderRequest } from './schema';

/** The `<Player>` props that describe the video: size, frame rate, length and the composition's input. */
export interface PlayerPropsFor {
  inputProps: CompositionProps;
  compositionWidth: number;
  compositionHeight: number;
  fps: number;
  durationInFrames: number;
}

/**
 * What `<Player component={Main} {...playerPropsFor(request)} />` needs, resolved by the same
 * `resolveRequest` the server renders with, so the preview has the render's size, rate and length.
 * `media` (source URL → probed duration and size) matters when the request leaves them to its
 * sources; without it, video and audio lengths come from `out_point` only.
 */
export function playerPropsFor(request: RenderRequest, media: Record<string, MediaInfo> = {}): PlayerPropsFor {
  const { width, height, fps, durationInFrames } = resolveRequest(request, media);
  return { inputProps: { request, media }, compositionWidth: width, compositionHeight: height, fps, durationInFrames };
}

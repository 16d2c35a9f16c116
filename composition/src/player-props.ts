import { resolveRequest, type CompositionProps, type MediaInfo, type RenderRequest, type TranscriptWords } from './schema';

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
 * sources; without it, video and audio lengths come from `out_point` only. `transcripts` are the
 * words behind captions (`transcript.source` → words), as the render resolved them.
 */
export function playerPropsFor(request: RenderRequest, media: Record<string, MediaInfo> = {}, transcripts?: TranscriptWords): PlayerPropsFor {
  const { width, height, fps, durationInFrames } = resolveRequest(request, media);
  return { inputProps: { request, media, ...(transcripts ? { transcripts } : {}) }, compositionWidth: width, compositionHeight: height, fps, durationInFrames };
}

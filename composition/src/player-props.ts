import { resolveRequest, type CompositionProps, type FontFaceSource, type MediaInfo, type RenderRequest, type TranscriptWords } from './schema';

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
 * words behind captions (`transcript.source` → words), as the render resolved them. `fontFaces`:
 * the faces of Google Fonts families the request uses (`faces` of GET /v1/fonts/{family}); shipped
 * families, fallbacks by script and the request's `fonts` with a `family` need none.
 */
export function playerPropsFor(
  request: RenderRequest,
  media: Record<string, MediaInfo> = {},
  transcripts?: TranscriptWords,
  fontFaces?: FontFaceSource[],
): PlayerPropsFor {
  const { width, height, fps, durationInFrames } = resolveRequest(request, media);
  const inputProps = { request, media, ...(transcripts ? { transcripts } : {}), ...(fontFaces?.length ? { fontFaces } : {}) };
  return { inputProps, compositionWidth: width, compositionHeight: height, fps, durationInFrames };
}

import type { MediaInfo, RenderRequest } from '../../../../composition/src/schema';
import { audibleSpans, decodeMono, speechSpans } from '../../../infra/media/sound-analysis';

/** Per source URL, the spans found; reported on the job so a Player given them ducks the same. */
export type SoundAnalysis = Record<string, Pick<MediaInfo, 'audible_spans' | 'speech_spans'>>;

/**
 * Adds to `media` what auto-ducking needs, once per source file: audible spans of every element
 * named in a `duck.under` list, speech spans of every sound element when some element ducks under
 * "speech". resolveRequest turns them into each ducked element's gain curve.
 */
export async function analyseSoundForDucking(
  request: RenderRequest,
  inputs: readonly { url: string; file: string }[],
  media: Record<string, MediaInfo>,
  signal: AbortSignal,
): Promise<SoundAnalysis> {
  const analysis: SoundAnalysis = {};
  const elements = request.elements ?? [];
  const sounds = elements.filter((element) => (element.type === 'audio' || element.type === 'video') && element.visible !== false);
  const named = new Set(sounds.flatMap((element) => (element.type === 'audio' || element.type === 'video') && Array.isArray(element.duck?.under) ? element.duck.under : []));
  const wantsSpeech = sounds.some((element) => (element.type === 'audio' || element.type === 'video') && element.duck?.under === 'speech');
  const audibleUrls = new Set(sounds.filter((element) => element.id !== undefined && named.has(element.id)).map((element) => (element as { source_url: string }).source_url));
  const speechUrls = new Set(wantsSpeech ? sounds.map((element) => (element as { source_url: string }).source_url) : []);
  for (const url of new Set([...audibleUrls, ...speechUrls])) {
    const info = media[url];
    const input = inputs.find((candidate) => candidate.url === url);
    if (!info || !input || info.has_audio === false) continue;
    const samples = await decodeMono(input.file, signal);
    if (audibleUrls.has(url)) info.audible_spans = audibleSpans(samples);
    if (speechUrls.has(url)) info.speech_spans = await speechSpans(samples);
    analysis[url] = { ...(info.audible_spans ? { audible_spans: info.audible_spans } : {}), ...(info.speech_spans ? { speech_spans: info.speech_spans } : {}) };
  }
  return analysis;
}

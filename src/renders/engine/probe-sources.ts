import type { CompositionProps, ResolvedRequest } from '../../../composition/src/schema';
import type { SourceFacts } from './planner/source-facts';
import { probeAudio } from './sound/timeline-sound';
import { timelineSoundPlan } from './sound/timeline-sound-plan';
import { sourceProblem } from './strategies/media-composite/source-check';

/**
 * What the planner needs to know of a whole-timeline render's downloaded sources (SourceFacts):
 * each clip's pictures probed when the composite may take it, each sounding source's stream when
 * the worker may mix the sound. The plan's only I/O, done before it.
 */
export async function probeSources(
  props: Pick<CompositionProps, 'request' | 'media' | 'sources'>,
  resolved: ResolvedRequest,
  fileAt: (localUrl: string) => string | null,
  options: { pictures: boolean; sounds: boolean; signal: AbortSignal },
): Promise<SourceFacts> {
  const sources = props.sources ?? {};
  const facts: SourceFacts = { files: {}, pictures: {}, sounds: {} };
  const local = (url: string) => {
    if (!(url in facts.files)) {
      const file = sources[url] ? fileAt(sources[url]) : null;
      if (file) facts.files[url] = file;
    }
    return facts.files[url] ?? null;
  };
  if (options.pictures) {
    for (const element of resolved.elements) {
      if (element.type !== 'video' || element.src in facts.pictures) continue;
      const file = local(element.src);
      if (file) facts.pictures[element.src] = await sourceProblem(file, options.signal);
    }
  }
  const sound = options.sounds && resolved.hasAudio ? timelineSoundPlan(props, resolved) : null;
  for (const clip of sound?.ok ? sound.clips : []) {
    const file = local(clip.src);
    if (!file || clip.src in facts.sounds) continue;
    // A source ffprobe cannot read is left to the page, which reports it in its own words.
    facts.sounds[clip.src] = await probeAudio(file, options.signal).catch((error: unknown) => {
      options.signal.throwIfAborted();
      return { problem: error instanceof Error ? error.message.split('\n')[0] : String(error) };
    });
  }
  return facts;
}

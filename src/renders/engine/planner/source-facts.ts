/**
 * What the planner needs to know about a render's downloaded sources beyond `media` (probed at
 * intake): their local copies, whether ffmpeg converts a clip's pictures as the page does, and
 * each sounding source's audio stream. Gathered before planning (gatherSourceFacts, the only I/O
 * of a plan), so the planner itself stays pure.
 */
export interface SourceFacts {
  /** Request URL → the worker's local copy; absent when it has none. */
  files: Record<string, string>;
  /** Video source URL → why ffmpeg would not convert its pictures as the page does; null when it would. */
  pictures: Record<string, string | null>;
  /** Sounding source URL → its first audio stream, null when it has none, or why it could not be probed. */
  sounds: Record<string, AudioStream | null | { problem: string }>;
}

/** A source's first audio stream, as timeline-sound.ts decodes it. */
export interface AudioStream {
  codec: string;
  sampleRate: number;
  channels: number;
}

/** No sources known (a request with no media, or a plan made without looking: tests, previews). */
export const NO_FACTS: SourceFacts = { files: {}, pictures: {}, sounds: {} };

import { EngineTranscript, EngineWord } from './engines/speech-engine';

/** A word of the result, AssemblyAI's shape: times in ms from the start of the audio. */
export type TranscriptWord = EngineWord;

export interface Utterance {
  speaker: string | null;
  text: string;
  start: number;
  end: number;
  confidence: number;
  words: TranscriptWord[];
}

export interface Transcript {
  text: string;
  language_code: string;
  /** Seconds of audio. */
  duration: number;
  confidence: number;
  words: TranscriptWord[];
  utterances: Utterance[];
}

/**
 * The result's core from an engine's output. Words are ordered and kept inside the audio. With
 * speaker labels an utterance is a speaker's uninterrupted turn (as AssemblyAI has it); without,
 * it is one of the engine's segments (a stretch of speech between pauses).
 */
export function buildTranscript(engine: EngineTranscript, durationSeconds: number): Transcript {
  const limit = Math.round(durationSeconds * 1000);
  const clamp = (word: EngineWord): EngineWord => {
    const start = Math.min(Math.max(0, word.start), limit);
    return { ...word, start, end: Math.min(Math.max(start, word.end), limit) };
  };
  const segments = engine.segments.map((segment) => segment.map(clamp).sort((a, b) => a.start - b.start)).filter((s) => s.length > 0);
  segments.sort((a, b) => a[0].start - b[0].start);
  const words = segments.flat();
  const diarized = words.some((w) => w.speaker !== null);
  const groups = diarized ? speakerTurns(words) : segments;
  const utterances = groups.map(utteranceOf);
  return {
    text: utterances.map((u) => u.text).join(' '),
    language_code: engine.language_code,
    duration: durationSeconds,
    confidence: meanConfidence(words),
    words,
    utterances,
  };
}

function speakerTurns(words: EngineWord[]): EngineWord[][] {
  const turns: EngineWord[][] = [];
  for (const word of words) {
    const last = turns[turns.length - 1];
    if (last && last[0].speaker === word.speaker) last.push(word);
    else turns.push([word]);
  }
  return turns;
}

function utteranceOf(words: EngineWord[]): Utterance {
  return {
    speaker: words[0].speaker,
    text: words.map((w) => w.text).join(' '),
    start: words[0].start,
    end: words[words.length - 1].end,
    confidence: meanConfidence(words),
    words,
  };
}

function meanConfidence(words: EngineWord[]): number {
  if (words.length === 0) return 0;
  return Math.round((words.reduce((sum, w) => sum + w.confidence, 0) / words.length) * 1e4) / 1e4;
}

import type { SpeechEngineName } from '../../../config/app-config';

// The engine names belong to the configuration (`TRANSCRIBE_ENGINE`); re-exported for the engines.
export { SPEECH_ENGINE_NAMES, type SpeechEngineName } from '../../../config/app-config';

/**
 * What an engine can do, published per engine in `/v1/capabilities` and checked at submit: a
 * request that asks for something its engine cannot do is refused (422 `unsupported_feature`).
 */
export interface EngineCapabilities {
  /** BCP-47 codes `language_code` may name; `null`: any code the engine's service accepts. */
  languages: string[] | null;
  /** Whether `language_code` may be omitted to have the language detected. */
  language_detection: boolean;
  /** The language transcribed when `language_code` is omitted and the engine cannot detect one. */
  default_language: string | null;
  speaker_labels: boolean;
  punctuate: boolean;
}

export interface EngineWord {
  text: string;
  /** Milliseconds from the start of the audio. */
  start: number;
  end: number;
  /** 0–1. */
  confidence: number;
  /** Diarization label (`A`, `B`, …) when speaker labels were asked for, else null. */
  speaker: string | null;
}

export interface EngineTranscript {
  language_code: string;
  /** The engine's own segmentation (pauses, result boundaries), in order; utterances follow it when there are no speakers. */
  segments: EngineWord[][];
}

export interface EngineRequest {
  /** 16 kHz mono 16-bit PCM WAV. */
  wavFile: string;
  durationSeconds: number;
  /** Null: detect (engines that can), else the engine's default language. */
  languageCode: string | null;
  speakerLabels: boolean;
  speakersExpected: number | null;
  punctuate: boolean;
  /** Storage key an engine may stage the audio under (Google, for audio too long to send inline). */
  stagingKey: string;
  signal: AbortSignal;
  /** Fraction 0–1 of the audio recognised so far, when the engine can tell. */
  onProgress: (fraction: number) => void;
}

/** One speech-to-text engine. Failures it knows to be permanent are TaskFailures; anything else may be retried. */
export abstract class SpeechEngine {
  abstract readonly name: SpeechEngineName;
  abstract readonly capabilities: EngineCapabilities;
  abstract transcribe(request: EngineRequest): Promise<EngineTranscript>;
}

/** Diarization labels as AssemblyAI writes them: speaker 1 → `A`, 2 → `B`, … 27 → `AA`. */
export function speakerLabel(index: number): string {
  let label = '';
  for (let n = index; n > 0; n = Math.floor((n - 1) / 26)) label = String.fromCharCode(65 + ((n - 1) % 26)) + label;
  return label;
}

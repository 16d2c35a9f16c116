import { readFile, stat } from 'node:fs/promises';
import type { v1 } from '@google-cloud/speech';
import type { google } from '@google-cloud/speech/build/protos/protos';
import type * as GcsStorageModule from '../../../infra/storage/gcs-storage';
import { Storage } from '../../../infra/storage/storage';
import { TaskFailure } from '../../task-failure';
import { EngineCapabilities, EngineRequest, EngineTranscript, EngineWord, SpeechEngine, speakerLabel } from './speech-engine';

type IWordInfo = google.cloud.speech.v1.IWordInfo;
type IDuration = google.protobuf.IDuration;

/**
 * v1 recognition detects the language among a primary code and at most three alternatives, so
 * an omitted `language_code` is detected among these.
 */
export const GOOGLE_DETECTABLE_LANGUAGES = ['en-US', 'es-ES', 'fr-FR', 'de-DE'];

export const GOOGLE_CAPABILITIES: EngineCapabilities = {
  languages: null,
  language_detection: true,
  default_language: null,
  speaker_labels: true,
  punctuate: true,
};

/** Google refuses inline audio over 10 MB; longer audio is read from Cloud Storage. */
export const GOOGLE_INLINE_AUDIO_BYTES = 10 * 1024 * 1024;

/** gRPC status codes that no retry will change. */
const PERMANENT_GRPC_CODES: Record<number, string> = { 3: 'INVALID_ARGUMENT', 7: 'PERMISSION_DENIED', 16: 'UNAUTHENTICATED', 9: 'FAILED_PRECONDITION', 5: 'NOT_FOUND' };

/**
 * Google Cloud Speech-to-Text v1 long-running recognition with word time offsets and, when asked,
 * diarization. Audio up to 10 MB goes inline; larger audio is staged in the GCS bucket (the
 * service's Storage must then be GCS) and deleted afterwards.
 */
export class GoogleSpeechEngine extends SpeechEngine {
  readonly name = 'google' as const;
  readonly capabilities = GOOGLE_CAPABILITIES;

  constructor(
    private readonly client: v1.SpeechClient,
    private readonly storage: Storage,
  ) {
    super();
  }

  async transcribe(request: EngineRequest): Promise<EngineTranscript> {
    const primary = request.languageCode ?? GOOGLE_DETECTABLE_LANGUAGES[0];
    const config: google.cloud.speech.v1.IRecognitionConfig = {
      encoding: 'LINEAR16',
      sampleRateHertz: 16000,
      audioChannelCount: 1,
      languageCode: primary,
      alternativeLanguageCodes: request.languageCode ? [] : GOOGLE_DETECTABLE_LANGUAGES.slice(1),
      enableWordTimeOffsets: true,
      enableWordConfidence: true,
      enableAutomaticPunctuation: request.punctuate,
      diarizationConfig: request.speakerLabels
        ? {
            enableSpeakerDiarization: true,
            minSpeakerCount: request.speakersExpected ?? 1,
            maxSpeakerCount: request.speakersExpected ?? 6,
          }
        : undefined,
    };
    const { audio, cleanUp } = await this.audioOf(request);
    try {
      const [operation] = await this.client.longRunningRecognize({ config, audio });
      request.onProgress(0.1);
      const abort = () => void operation.cancel().catch(() => undefined);
      request.signal.addEventListener('abort', abort, { once: true });
      try {
        const [response] = await operation.promise();
        request.signal.throwIfAborted();
        return this.transcriptOf(response, request.speakerLabels, primary);
      } finally {
        request.signal.removeEventListener('abort', abort);
      }
    } catch (error) {
      request.signal.throwIfAborted();
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'number' && PERMANENT_GRPC_CODES[code]) {
        const failure = code === 3 ? 'invalid_source' : 'internal';
        throw new TaskFailure(failure, `Google Speech-to-Text refused the request (${PERMANENT_GRPC_CODES[code]}): ${(error as Error).message}`);
      }
      throw error;
    } finally {
      await cleanUp();
    }
  }

  private async audioOf(request: EngineRequest): Promise<{ audio: google.cloud.speech.v1.IRecognitionAudio; cleanUp: () => Promise<void> }> {
    const { size } = await stat(request.wavFile);
    if (size <= GOOGLE_INLINE_AUDIO_BYTES) return { audio: { content: await readFile(request.wavFile) }, cleanUp: async () => undefined };
    // The GCS driver (and its SDK) loads only here: this module's capabilities are read at every start.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { GcsStorage } = require('../../../infra/storage/gcs-storage') as typeof GcsStorageModule;
    if (!(this.storage instanceof GcsStorage)) {
      throw new TaskFailure(
        'unsupported_feature',
        `The audio is ${Math.round(request.durationSeconds)} s long; Google reads audio over 10 MB (about 5 minutes) only from Cloud Storage, and this deployment has no GCS_BUCKET`,
      );
    }
    const storage = this.storage;
    await storage.putFile(request.stagingKey, request.wavFile, 'audio/wav');
    return { audio: { uri: storage.uriOf(request.stagingKey) }, cleanUp: () => storage.delete(request.stagingKey).catch(() => undefined) };
  }

  /**
   * With diarization, Google repeats every word with its speaker tag in the top alternative of the
   * final result only; the earlier results carry no tags. Without it, each result is a segment.
   */
  private transcriptOf(response: google.cloud.speech.v1.ILongRunningRecognizeResponse, diarized: boolean, fallbackLanguage: string): EngineTranscript {
    const results = (response.results ?? []).filter((r) => (r.alternatives ?? []).length > 0);
    const language = results.find((r) => r.languageCode)?.languageCode ?? fallbackLanguage;
    const toWords = (infos: IWordInfo[], confidence: number, withSpeaker: boolean): EngineWord[] =>
      infos
        .filter((info) => info.word)
        .map((info) => ({
          text: info.word!,
          start: toMs(info.startTime),
          end: toMs(info.endTime),
          // protobuf floats are 32-bit: 0.9 arrives as 0.8999999761581421.
          confidence: Math.round((info.confidence ?? confidence) * 1e4) / 1e4,
          speaker: withSpeaker && info.speakerTag ? speakerLabel(info.speakerTag) : null,
        }));
    if (diarized && results.length > 0) {
      const final = results[results.length - 1].alternatives![0];
      const words = toWords(final.words ?? [], final.confidence ?? 0, true);
      return { language_code: normaliseLanguage(language), segments: words.length > 0 ? [words] : [] };
    }
    const segments = results
      .map((r) => r.alternatives![0])
      .map((top) => toWords(top.words ?? [], top.confidence ?? 0, false))
      .filter((words) => words.length > 0);
    return { language_code: normaliseLanguage(language), segments };
  }
}

/** protobuf Duration → ms; `seconds` arrives as a string (int64) or a Long. */
function toMs(duration: IDuration | null | undefined): number {
  if (!duration) return 0;
  return Math.round(Number(duration.seconds ?? 0) * 1000 + (duration.nanos ?? 0) / 1e6);
}

/** Google answers `en-us`; the API speaks BCP-47 with a capitalised region (`en-US`). */
function normaliseLanguage(code: string): string {
  const [lang, region, ...rest] = code.split('-');
  return [lang.toLowerCase(), ...(region ? [region.length === 2 ? region.toUpperCase() : region] : []), ...rest].join('-');
}

import { ApiError, ValidationErrorItem } from '../../common/errors/api-error';
import type { TranscribeRequestDto } from '../dto/transcribe-request.dto';
import { ANALYSES, AnalysisName } from './analysis-types';
import { EngineCapabilities, SpeechEngineName } from './engines/speech-engine';

/** A transcribe request with its defaults applied, as the worker uses it. */
export interface TranscribeOptions {
  sourceUrl: string;
  languageCode: string | null;
  speakerLabels: boolean;
  speakersExpected: number | null;
  /** Null: the engine's default. */
  punctuate: boolean | null;
  analyses: Set<AnalysisName>;
}

export function transcribeOptionsOf(request: Partial<TranscribeRequestDto>): TranscribeOptions {
  return {
    sourceUrl: String(request.source_url),
    languageCode: request.language_code ?? null,
    speakerLabels: request.speaker_labels ?? false,
    speakersExpected: request.speakers_expected ?? null,
    punctuate: request.punctuate ?? null,
    analyses: new Set(ANALYSES.filter((name) => request[name] === true)),
  };
}

/**
 * Submit: the options must make sense together (422 invalid_request) and the configured engine
 * must be able to do each one asked for (422 unsupported_feature); nothing is silently dropped.
 */
export function assertEngineCanDo(options: TranscribeOptions, engine: SpeechEngineName, can: EngineCapabilities): void {
  if (options.speakersExpected !== null && !options.speakerLabels) {
    const item: ValidationErrorItem = {
      type: 'value_error',
      loc: ['body', 'speakers_expected'],
      msg: 'speakers_expected needs speaker_labels: true',
      pointer: '/speakers_expected',
    };
    throw ApiError.validation([item]);
  }
  const refused: { pointer: string; reason: string }[] = [];
  if (options.speakerLabels && !can.speaker_labels) refused.push({ pointer: '/speaker_labels', reason: 'speaker labels (diarization)' });
  if (options.punctuate === true && !can.punctuate) refused.push({ pointer: '/punctuate', reason: 'punctuation' });
  if (options.languageCode !== null && can.languages !== null && !can.languages.some((l) => l.toLowerCase() === options.languageCode!.toLowerCase())) {
    refused.push({ pointer: '/language_code', reason: `language ${options.languageCode} (it has ${can.languages.join(', ')})` });
  }
  if (refused.length > 0) {
    throw new ApiError(
      'unsupported_feature',
      `The ${engine} transcribe engine of this deployment cannot do ${refused.map((r) => r.reason).join(', ')}; GET /v1/capabilities lists what it can`,
      {
        engine,
        // The same item shape as every other details.errors (type, loc, msg, pointer).
        errors: refused.map((r) => ({
          type: 'unsupported_feature',
          loc: ['body', r.pointer.slice(1)],
          msg: `Not supported by the ${engine} engine: ${r.reason}`,
          pointer: r.pointer,
        })),
      },
    );
  }
}

import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { MediaIntakeService } from '../../assets/media-intake.service';
import { SourceFailure } from '../../assets/source-failure';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Job, ProgressStage } from '../../jobs/job.entity';
import { QuotaService } from '../../jobs/quota.service';
import { probeMedia } from '../../infra/media/probe';
import { TaskFailure } from '../task-failure';
import type * as AnalysisModule from './analysis';
import type { Analyses } from './analysis-types';
import { extractAudio, SILENCE_PEAK_DB } from './audio';
import { SpeechEngine } from './engines/speech-engine';
import { buildTranscript, Transcript } from './transcript';
import { transcribeOptionsOf } from './transcribe-options';

export type TranscribeResult = Transcript & Analyses;
export type TaskProgress = (stage: ProgressStage | null, percent: number) => void;

/**
 * Progress of a transcription: fetching the source, then extracting the audio, then recognition
 * (no spec stage names it, so the stage is null while the engine works).
 */
const FETCH_SHARE = [0, 10];
const RECOGNITION_SHARE = [20, 95];

/**
 * One transcribe task from source to result: bring the source in (MediaIntakeService, as renders do),
 * check it holds audio, extract 16 kHz mono PCM with ffmpeg, recognise it with the configured
 * engine, and run the requested analyses. Testable without the queue.
 */
@Injectable()
export class TranscriptionService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly intake: MediaIntakeService,
    private readonly engine: SpeechEngine,
    private readonly quota: QuotaService,
  ) {}

  async run(job: Job, signal: AbortSignal, report: TaskProgress): Promise<TranscribeResult> {
    const options = transcribeOptionsOf(job.request);
    const workRoot = path.join(this.config.dataDir, 'work');
    await mkdir(workRoot, { recursive: true });
    const workDir = await mkdtemp(path.join(workRoot, `${job.id}-`));
    try {
      report('downloading', FETCH_SHARE[0]);
      const source = path.join(workDir, 'source');
      let contentType: string | null;
      try {
        ({ contentType } = await this.intake.fetchInput(job, { url: options.sourceUrl, pointer: '/source_url', kind: 'audio' }, source, signal));
      } catch (error) {
        signal.throwIfAborted();
        if (error instanceof SourceFailure) throw new TaskFailure(error.code, error.message);
        throw error;
      }
      report('encoding', FETCH_SHARE[1]);
      const probed = await probeMedia(source);
      if (!probed) {
        const size = (await stat(source)).size;
        throw new TaskFailure('codec_unsupported', `The file at source_url (${size} bytes, ${contentType ?? 'unknown type'}) is not audio or video that can be decoded`);
      }
      if (!probed.has_audio) throw new TaskFailure('invalid_source', 'The file at source_url has no audio track to transcribe');
      const audio = await extractAudio(source, path.join(workDir, 'audio.wav'), signal);
      // The audio's real length replaces the submit-time estimate in the month's allowance.
      await this.quota.confirm('transcribe', job, audio.durationSeconds);
      if (audio.durationSeconds === 0 || audio.peakDb <= SILENCE_PEAK_DB) {
        const level = Number.isFinite(audio.peakDb) ? `peaks at ${audio.peakDb} dB` : 'is digital silence';
        throw new TaskFailure('no_speech', `The audio track is silent (${audio.durationSeconds.toFixed(1)} s, ${level}); there is no speech to transcribe`);
      }
      report(null, RECOGNITION_SHARE[0]);
      const recognised = await this.engine.transcribe({
        wavFile: audio.file,
        durationSeconds: audio.durationSeconds,
        languageCode: options.languageCode,
        speakerLabels: options.speakerLabels,
        speakersExpected: options.speakersExpected,
        punctuate: options.punctuate ?? this.engine.capabilities.punctuate,
        stagingKey: `${job.workspaceId}/tasks/${job.id}.wav`,
        signal,
        onProgress: (fraction) => report(null, lerp(RECOGNITION_SHARE, fraction)),
      });
      signal.throwIfAborted();
      const transcript = buildTranscript(recognised, Math.round(audio.durationSeconds * 1000) / 1000);
      // The NLP libraries and their English model load here, on the first transcript, not at every start.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain require: the build is CommonJS and jest resolves it to the .ts
      const { analyse } = require('./analysis') as typeof AnalysisModule;
      return { ...transcript, ...analyse(transcript.utterances, options.analyses) };
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }
}

function lerp([from, to]: number[], fraction: number): number {
  return Math.round(from + (to - from) * Math.min(1, Math.max(0, fraction)));
}

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { probeMedia } from '../../infra/media/probe';
import { QuotaService } from '../../jobs/quota.service';
import { extractAudio, SILENCE_PEAK_DB } from './audio';
import { SpeechEngine } from './engines/speech-engine';
import { buildTranscript, Transcript, TranscriptWord } from './transcript';
import { TranscriptCacheRepository } from './transcript-cache.repository';

/** A render source whose speech is wanted: the workspace, the URL as the request names it, and its local copy. */
export interface SpeechSource {
  workspaceId: string;
  /** The source URL as written in the request: the cache key (with the workspace and engine). */
  sourceUrl: string;
  /** The render's local copy of that URL (the pipeline has already brought it in). */
  file: string;
  signal: AbortSignal;
  /** Fraction 0–1 of the recognition, only when it actually runs (not on a cache hit). */
  onProgress?: (fraction: number) => void;
}

/**
 * Speech of render sources (captions from an element, ducking under speech): recognised by the
 * configured transcribe engine once per source URL per workspace, then read from
 * `transcript_cache`. Concurrent renders of the same source wait on a PostgreSQL advisory lock
 * instead of recognising it twice. A source without audio, or a silent one, has no words (a
 * render is not failed for it, unlike a transcribe task).
 */
@Injectable()
export class TranscriptCacheService {
  constructor(
    private readonly rows: TranscriptCacheRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly engine: SpeechEngine,
    private readonly quota: QuotaService,
  ) {}

  /** The words with their times (ms from the start of the source's audio). */
  async words(source: SpeechSource): Promise<TranscriptWord[]> {
    return (await this.transcript(source)).words;
  }

  /** The whole transcript (text, words, utterances) of the source. */
  async transcript(source: SpeechSource): Promise<Transcript> {
    const key = { workspaceId: source.workspaceId, sourceUrl: source.sourceUrl, engine: this.engine.name };
    const cached = await this.rows.find(key);
    if (cached) return cached;
    return this.rows.whileLocked(key, async () => {
      // Another render may have recognised it while this one waited for the lock.
      const done = await this.rows.find(key);
      if (done) return done;
      const transcript = await this.recognise(source);
      await this.rows.save(key, transcript);
      return transcript;
    });
  }

  private async recognise(source: SpeechSource): Promise<Transcript> {
    const probed = await probeMedia(source.file);
    const empty: Transcript = { text: '', language_code: this.engine.capabilities.default_language ?? '', duration: probed?.duration ?? 0, confidence: 0, words: [], utterances: [] };
    if (!probed?.has_audio) return empty;
    // Speech recognised for a render counts against the month's transcription minutes, as a task's does.
    await this.quota.assertRoom('transcribe', source.workspaceId, probed.duration ?? 0);
    const workRoot = path.join(this.config.dataDir, 'work');
    await mkdir(workRoot, { recursive: true });
    const workDir = await mkdtemp(path.join(workRoot, 'transcript-'));
    try {
      const audio = await extractAudio(source.file, path.join(workDir, 'audio.wav'), source.signal);
      if (audio.durationSeconds === 0 || audio.peakDb <= SILENCE_PEAK_DB) return { ...empty, duration: audio.durationSeconds };
      const recognised = await this.engine.transcribe({
        wavFile: audio.file,
        durationSeconds: audio.durationSeconds,
        languageCode: null,
        speakerLabels: false,
        speakersExpected: null,
        punctuate: this.engine.capabilities.punctuate,
        stagingKey: `${source.workspaceId}/transcripts/${path.basename(workDir)}.wav`,
        signal: source.signal,
        onProgress: (fraction) => source.onProgress?.(fraction),
      });
      source.signal.throwIfAborted();
      return buildTranscript(recognised, Math.round(audio.durationSeconds * 1000) / 1000);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }
}

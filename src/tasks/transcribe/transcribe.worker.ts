import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { JobRunnerService, JobWork } from '../../jobs/job-runner.service';
import { PocketsphinxEngine } from './engines/pocketsphinx.engine';
import { SpeechEngine } from './engines/speech-engine';
import { TRANSCRIBE_DEAD_LETTER_QUEUE, TRANSCRIBE_QUEUE, TRANSCRIBE_RETRY_LIMIT } from './transcribe-queue';
import { TranscriptionService } from './transcription.service';

/** The `transcribe` queue's handler, kept thin: the shared JobRunnerService around TranscriptionService. */
@Injectable()
export class TranscribeWorker implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runner: JobRunnerService,
    private readonly transcription: TranscriptionService,
    private readonly engine: SpeechEngine,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // A worker that cannot run its engine must not start (and take jobs it would fail).
    await this.runner.serve(this.work, this.config.transcribe.concurrency, async () => {
      if (this.engine instanceof PocketsphinxEngine) await this.engine.assertAvailable();
    });
  }

  private readonly work: JobWork = {
    kind: 'task',
    queue: TRANSCRIBE_QUEUE,
    deadLetterQueue: TRANSCRIBE_DEAD_LETTER_QUEUE,
    label: 'Transcription',
    retryLimit: TRANSCRIBE_RETRY_LIMIT,
    run: async (job, signal, report) => ({ result: await this.transcription.run(job, signal, report) }),
  };
}

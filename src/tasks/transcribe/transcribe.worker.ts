import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Job as QueueJob } from 'pg-boss';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { QueueService } from '../../infra/queue/queue.service';
import { JobRunner, JobWork } from '../../jobs/job-runner';
import { PocketsphinxEngine } from './engines/pocketsphinx.engine';
import { SpeechEngine } from './engines/speech-engine';
import { TRANSCRIBE_DEAD_LETTER_QUEUE, TRANSCRIBE_QUEUE, TRANSCRIBE_RETRY_LIMIT, TranscribeQueuePayload } from './transcribe-queue';
import { TranscriptionService } from './transcription.service';

/** The `transcribe` queue's handler, kept thin: the shared JobRunner around TranscriptionService. */
@Injectable()
export class TranscribeWorker implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: QueueService,
    private readonly runner: JobRunner,
    private readonly transcription: TranscriptionService,
    private readonly engine: SpeechEngine,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.ensureQueue(TRANSCRIBE_DEAD_LETTER_QUEUE, { retryLimit: 5, retryDelay: 5 });
    await this.queue.ensureQueue(TRANSCRIBE_QUEUE, {
      retryLimit: TRANSCRIBE_RETRY_LIMIT,
      retryDelay: 5,
      expireInSeconds: 4 * 3600,
      heartbeatSeconds: this.config.render.heartbeatSeconds,
      deadLetter: TRANSCRIBE_DEAD_LETTER_QUEUE,
      notify: true,
    });
    if (!this.queue.runsWorkers) return;
    // A worker that cannot run its engine must not start (and take jobs it would fail).
    if (this.engine instanceof PocketsphinxEngine) await this.engine.assertAvailable();
    this.queue.registerWorker<TranscribeQueuePayload>(TRANSCRIBE_QUEUE, (jobs) => this.handle(jobs), {
      localConcurrency: this.config.transcribe.concurrency,
      batchSize: 1,
      pollingIntervalSeconds: 1,
      notifyPollingIntervalSeconds: 1,
    });
    this.queue.registerWorker<TranscribeQueuePayload>(TRANSCRIBE_DEAD_LETTER_QUEUE, async (jobs) => {
      for (const dead of jobs) await this.runner.failDead(dead, this.work);
    });
  }

  async handle(jobs: QueueJob<TranscribeQueuePayload>[]): Promise<void> {
    for (const queued of jobs) await this.runner.process(queued, this.work);
  }

  private readonly work: JobWork = {
    kind: 'task',
    label: 'Transcription',
    retryLimit: TRANSCRIBE_RETRY_LIMIT,
    run: async (job, signal, report) => ({ result: await this.transcription.run(job, signal, report) }),
  };
}

import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Job as QueueJob } from 'pg-boss';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { EventPublisher } from '../../events/event-publisher';
import { QueueService } from '../../infra/queue/queue.service';
import { Job } from '../../jobs/job.entity';
import { ProgressWriter } from '../../jobs/progress-writer';
import { TaskFailure } from '../task-failure';
import { PocketsphinxEngine } from './engines/pocketsphinx.engine';
import { SpeechEngine } from './engines/speech-engine';
import { TRANSCRIBE_DEAD_LETTER_QUEUE, TRANSCRIBE_QUEUE, TRANSCRIBE_RETRY_LIMIT, TranscribeQueuePayload } from './transcribe-queue';
import { TranscriptionService } from './transcription.service';

/**
 * The `transcribe` queue's handler, kept thin: claim the row, run TranscriptionService, record the
 * outcome and publish `task.*` events as the render worker does for renders.
 */
@Injectable()
export class TranscribeWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('TranscribeWorker');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: QueueService,
    private readonly transcription: TranscriptionService,
    private readonly engine: SpeechEngine,
    private readonly events: EventPublisher,
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
      for (const dead of jobs) {
        if (typeof dead.data?.job_id === 'string') {
          await this.fail(dead.data.job_id, 'internal', `Transcription failed after ${TRANSCRIBE_RETRY_LIMIT + 1} attempts`);
        }
      }
    });
  }

  async handle(jobs: QueueJob<TranscribeQueuePayload>[]): Promise<void> {
    for (const queued of jobs) await this.process(queued);
  }

  private async process(queued: QueueJob<TranscribeQueuePayload>): Promise<void> {
    const jobId = typeof queued.data?.job_id === 'string' ? queued.data.job_id : null;
    if (!jobId) {
      this.logger.error(`Dropping malformed queue entry ${queued.id}`);
      return;
    }
    const job = await this.claim(jobId);
    if (!job) return; // cancelled or already finished
    const abort = new AbortController();
    queued.signal?.addEventListener('abort', () => abort.abort(new Error('queue expiry')), { once: true });
    const progress = new ProgressWriter(this.db, job.id, abort);
    try {
      const result = await this.transcription.run(job, abort.signal, (stage, percent) => {
        progress.report(stage, percent);
        // Not awaited: the publisher throttles, and a progress event never holds up the work.
        void this.events.jobEvent('task.progress', { ...job, progressStage: stage, progressPercent: Math.min(99, Math.floor(percent)) });
      });
      await progress.stop();
      const [, completed]: [unknown, number] = await this.db.query(
        `UPDATE jobs SET status = 'completed', result = $2, progress_percent = 100, progress_stage = NULL,
           completed_at = now(), updated_at = now()
         WHERE id = $1 AND status = 'processing'`,
        [job.id, JSON.stringify(result)],
      );
      if (completed > 0) await this.publishOutcome('task.completed', job.id);
    } catch (error) {
      await progress.stop();
      if (abort.signal.aborted && !queued.signal?.aborted) return; // cancelled by the user
      if (error instanceof TaskFailure) {
        await this.fail(job.id, error.code, error.message);
        return;
      }
      if (queued.retryCount < TRANSCRIBE_RETRY_LIMIT) {
        this.logger.warn(`Transcription ${job.id} attempt ${queued.retryCount + 1} failed, will retry: ${(error as Error).message}`);
        throw error;
      }
      this.logger.error(`Transcription ${job.id} failed: ${(error as Error).stack ?? error}`);
      await this.fail(job.id, 'internal', 'Transcription failed unexpectedly; the error has been logged');
    }
  }

  /** queued → processing; a retried job is already processing and is claimed again. */
  private async claim(jobId: string): Promise<Job | null> {
    const [rows] = await this.db.query(
      `UPDATE jobs SET status = 'processing', started_at = COALESCE(started_at, now()), attempts = attempts + 1,
         progress_percent = 0, progress_stage = 'downloading', updated_at = CASE WHEN status = 'queued' THEN now() ELSE updated_at END
       WHERE id = $1 AND status IN ('queued', 'processing') RETURNING id`,
      [jobId],
    );
    if (!rows?.length) return null;
    return this.db.getRepository(Job).findOneBy({ id: jobId });
  }

  private async fail(jobId: string, code: string, message: string): Promise<void> {
    const [, failed]: [unknown, number] = await this.db.query(
      `UPDATE jobs SET status = 'failed', error = $2, progress_stage = NULL, completed_at = now(), updated_at = now()
       WHERE id = $1 AND status = 'processing'`,
      [jobId, JSON.stringify({ code, message })],
    );
    if (failed > 0) await this.publishOutcome('task.failed', jobId);
  }

  /** Sends the job as it ended to its webhooks; a failure here is logged and the outcome stands. */
  private async publishOutcome(type: 'task.completed' | 'task.failed', jobId: string): Promise<void> {
    try {
      await this.events.jobEvent(type, await this.db.getRepository(Job).findOneByOrFail({ id: jobId }));
    } catch (error) {
      this.logger.error(`Could not publish ${type} for ${jobId}: ${(error as Error).message}`);
    }
  }
}

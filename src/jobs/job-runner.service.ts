import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Job as QueueJob } from 'pg-boss';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { EventPublisher } from './event-publisher';
import { TransactionRepository } from '../infra/database/transaction.repository';
import type { JobPayload, QueueDefinition } from '../infra/queue/queue-definition';
import { QueueService } from '../infra/queue/queue.service';
import { isHandBack, remainingMs } from '../infra/queue/hand-back';
import { isStorageFull } from '../common/errors/storage-full';
import { storageFailureMessage, storageUnavailableOf } from '../common/errors/storage-unavailable';
import { MetricsService } from '../metrics/metrics.service';
import { JobFailure } from './job-failure';
import { PlanCatalogService } from '../workspaces/plan-catalog.service';
import { Job, JobKind, ProgressStage } from './job.entity';
import { JobCompletion, JobRepository } from './job.repository';
import { ProgressWriter } from './progress-writer';


/** What a finished job stores: an artifact (renders) or a result (tasks). */
export type JobOutcome = JobCompletion;

/** What differs between job kinds; queues, claiming, progress, cancellation, retries and events are shared. */
export interface JobWork {
  kind: JobKind;
  queue: QueueDefinition<JobPayload>;
  /** Where pg-boss moves a job whose every attempt failed, so its row is marked failed. */
  deadLetterQueue: QueueDefinition<JobPayload>;
  /** For logs: "Render", "Transcription". */
  label: string;
  /** Attempts after the first that the queue makes on unexpected errors. */
  retryLimit: number;
  /** Seconds before such a retry (default 5). */
  retryDelaySeconds?: number;
  /**
   * The status the work runs in. `processing` (default): the job's own work, claimed from `queued`
   * and ending it `completed`. `ingesting`: a stage before the job is queued (copying its files);
   * success moves it to `queued` and calls `advance` in that same transaction.
   */
  stage?: 'processing' | 'ingesting';
  /** The code a job fails with after unexpected errors (default `internal`). */
  failureCode?: string;
  run(job: Job, signal: AbortSignal, report: (stage: ProgressStage | null, percent: number) => void): Promise<JobOutcome>;
  /** Stage work only: what follows success, inside the transaction that moves the row to `queued`. */
  advance?(tx: EntityManager, job: Job): Promise<void>;
  /** The job was cancelled after its work finished: discard what it made. */
  discard?(outcome: JobOutcome): Promise<void>;
  /**
   * Every attempt died without ending (its worker was killed each time, so no error handler ran)
   * and the job was marked failed: clean up what the attempts left behind.
   */
  afterDeath?(job: Job): Promise<void>;
}

/**
 * The lifecycle of one queued job, for every kind: claim the row (queued → processing; a retried
 * job is still processing and is claimed again), run the work with throttled progress and
 * cancellation, then record `completed` or `failed` and publish `<kind>.completed`/`.failed`.
 * A JobFailure fails the job at once; another error is thrown back to pg-boss to retry until the
 * retry limit, then fails the job as `internal`.
 */
@Injectable()
export class JobRunnerService {
  private readonly logger = new Logger('JobRunnerService');

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly jobs: JobRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queues: QueueService,
    private readonly events: EventPublisher,
    private readonly metrics: MetricsService,
    private readonly plans: PlanCatalogService,
  ) {}

  /**
   * A job worker's start-up: the work's queues in every role; in worker roles, `prepare` (what the
   * worker needs before it takes a job), then `concurrency` workers.
   */
  async serve(work: JobWork, concurrency: number, prepare?: () => void | Promise<void>): Promise<void> {
    await this.ensureQueues(work);
    if (!this.queues.runsWorkers) return;
    await prepare?.();
    this.startWorkers(work, concurrency);
  }

  /** Creates the work's queue and dead-letter queue (every role: the API sends to them). */
  async ensureQueues(work: JobWork): Promise<void> {
    await this.queues.declareWithDeadLetter(work.queue, work.deadLetterQueue, {
      retryLimit: work.retryLimit,
      retryDelay: work.retryDelaySeconds ?? 5,
      expireInSeconds: 4 * 3600,
      heartbeatSeconds: this.config.render.heartbeatSeconds,
    });
  }

  /** In worker roles: runs `concurrency` jobs of the queue at once, and ends the dead ones. */
  startWorkers(work: JobWork, concurrency: number): void {
    this.queues.registerWorker(
      work.queue,
      async (jobs) => {
        for (const queued of jobs) await this.process(queued, work);
      },
      {
        localConcurrency: concurrency,
        batchSize: 1,
        // One workspace's backlog cannot fill every worker (fair order: JobSchedulerService).
        groupConcurrency: this.plans.groupConcurrency(),
        // NOTIFY wakes an idle worker at once, and a worker that finishes a job fetches again at once
        // (QueueService.wake); the poll is the backstop.
        pollingIntervalSeconds: 1,
        notifyPollingIntervalSeconds: 1,
      },
    );
    // Every attempt crashed (e.g. the worker was killed each time): the job must still end.
    this.queues.registerWorker(work.deadLetterQueue, async (jobs) => {
      for (const dead of jobs) await this.failDead(dead, work);
    });
  }

  private async process(queued: QueueJob<JobPayload>, work: JobWork): Promise<void> {
    const jobId = queued.data.job_id;
    const stage = work.stage ?? 'processing';
    const job = stage === 'processing' ? await this.jobs.markProcessing(jobId) : await this.jobs.findById(jobId);
    if (!job || job.status !== stage) return; // cancelled or already finished
    const abort = new AbortController();
    queued.signal?.addEventListener('abort', () => abort.abort(new Error('queue expiry')), { once: true });
    const progress = new ProgressWriter(this.jobs, job.id, stage, abort);
    // At a shutdown, the queue hands back at once a job its progress says cannot finish in the grace period.
    const began = Date.now();
    let percentDone = 0;
    this.queues.estimateRemaining(queued.id, () => remainingMs(Date.now() - began, percentDone));
    try {
      const outcome = await work.run(job, abort.signal, (stage, percent) => {
        percentDone = percent;
        progress.report(stage, percent);
        // Not awaited: the publisher throttles, and a progress event never holds up the work.
        void this.events.jobEvent(`${work.kind}.progress`, { ...job, progressStage: stage, progressPercent: Math.min(99, Math.floor(percent)) });
      });
      await progress.stop();
      if (stage === 'ingesting') {
        await this.transactions.run(async (tx) => {
          if (await this.jobs.release(tx, job.id)) await work.advance?.(tx, job);
        });
      } else if (await this.jobs.complete(job.id, outcome)) {
        this.metrics.jobFinished(work.kind, 'completed', job.startedAt);
        await this.publishOutcome(`${work.kind}.completed`, job.id);
      } else {
        this.metrics.jobFinished(work.kind, 'cancelled', job.startedAt);
        await work.discard?.(outcome); // cancelled while finishing
      }
    } catch (error) {
      await progress.stop();
      if (isHandBack(queued.signal)) {
        // A shutdown is not a failure: the row gives its attempt back, and the queue its entry.
        if (stage === 'processing') await this.jobs.handBack(job.id);
        this.logger.log(`${work.label} ${job.id} handed back to the queue (shutting down)`);
        throw queued.signal!.reason;
      }
      if (abort.signal.aborted && !queued.signal?.aborted) {
        this.metrics.jobFinished(work.kind, 'cancelled', job.startedAt);
        return; // cancelled by the user
      }
      if (error instanceof JobFailure) {
        await this.fail(job, stage, error.code, error.message);
        return;
      }
      // A full disk is named, and not retried at once: the next attempts would hit it too.
      if (isStorageFull(error)) {
        this.logger.error(`${work.label} ${job.id} failed, storage is full: ${(error as Error).message}`);
        await this.fail(job, stage, 'storage_full', `${work.label} failed: the service's storage is full; try again once space is freed`);
        return;
      }
      // Storage that refuses the service (missing bucket, wrong key) is named and not retried; one
      // that does not answer is retried, and named once the attempts are spent.
      const storage = storageUnavailableOf(error);
      if (storage && (storage.permanent || queued.retryCount >= work.retryLimit)) {
        this.logger.error(`${work.label} ${job.id} failed, storage unavailable: ${storage.message} (${causeOf(storage)})`);
        await this.fail(job, stage, 'storage_unavailable', storageFailureMessage(work.label, storage, queued.retryCount + 1));
        return;
      }
      if (queued.retryCount < work.retryLimit) {
        this.logger.warn(`${work.label} ${job.id} attempt ${queued.retryCount + 1} failed, will retry: ${(error as Error).message}`);
        this.metrics.jobRetried(work.kind);
        throw error;
      }
      this.logger.error(`${work.label} ${job.id} failed: ${(error as Error).stack ?? error}`);
      await this.fail(job, stage, work.failureCode ?? 'internal', `${work.label} failed unexpectedly; the error has been logged`);
    }
  }

  private async failDead(dead: QueueJob<JobPayload>, work: JobWork): Promise<void> {
    const job = await this.jobs.findById(dead.data.job_id);
    if (!job) return;
    await this.fail(job, work.stage ?? 'processing', work.failureCode ?? 'internal', `${work.label} failed after ${work.retryLimit + 1} attempts`);
    await work.afterDeath?.(job);
  }

  /** Only a live job fails: a cancelled one stays cancelled. */
  private async fail(job: Job, stage: 'processing' | 'ingesting', code: string, message: string): Promise<void> {
    const failed = stage === 'ingesting' ? await this.jobs.failIngest(job.id, { code, message }) : await this.jobs.fail(job.id, { code, message });
    if (!failed) return;
    this.metrics.jobFinished(job.kind, 'failed', job.startedAt);
    await this.publishOutcome(`${job.kind}.failed`, job.id);
  }

  /** Sends the job as it ended to its webhooks; a failure here is logged and the outcome stands. */
  private async publishOutcome(type: `${JobKind}.completed` | `${JobKind}.failed`, jobId: string): Promise<void> {
    try {
      const job = await this.jobs.findById(jobId);
      if (job) await this.events.jobEvent(type, job);
    } catch (error) {
      this.logger.error(`Could not publish ${type} for ${jobId}: ${(error as Error).message}`);
    }
  }
}

/** The driver's own words behind a storage failure, for the log only. */
function causeOf(error: Error): string {
  const cause = error.cause as { name?: string; message?: string } | undefined;
  return cause ? `${cause.name ?? 'Error'}: ${cause.message ?? ''}` : 'no cause';
}

import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Job as QueueJob } from 'pg-boss';
import { DataSource } from 'typeorm';
import { externalSources, validateRenderRequest } from '../../composition/src/schema';
import { mapLimited } from '../common/concurrency';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { EventPublisher } from '../events/event-publisher';
import { QueueService } from '../infra/queue/queue.service';
import { Job } from '../jobs/job.entity';
import { JobScheduler } from '../jobs/job-scheduler';
import { AssetsService } from './assets.service';
import { ExternalCopies, IngestFailure } from './external-copies.service';
import { INGEST_DEAD_LETTER_QUEUE, INGEST_QUEUE, INGEST_RETRY_LIMIT } from './intake-queues';
import type { JobPayload } from '../infra/queue/queue-definition';
import { MediaIntake } from './media-intake.service';

/** Files of one job copied at once. */
const COPY_CONCURRENCY = 3;
const CANCEL_POLL_INTERVAL_MS = 1000;

/**
 * The `ingest` queue's handler (worker role): copies every external file of an `ingesting` job
 * into storage (ExternalCopies: once per URL per workspace), announces each new copy with
 * `asset.ready`, then moves the job to `queued` and enqueues its render in one transaction. A copy
 * that fails fails the job with `ingest_failed` (`codec_unsupported` when the file is undecodable).
 */
@Injectable()
export class IngestWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('Ingest');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: QueueService,
    private readonly copies: ExternalCopies,
    private readonly intake: MediaIntake,
    private readonly assets: AssetsService,
    private readonly events: EventPublisher,
    private readonly scheduler: JobScheduler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.declare(INGEST_DEAD_LETTER_QUEUE, { retryLimit: 5, retryDelay: 5 });
    await this.queue.declare(INGEST_QUEUE, {
      retryLimit: INGEST_RETRY_LIMIT,
      retryDelay: 5,
      expireInSeconds: 4 * 3600,
      heartbeatSeconds: this.config.render.heartbeatSeconds,
      deadLetter: INGEST_DEAD_LETTER_QUEUE.name,
    });
    this.queue.registerWorker(INGEST_QUEUE, async (jobs) => {
      for (const queued of jobs) await this.process(queued);
    }, { localConcurrency: 2, batchSize: 1 });
    // Every attempt crashed: the job must still end.
    this.queue.registerWorker(INGEST_DEAD_LETTER_QUEUE, async (jobs) => {
      for (const dead of jobs) {
        await this.fail(dead.data.job_id, 'ingest_failed', `Copying the sources failed after ${INGEST_RETRY_LIMIT + 1} attempts`);
      }
    });
  }

  private async process(queued: QueueJob<JobPayload>): Promise<void> {
    const jobId = queued.data.job_id;
    const job = await this.db.getRepository(Job).findOneBy({ id: jobId, status: 'ingesting' });
    if (!job) return; // cancelled
    const parsed = validateRenderRequest(job.request);
    if (!parsed.ok) {
      await this.fail(job.id, 'ingest_failed', `Stored request is invalid: ${parsed.errors[0].msg}`);
      return;
    }

    // Cancellation (or queue expiry) stops every copy; so does the first copy that fails.
    const cancel = new AbortController();
    const firstFailure = new AbortController();
    queued.signal?.addEventListener('abort', () => cancel.abort(new Error('queue expiry')), { once: true });
    const poll = setInterval(() => {
      this.db
        .query(`SELECT 1 FROM jobs WHERE id = $1 AND status = 'ingesting'`, [job.id])
        .then((rows: unknown[]) => rows.length === 0 && cancel.abort(new Error('cancelled')))
        .catch(() => undefined); // a missed poll is retried a second later
    }, CANCEL_POLL_INTERVAL_MS);
    const signal = AbortSignal.any([cancel.signal, firstFailure.signal]);
    try {
      await mapLimited(this.intake.externalOnly(externalSources(parsed.value)), COPY_CONCURRENCY, async (source) => {
        try {
          const { asset, copied } = await this.copies.ensureCopy(job.workspaceId, source, signal);
          if (copied) await this.assets.announceReady(asset, job.webhookUrl); // one asset.ready per file copied
        } catch (error) {
          firstFailure.abort(error);
          throw error;
        }
      });
    } catch (error) {
      if (cancel.signal.aborted && !queued.signal?.aborted) return; // cancelled by the user
      if (error instanceof IngestFailure) {
        await this.fail(job.id, error.code, error.message);
        return;
      }
      if (queued.retryCount < INGEST_RETRY_LIMIT) {
        this.logger.warn(`Ingest for ${job.id} attempt ${queued.retryCount + 1} failed, will retry: ${(error as Error).message}`);
        throw error;
      }
      this.logger.error(`Ingest for ${job.id} failed: ${(error as Error).stack ?? error}`);
      await this.fail(job.id, 'ingest_failed', 'Copying the sources failed unexpectedly; the error has been logged');
      return;
    } finally {
      clearInterval(poll);
    }

    await this.db.transaction(async (tx) => {
      const [, moved]: [unknown, number] = await tx.query(
        `UPDATE jobs SET status = 'queued', updated_at = now() WHERE id = $1 AND status = 'ingesting'`,
        [job.id],
      );
      if (moved === 0) return;
      const [{ plan }]: { plan: string }[] = await tx.query(`SELECT plan FROM workspaces WHERE id = $1`, [job.workspaceId]);
      await this.scheduler.enqueue(tx, job, plan);
    });
  }

  private async fail(jobId: string, code: 'ingest_failed' | 'codec_unsupported', message: string): Promise<void> {
    const [rows]: [unknown[], number] = await this.db.query(
      `UPDATE jobs SET status = 'failed', error = $2, completed_at = now(), updated_at = now()
       WHERE id = $1 AND status = 'ingesting' RETURNING id`,
      [jobId, JSON.stringify({ code, message })],
    );
    if (rows.length === 0) return;
    const job = await this.db.getRepository(Job).findOneByOrFail({ id: jobId });
    await this.events.jobEvent(job.kind === 'render' ? 'render.failed' : 'task.failed', job);
  }
}

import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Job as QueueJob } from 'pg-boss';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { EventPublisher } from '../events/event-publisher';
import { APP_CONFIG } from '../config/config.module';
import { QueueService } from '../infra/queue/queue.service';
import { Storage } from '../infra/storage/storage';
import { ReadinessRegistry } from '../system/readiness.registry';
import { Job } from '../jobs/job.entity';
import { ProgressWriter } from '../jobs/progress-writer';
import { RemotionRenderer } from './engine/remotion-renderer';
import { RenderFailure } from './render-failure';
import { RenderPipeline } from './render-pipeline.service';
import { RENDER_DEAD_LETTER_QUEUE, RENDER_QUEUE, RENDER_RETRY_LIMIT, RenderQueuePayload } from './render-queue';

/**
 * The `render` queue's handler: claims the job row, runs the pipeline, records the outcome. A
 * worker that dies mid-render stops heart-beating; pg-boss then hands the job to another worker,
 * which claims the row again (it is still `processing`) and renders from the start.
 */
@Injectable()
export class RenderWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('RenderWorker');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: QueueService,
    private readonly pipeline: RenderPipeline,
    private readonly renderer: RemotionRenderer,
    private readonly storage: Storage,
    private readonly readiness: ReadinessRegistry,
    private readonly events: EventPublisher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.ensureQueue(RENDER_DEAD_LETTER_QUEUE, { retryLimit: 5, retryDelay: 5 });
    await this.queue.ensureQueue(RENDER_QUEUE, {
      retryLimit: RENDER_RETRY_LIMIT,
      retryDelay: 5,
      expireInSeconds: 4 * 3600,
      heartbeatSeconds: this.config.render.heartbeatSeconds,
      deadLetter: RENDER_DEAD_LETTER_QUEUE,
      notify: true,
    });
    if (!this.queue.runsWorkers) return;
    this.readiness.register('renderer', () => this.renderer.ready());
    this.renderer.warmUp().catch((error) => this.logger.error(`Warm-up failed: ${(error as Error).message}`));
    this.queue.registerWorker<RenderQueuePayload>(RENDER_QUEUE, (jobs) => this.handle(jobs), {
      localConcurrency: this.config.render.concurrency,
      batchSize: 1,
      // NOTIFY wakes an idle worker at once; a wake-up that arrives while it renders is lost, so
      // a busy worker still looks for the next job within a second of finishing.
      pollingIntervalSeconds: 1,
      notifyPollingIntervalSeconds: 1,
    });
    // Every attempt crashed (e.g. the worker was killed each time): the job must still end.
    this.queue.registerWorker<RenderQueuePayload>(RENDER_DEAD_LETTER_QUEUE, async (jobs) => {
      for (const dead of jobs) {
        if (typeof dead.data?.job_id === 'string') {
          await this.fail(dead.data.job_id, 'internal', `Rendering failed after ${RENDER_RETRY_LIMIT + 1} attempts`);
        }
      }
    });
  }

  async handle(jobs: QueueJob<RenderQueuePayload>[]): Promise<void> {
    for (const queued of jobs) await this.process(queued);
  }

  private async process(queued: QueueJob<RenderQueuePayload>): Promise<void> {
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
      const artifact = await this.pipeline.run(job, abort.signal, (stage, percent) => {
        progress.report(stage, percent);
        // Not awaited: the publisher throttles, and a progress event never holds up the render.
        void this.events.jobEvent('render.progress', { ...job, progressStage: stage, progressPercent: Math.min(99, Math.floor(percent)) });
      });
      await progress.stop();
      const [, completed]: [unknown, number] = await this.db.query(
        `UPDATE jobs SET status = 'completed', output = $2, output_key = $3, output_seconds = $4,
           progress_percent = 100, progress_stage = NULL, completed_at = now(), updated_at = now()
         WHERE id = $1 AND status = 'processing'`,
        [job.id, JSON.stringify(artifact.output), artifact.key, artifact.output.duration],
      );
      if (completed === 0) await this.storage.delete(artifact.key); // cancelled while uploading
      else await this.publishOutcome('render.completed', job.id);
    } catch (error) {
      await progress.stop();
      if (abort.signal.aborted && !queued.signal?.aborted) return; // cancelled by the user
      if (error instanceof RenderFailure) {
        await this.fail(job.id, error.code, error.message);
        return;
      }
      if (queued.retryCount < RENDER_RETRY_LIMIT) {
        this.logger.warn(`Render ${job.id} attempt ${queued.retryCount + 1} failed, will retry: ${(error as Error).message}`);
        throw error;
      }
      this.logger.error(`Render ${job.id} failed: ${(error as Error).stack ?? error}`);
      await this.fail(job.id, 'internal', 'Rendering failed unexpectedly; the error has been logged');
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
    if (failed > 0) await this.publishOutcome('render.failed', jobId);
  }

  /** Sends the job as it ended to its webhooks; a failure here is logged and the outcome stands. */
  private async publishOutcome(type: 'render.completed' | 'render.failed', jobId: string): Promise<void> {
    try {
      await this.events.jobEvent(type, await this.db.getRepository(Job).findOneByOrFail({ id: jobId }));
    } catch (error) {
      this.logger.error(`Could not publish ${type} for ${jobId}: ${(error as Error).message}`);
    }
  }
}

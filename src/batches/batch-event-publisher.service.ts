import { Injectable, Logger } from '@nestjs/common';
import { EventPublisher, JobEventType } from '../jobs/event-publisher';
import { Job } from '../jobs/job.entity';
import { JobRepository } from '../jobs/job.repository';
import { WebhookEventPublisherService } from '../webhooks/webhook-event-publisher.service';
import { BatchRepository } from './batch.repository';
import { toBatchView } from './batch.view';

/**
 * The jobs module's EventPublisher, bound by the application root: every event goes on to the
 * webhooks publisher, and when a batch's row ends (completed or failed) and no row is left
 * unfinished, the batch is marked completed and `batch.completed` is sent with its counts.
 * Cancelling a batch checks the same way (BatchesService), for rows that end by being cancelled.
 */
@Injectable()
export class BatchEventPublisherService extends EventPublisher {
  private readonly logger = new Logger('Batches');

  constructor(
    private readonly webhooks: WebhookEventPublisherService,
    private readonly batches: BatchRepository,
    private readonly jobs: JobRepository,
  ) {
    super();
  }

  async jobEvent(type: JobEventType, job: Job): Promise<void> {
    await this.webhooks.jobEvent(type, job);
    if (!job.batchId || (type !== 'render.completed' && type !== 'render.failed')) return;
    // Identical rows that waited on this one ended with it (JobRepository.complete and fail).
    for (const follower of await this.jobs.findFollowers(job.id, [type === 'render.completed' ? 'completed' : 'failed'])) {
      await this.webhooks.jobEvent(type, follower);
    }
    await this.completeIfEnded(job.batchId);
  }

  /** A row cancelled on its own (POST /v1/renders/{id}/cancel) may be the batch's last unfinished one. */
  async jobCancelled(job: Job): Promise<void> {
    if (job.batchId) await this.completeIfEnded(job.batchId);
  }

  assetReady(workspaceId: string, asset: Record<string, unknown>, webhookUrl: string | null): Promise<void> {
    return this.webhooks.assetReady(workspaceId, asset, webhookUrl);
  }

  brandKitReady(workspaceId: string, brandKit: Record<string, unknown>): Promise<void> {
    return this.webhooks.brandKitReady(workspaceId, brandKit);
  }

  /** Sends `batch.completed` once, when the batch's last row has ended. Never rejects. */
  async completeIfEnded(batchId: string): Promise<void> {
    try {
      if (!(await this.batches.completeIfEnded(batchId))) return;
      const batch = (await this.batches.findById(batchId))!;
      const counts = (await this.batches.counts([batchId])).get(batchId)!;
      await this.webhooks.batchCompleted(batch.workspaceId, toBatchView(batch, counts), batch.webhookUrl);
    } catch (error) {
      this.logger.error(`Could not complete batch ${batchId}: ${(error as Error).message}`);
    }
  }
}

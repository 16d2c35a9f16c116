import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { EventPublisher, JobEventType } from '../jobs/event-publisher';
import { Job } from '../jobs/job.entity';
import { JobPresenterService } from '../jobs/job-presenter.service';
import { DeliverySchedulerService, Destination, NewEvent } from './delivery-scheduler.service';
import { EventType, isProgressEvent } from './webhook-events';
import { ProgressThrottle } from './progress-throttle';
import { WebhookRepository } from './webhook.repository';

/**
 * Routes events to endpoints and queues their delivery (docs/decisions/0009-webhooks.md): a job's own `webhook_url`
 * receives all of that job's events and overrides the workspace webhooks; otherwise every enabled
 * workspace webhook subscribed to the event gets it. Progress events go only to a `webhook_url`.
 * Publishing never throws: a failure is logged and the caller's work (a render) goes on.
 */
@Injectable()
export class WebhookEventPublisherService extends EventPublisher {
  private readonly logger = new Logger('Webhooks');
  private readonly progress = new ProgressThrottle();
  /** Per job, its latest publish: the next one waits for it, so a job's events are stored in order. */
  private readonly lastPublish = new Map<string, Promise<void>>();

  constructor(
    private readonly transactions: TransactionRepository,
    private readonly webhooks: WebhookRepository,
    private readonly presenter: JobPresenterService,
    private readonly scheduler: DeliverySchedulerService,
  ) {
    super();
  }

  async jobEvent(type: JobEventType, job: Job): Promise<void> {
    if (isProgressEvent(type)) {
      if (!job.webhookUrl || !this.progress.shouldSend(job.id, job.progressPercent, job.progressStage)) return;
    } else {
      this.progress.forget(job.id);
    }
    // A progress event still being written must not land after the job's completion.
    const published = (this.lastPublish.get(job.id) ?? Promise.resolve()).then(() => this.publishJob(type, job));
    this.lastPublish.set(job.id, published);
    await published;
    if (this.lastPublish.get(job.id) === published) this.lastPublish.delete(job.id);
  }

  async assetReady(workspaceId: string, asset: Record<string, unknown>, webhookUrl: string | null): Promise<void> {
    try {
      await this.publish({ workspaceId, type: 'asset.ready', data: asset, jobId: null }, webhookUrl);
    } catch (error) {
      this.logger.error(`Could not publish asset.ready for workspace ${workspaceId}: ${(error as Error).message}`);
    }
  }

  async brandKitReady(workspaceId: string, brandKit: Record<string, unknown>): Promise<void> {
    try {
      await this.publish({ workspaceId, type: 'brand_kit.ready', data: brandKit, jobId: null }, null);
    } catch (error) {
      this.logger.error(`Could not publish brand_kit.ready for workspace ${workspaceId}: ${(error as Error).message}`);
    }
  }

  /** Every row of a batch has ended: `batch.completed` with the Batch (its counts) to its webhook_url, else the subscribers. */
  async batchCompleted(workspaceId: string, batch: Record<string, unknown>, webhookUrl: string | null): Promise<void> {
    try {
      await this.publish({ workspaceId, type: 'batch.completed', data: batch, jobId: null }, webhookUrl);
    } catch (error) {
      this.logger.error(`Could not publish batch.completed for ${String(batch.id)}: ${(error as Error).message}`);
    }
  }

  private async publishJob(type: JobEventType, job: Job): Promise<void> {
    try {
      const data = await this.presenter.present(job);
      await this.publish({ workspaceId: job.workspaceId, type, data, jobId: job.id }, job.webhookUrl);
    } catch (error) {
      this.logger.error(`Could not publish ${type} for ${job.id}: ${(error as Error).message}`);
    }
  }

  private async publish(event: NewEvent, webhookUrl: string | null): Promise<void> {
    await this.transactions.run(async (tx) => {
      const destinations = webhookUrl ? [{ webhookId: null, url: webhookUrl }] : await this.subscribers(tx, event.workspaceId, event.type);
      // Nobody listens: nothing to record.
      if (destinations.length > 0) await this.scheduler.createEvent(tx, event, destinations, { manual: false });
    });
  }

  private async subscribers(tx: EntityManager, workspaceId: string, type: EventType): Promise<Destination[]> {
    if (isProgressEvent(type)) return [];
    const webhooks = await this.webhooks.subscribedTo(tx, workspaceId, type);
    return webhooks.map((webhook) => ({ webhookId: webhook.id, url: webhook.url }));
  }
}

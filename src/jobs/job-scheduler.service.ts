import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { JobPayload, QueueDefinition } from '../infra/queue/queue-definition';
import { QueueService } from '../infra/queue/queue.service';
import { PlanCatalogService } from '../workspaces/plan-catalog.service';
import type { Job } from './job.entity';
import { JobRepository } from './job.repository';

/** Previews jump every full render of every workspace (docs/decisions/0005-plans-quotas-fairness.md). */
export const PREVIEW_PRIORITY = 1_000_000;

/**
 * Puts jobs on their queue fairly and takes cancelled ones off it.
 *
 * Fairness: the queue runs higher priorities first, then older entries. A job's priority is minus
 * the number of unfinished jobs its workspace already has, so the n-th job of a big backlog waits
 * behind every other workspace's first jobs (round-robin across workspaces), while each
 * workspace's own jobs keep their order. Previews add PREVIEW_PRIORITY. On top, each workspace
 * runs at most its plan's concurrentRenders at once: entries are grouped by workspace with the
 * plan as the group's tier, and workers pass PlanCatalogService.groupConcurrency() to the queue.
 */
@Injectable()
export class JobSchedulerService {
  constructor(
    private readonly queues: QueueService,
    private readonly jobs: JobRepository,
    private readonly plans: PlanCatalogService,
  ) {}

  /**
   * Puts the job on the queue its row names (`queue_name`, set when the job was created), inside
   * the transaction that commits the row or moves it from ingesting to queued.
   */
  async enqueue(tx: EntityManager, job: Job, plan: string): Promise<void> {
    if (!job.queueName) throw new Error(`Job ${job.id} names no queue`);
    const queue = this.queues.definition(job.queueName) as QueueDefinition<JobPayload>;
    const ahead = await this.jobs.countUnfinished(tx, job);
    const entryId = randomUUID();
    await this.queues.sendInTransaction(tx, queue, { job_id: job.id }, {
      id: entryId,
      priority: (job.isPreview ? PREVIEW_PRIORITY : 0) - ahead,
      group: { id: job.workspaceId, tier: this.plans.tierOf(plan) },
      ...(job.runLimitSeconds ? { expireInSeconds: job.runLimitSeconds } : {}),
    });
    await this.jobs.setQueueEntry(tx, job.id, entryId);
  }

  /** A cancelled job leaves its queue at once: no worker slot is ever spent on it. */
  async dequeue(tx: EntityManager, job: Pick<Job, 'queueName' | 'queueEntryId'>): Promise<void> {
    if (!job.queueName || !job.queueEntryId) return;
    await this.queues.cancelInTransaction(tx, job.queueName, job.queueEntryId);
  }
}

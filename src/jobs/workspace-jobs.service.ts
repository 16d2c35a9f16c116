import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { WorkspaceJobs } from '../workspaces/workspace-jobs';
import { JobRepository } from './job.repository';
import { JobSchedulerService } from './job-scheduler.service';

/** The jobs side of a workspace delete: every queued job of the workspace leaves its queue. */
@Injectable()
export class WorkspaceJobsService extends WorkspaceJobs {
  constructor(
    private readonly jobs: JobRepository,
    private readonly scheduler: JobSchedulerService,
  ) {
    super();
  }

  async dequeueAll(tx: EntityManager, workspaceId: string): Promise<void> {
    for (const entry of await this.jobs.queuedEntries(tx, workspaceId)) await this.scheduler.dequeue(tx, entry);
  }
}

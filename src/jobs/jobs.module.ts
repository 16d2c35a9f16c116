import { Module } from '@nestjs/common';
import { IdempotencyRepository } from '../common/idempotency/idempotency.repository';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { MetricsModule } from '../metrics/metrics.module';
import { JobPresenter } from './job.presenter';
import { JobRepository } from './job.repository';
import { JobRunner } from './job-runner';
import { JobScheduler } from './job-scheduler';
import { JobStore } from './job-store';
import { QuotaRepository } from './quota.repository';
import { QuotaService } from './quota.service';
import { WorkspaceJobsService } from './workspace-jobs.service';

/**
 * What renders and tasks share: the jobs table, the one job lifecycle (JobRunner), fair
 * scheduling, quotas, presenting jobs, idempotent submission. Its EventPublisher port is bound by
 * the application root to the webhooks module's publisher.
 */
@Module({
  // JobRunner counts job outcomes; the module is global in the app, imported here for contexts built without it.
  imports: [MetricsModule],
  providers: [JobRepository, JobPresenter, QuotaService, QuotaRepository, IdempotencyService, IdempotencyRepository, JobRunner, JobStore, JobScheduler, TransactionRepository, WorkspaceJobsService],
  // TransactionRepository: the modules that submit jobs open their transactions with it.
  exports: [JobRepository, JobPresenter, QuotaService, IdempotencyService, JobRunner, JobStore, JobScheduler, TransactionRepository, WorkspaceJobsService],
})
export class JobsModule {}

import { Module } from '@nestjs/common';
import { IdempotencyRepository } from '../common/idempotency/idempotency.repository';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { MetricsModule } from '../metrics/metrics.module';
import { JobPresenterService } from './job-presenter.service';
import { JobChangeListener } from './job-change-listener.service';
import { JobReadCache } from './job-read-cache';
import { JobRepository } from './job.repository';
import { JobRunnerService } from './job-runner.service';
import { JobSchedulerService } from './job-scheduler.service';
import { JobStoreService } from './job-store.service';
import { JobSubmissionService } from './job-submission.service';
import { QuotaRepository } from './quota.repository';
import { QuotaService } from './quota.service';
import { WorkspaceJobsService } from './workspace-jobs.service';

/**
 * What renders and tasks share: the jobs table, the one job lifecycle (JobRunnerService), fair
 * scheduling, quotas, presenting jobs, the one job submission (JobSubmissionService). Its EventPublisher port is bound by
 * the application root to the webhooks module's publisher.
 */
@Module({
  // JobRunnerService counts job outcomes; the module is global in the app, imported here for contexts built without it.
  imports: [MetricsModule],
  providers: [{ provide: JobReadCache, useFactory: () => new JobReadCache() }, JobChangeListener, JobRepository, JobPresenterService, QuotaService, QuotaRepository, IdempotencyService, IdempotencyRepository, JobRunnerService, JobStoreService, JobSchedulerService, JobSubmissionService, TransactionRepository, WorkspaceJobsService],
  // TransactionRepository: the modules that submit jobs open their transactions with it.
  exports: [JobReadCache, JobChangeListener, JobRepository, JobPresenterService, QuotaService, IdempotencyService, JobRunnerService, JobStoreService, JobSchedulerService, JobSubmissionService, TransactionRepository, WorkspaceJobsService],
})
export class JobsModule {}

import { Global, Module } from '@nestjs/common';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { JobPresenter } from './job.presenter';
import { JobRunner } from './job-runner';
import { JobScheduler } from './job-scheduler';
import { JobStore } from './job-store';
import { QuotaService } from './quota.service';

/** What renders and tasks share: running and presenting jobs, the render-minute quota, idempotent submission. */
@Global()
@Module({
  providers: [JobPresenter, QuotaService, IdempotencyService, JobRunner, JobStore, JobScheduler],
  exports: [JobPresenter, QuotaService, IdempotencyService, JobRunner, JobStore, JobScheduler],
})
export class JobsModule {}

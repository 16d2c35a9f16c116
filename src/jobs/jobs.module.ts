import { Global, Module } from '@nestjs/common';
import { IdempotencyService } from '../common/idempotency/idempotency.service';
import { JobPresenter } from './job.presenter';
import { QuotaService } from './quota.service';

/** What renders and tasks share: presenting jobs, the render-minute quota, idempotent submission. */
@Global()
@Module({ providers: [JobPresenter, QuotaService, IdempotencyService], exports: [JobPresenter, QuotaService, IdempotencyService] })
export class JobsModule {}

import { DynamicModule, Module } from '@nestjs/common';
import { modulePerRole } from '../common/module-per-role';
import { JobsModule } from '../jobs/jobs.module';
import { ProjectRepository } from '../projects/project.repository';
import { RendersModule } from '../renders/renders.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { BatchEventPublisherService } from './batch-event-publisher.service';
import { BatchEventStreamService } from './batch-event-stream.service';
import { BatchRepository } from './batch.repository';
import { BatchesController } from './batches.controller';
import { BatchesService } from './batches.service';

/**
 * Batches of project renders. Every role has the BatchEventPublisherService (the application root binds
 * the jobs module's EventPublisher to it, so a worker ending a batch's last row sends
 * `batch.completed`); the routes only where the REST API is served.
 */
@Module({})
export class BatchesModule {
  static forRole(servesApi: boolean): DynamicModule {
    return modulePerRole(BatchesModule, servesApi, () => ({
      imports: [JobsModule, WebhooksModule.forRole(servesApi), ...(servesApi ? [RendersModule.forRole(servesApi)] : [])],
      controllers: servesApi ? [BatchesController] : [],
      providers: [BatchEventPublisherService, BatchRepository, ...(servesApi ? [BatchesService, BatchEventStreamService, ProjectRepository] : [])],
      exports: [BatchEventPublisherService],
    }));
  }
}

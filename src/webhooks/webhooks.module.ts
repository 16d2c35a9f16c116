import { DynamicModule, Module } from '@nestjs/common';
import { modulePerRole } from '../common/module-per-role';
import { JobsModule } from '../jobs/jobs.module';
import { DeliverySchedulerService } from './delivery-scheduler.service';
import { DeliveryWorker } from './delivery.worker';
import { SigningSecretRepository } from './signing-secret.repository';
import { SigningSecretsService } from './signing-secrets.service';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookEventPublisherService } from './webhook-event-publisher.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';
import { WebhookRepository } from './webhook.repository';

/**
 * Webhooks: the routes where the REST API is served, the delivery queue's handler (worker roles)
 * and the publisher the application root binds to the jobs module's EventPublisher port.
 */
@Module({})
export class WebhooksModule {
  static forRole(servesApi: boolean): DynamicModule {
    return modulePerRole(WebhooksModule, servesApi, () => ({
      imports: [JobsModule],
      controllers: servesApi ? [WebhooksController] : [],
      providers: [
        WebhookEventPublisherService,
        DeliverySchedulerService,
        DeliveryWorker,
        SigningSecretsService,
        WebhooksService,
        WebhookRepository,
        WebhookDeliveryRepository,
        SigningSecretRepository,
      ],
      exports: [WebhookEventPublisherService, WebhooksService],
    }));
  }
}

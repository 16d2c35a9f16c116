import { DynamicModule, Module } from '@nestjs/common';
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
  // Nest tells dynamic modules apart by object identity: every importer must get the same one.
  private static readonly byRole = new Map<boolean, DynamicModule>();

  static forRole(servesApi: boolean): DynamicModule {
    const known = WebhooksModule.byRole.get(servesApi);
    if (known) return known;
    const module: DynamicModule = {
      module: WebhooksModule,
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
    };
    WebhooksModule.byRole.set(servesApi, module);
    return module;
  }
}

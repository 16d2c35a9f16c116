import { DynamicModule, Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { DeliveryScheduler } from './delivery-scheduler';
import { DeliveryWorker } from './delivery-worker.service';
import { SigningSecretRepository } from './signing-secret.repository';
import { SigningSecrets } from './signing-secrets.service';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookEventPublisher } from './webhook-event-publisher';
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
        WebhookEventPublisher,
        DeliveryScheduler,
        DeliveryWorker,
        SigningSecrets,
        WebhooksService,
        WebhookRepository,
        WebhookDeliveryRepository,
        SigningSecretRepository,
      ],
      exports: [WebhookEventPublisher, WebhooksService],
    };
    WebhooksModule.byRole.set(servesApi, module);
    return module;
  }
}

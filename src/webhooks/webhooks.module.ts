import { DynamicModule, Module } from '@nestjs/common';
import { EventPublisher } from '../events/event-publisher';
import { DeliveryScheduler } from './delivery-scheduler';
import { DeliveryWorker } from './delivery-worker.service';
import { SigningSecrets } from './signing-secrets.service';
import { WebhookEventPublisher } from './webhook-event-publisher';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/**
 * Provides `EventPublisher` to every module (renders, tasks, ingest publish through it), the
 * webhook routes where the REST API is served, and the delivery queue's handler, which runs in
 * the `worker`/`all` roles.
 */
@Module({})
export class WebhooksModule {
  static forRole(servesApi: boolean): DynamicModule {
    return {
      module: WebhooksModule,
      global: true,
      controllers: servesApi ? [WebhooksController] : [],
      providers: [
        { provide: EventPublisher, useClass: WebhookEventPublisher },
        DeliveryScheduler,
        DeliveryWorker,
        SigningSecrets,
        WebhooksService,
      ],
      exports: [EventPublisher, WebhooksService],
    };
  }
}

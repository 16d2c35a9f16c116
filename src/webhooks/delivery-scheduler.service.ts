import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../common/ids';
import { QueueService } from '../infra/queue/queue.service';
import { DeliveryAttemptPayload, WEBHOOK_DELIVERY_QUEUE } from './delivery-queue';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import type { EventType } from './webhook-events';

export interface NewEvent {
  workspaceId: string;
  type: EventType;
  data: Record<string, unknown>;
  jobId: string | null;
}

export interface Destination {
  /** Null for a job's own `webhook_url`. */
  webhookId: string | null;
  url: string;
}

/**
 * Writes events and their deliveries and queues attempts, always inside the caller's transaction:
 * a delivery row and its queued attempt commit together, so nothing is recorded without being
 * sent nor sent without being recorded, whatever process stops when.
 */
@Injectable()
export class DeliverySchedulerService {
  constructor(
    private readonly queue: QueueService,
    private readonly deliveries: WebhookDeliveryRepository,
  ) {}

  /** Stores the event and one pending delivery per destination, each with its first attempt queued now. */
  async createEvent(tx: EntityManager, event: NewEvent, destinations: Destination[], options: { manual: boolean }): Promise<WebhookDelivery[]> {
    const eventId = newId('evt');
    await this.deliveries.insertEvent(tx, { id: eventId, ...event });
    const deliveries: WebhookDelivery[] = [];
    for (const destination of destinations) {
      const id = newId('dlv');
      await this.deliveries.insertPending(tx, { id, workspaceId: event.workspaceId, eventId, ...destination });
      await this.schedule(tx, id, 0, options);
      deliveries.push(await this.deliveries.getById(tx, id));
    }
    return deliveries;
  }

  /** Makes the delivery's next attempt, in `delaySeconds`, the only one that may run. */
  async schedule(tx: EntityManager, deliveryId: string, delaySeconds: number, options: { manual: boolean }): Promise<void> {
    const token = randomUUID();
    await this.deliveries.awaitAttempt(tx, deliveryId, token, delaySeconds);
    const payload: DeliveryAttemptPayload = { delivery_id: deliveryId, token, manual: options.manual };
    await this.queue.sendInTransaction(tx, WEBHOOK_DELIVERY_QUEUE, payload, delaySeconds > 0 ? { startAfter: delaySeconds } : {});
  }
}

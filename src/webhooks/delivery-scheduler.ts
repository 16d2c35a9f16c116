import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { newId } from '../common/ids';
import { QueueService } from '../infra/queue/queue.service';
import { DeliveryAttemptPayload, WEBHOOK_DELIVERY_QUEUE } from './delivery-queue';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEvent } from './webhook-event.entity';
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
export class DeliveryScheduler {
  constructor(private readonly queue: QueueService) {}

  /** Stores the event and one pending delivery per destination, each with its first attempt queued now. */
  async createEvent(tx: EntityManager, event: NewEvent, destinations: Destination[], options: { manual: boolean }): Promise<WebhookDelivery[]> {
    const eventId = newId('evt');
    // json columns typed as records trip TypeORM's deep-partial typing; the row is complete.
    await tx.insert(WebhookEvent, { id: eventId, ...event } as QueryDeepPartialEntity<WebhookEvent>);
    const deliveries: WebhookDelivery[] = [];
    for (const destination of destinations) {
      const id = newId('dlv');
      await tx.insert(WebhookDelivery, { id, workspaceId: event.workspaceId, eventId, ...destination, status: 'pending', attempts: 0 });
      await this.schedule(tx, id, 0, options);
      deliveries.push(await tx.findOneByOrFail(WebhookDelivery, { id }));
    }
    return deliveries;
  }

  /** Makes the delivery's next attempt, in `delaySeconds`, the only one that may run. */
  async schedule(tx: EntityManager, deliveryId: string, delaySeconds: number, options: { manual: boolean }): Promise<void> {
    const token = randomUUID();
    await tx.query(
      `UPDATE webhook_deliveries SET status = 'pending', attempt_token = $2, next_attempt_at = now() + make_interval(secs => $3), updated_at = now()
       WHERE id = $1`,
      [deliveryId, token, delaySeconds],
    );
    const payload: DeliveryAttemptPayload = { delivery_id: deliveryId, token, manual: options.manual };
    await this.queue.sendInTransaction(tx, WEBHOOK_DELIVERY_QUEUE, payload, delaySeconds > 0 ? { startAfter: delaySeconds } : {});
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity';
import { WebhookEvent } from './webhook-event.entity';
import type { EventType } from './webhook-events';

/** A delivery with its event and its webhook's current state, as an attempt needs them. */
export interface DeliveryAttemptRow {
  workspaceId: string;
  webhookId: string | null;
  status: DeliveryStatus;
  attemptToken: string | null;
  /** The URL stored on the delivery (a job's own `webhook_url`, or the webhook's at the time). */
  deliveryUrl: string;
  /** The webhook's current URL and state; null for a job's own `webhook_url`. */
  webhookUrl: string | null;
  webhookEnabled: boolean | null;
  eventId: string;
  type: EventType;
  data: Record<string, unknown>;
  eventCreatedAt: Date;
}

export interface AttemptRecord {
  deliveryId: string;
  attempts: number;
  url: string;
  responseStatus: number | null;
  responseExcerpt: string | null;
  error: string | null;
  /** Whether this attempt decides the delivery's status (it is the one the delivery waits for). */
  decides: boolean;
  status: DeliveryStatus;
}

/** The `webhook_deliveries` table and the `events` it delivers. */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** json columns typed as records trip TypeORM's deep-partial typing; the row is complete. */
  async insertEvent(tx: EntityManager, event: Pick<WebhookEvent, 'id' | 'workspaceId' | 'type' | 'data' | 'jobId'>): Promise<void> {
    await tx.insert(WebhookEvent, event as QueryDeepPartialEntity<WebhookEvent>);
  }

  async insertPending(tx: EntityManager, delivery: Pick<WebhookDelivery, 'id' | 'workspaceId' | 'eventId' | 'webhookId' | 'url'>): Promise<void> {
    await tx.insert(WebhookDelivery, { ...delivery, status: 'pending', attempts: 0 });
  }

  /** Makes `token` the attempt the delivery waits for, due in `delaySeconds`. */
  async awaitAttempt(tx: EntityManager, deliveryId: string, token: string, delaySeconds: number): Promise<void> {
    await tx.query(
      `UPDATE webhook_deliveries SET status = 'pending', attempt_token = $2, next_attempt_at = now() + make_interval(secs => $3), updated_at = now()
       WHERE id = $1`,
      [deliveryId, token, delaySeconds],
    );
  }

  async loadAttempt(deliveryId: string): Promise<DeliveryAttemptRow | null> {
    const [row] = await this.db.query(
      `SELECT d.workspace_id, d.webhook_id, d.url, d.status, d.attempt_token, w.url AS webhook_url, w.enabled AS webhook_enabled,
              e.id AS event_id, e.type, e.data, e.created_at
       FROM webhook_deliveries d
       JOIN events e ON e.id = d.event_id
       LEFT JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.id = $1`,
      [deliveryId],
    );
    if (!row) return null;
    return {
      workspaceId: row.workspace_id,
      webhookId: row.webhook_id,
      status: row.status,
      attemptToken: row.attempt_token,
      deliveryUrl: row.url,
      webhookUrl: row.webhook_url,
      webhookEnabled: row.webhook_enabled,
      eventId: row.event_id,
      type: row.type,
      data: row.data,
      eventCreatedAt: row.created_at,
    };
  }

  /** Ends a delivery without an attempt, when `token` is still the attempt it waits for. */
  async abandon(deliveryId: string, token: string, reason: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET status = 'failed', error = $3, next_attempt_at = NULL, attempt_token = NULL, updated_at = now()
       WHERE id = $1 AND attempt_token = $2`,
      [deliveryId, token, reason],
    );
  }

  /** The delivery's attempt count and awaited token, locked until the attempt is recorded. */
  async lockForAttempt(tx: EntityManager, deliveryId: string): Promise<{ attempts: number; attemptToken: string | null } | null> {
    const [row]: { attempts: number; attempt_token: string | null }[] = await tx.query(
      `SELECT attempts, attempt_token FROM webhook_deliveries WHERE id = $1 FOR UPDATE`,
      [deliveryId],
    );
    return row ? { attempts: row.attempts, attemptToken: row.attempt_token } : null;
  }

  /** Counts the attempt; only a deciding one changes the status and clears the awaited attempt. */
  async recordAttempt(tx: EntityManager, attempt: AttemptRecord): Promise<void> {
    await tx.query(
      `UPDATE webhook_deliveries SET attempts = $2, url = $3, response_status = $4, response_excerpt = $5, error = $6,
         last_attempt_at = now(), updated_at = now(),
         status = CASE WHEN $7 THEN $8 ELSE status END,
         next_attempt_at = CASE WHEN $7 THEN NULL ELSE next_attempt_at END,
         attempt_token = CASE WHEN $7 THEN NULL ELSE attempt_token END
       WHERE id = $1`,
      [attempt.deliveryId, attempt.attempts, attempt.url, attempt.responseStatus, attempt.responseExcerpt, attempt.error, attempt.decides, attempt.status],
    );
  }

  /** A webhook's deliveries, newest first, below the cursor. */
  listForWebhook(webhookId: string, filter: { status?: DeliveryStatus; before?: string }, take: number): Promise<WebhookDelivery[]> {
    return this.db.getRepository(WebhookDelivery).find({
      where: {
        webhookId,
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.before ? { id: LessThan(filter.before) } : {}),
      },
      order: { id: 'DESC' },
      take,
    });
  }

  findForWebhook(tx: EntityManager, webhookId: string, id: string): Promise<WebhookDelivery | null> {
    return tx.findOneBy(WebhookDelivery, { id, webhookId });
  }

  getById(tx: EntityManager, id: string): Promise<WebhookDelivery> {
    return tx.findOneByOrFail(WebhookDelivery, { id });
  }

  /** Event id → event type, for the deliveries' views. */
  async eventTypes(eventIds: string[], manager: EntityManager = this.db.manager): Promise<Map<string, string>> {
    if (eventIds.length === 0) return new Map();
    const events = await manager
      .getRepository(WebhookEvent)
      .createQueryBuilder('e')
      .select(['e.id', 'e.type'])
      .where('e.id IN (:...ids)', { ids: [...new Set(eventIds)] })
      .getMany();
    return new Map(events.map((event) => [event.id, event.type]));
  }
}

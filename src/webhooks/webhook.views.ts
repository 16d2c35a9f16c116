import { WebhookDelivery } from './webhook-delivery.entity';
import { Webhook } from './webhook.entity';

/** A webhook as the API shows it; `secret` is added only on registration and rotation. */
export function toWebhookView(webhook: Webhook) {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    enabled: webhook.enabled,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}

export type WebhookView = ReturnType<typeof toWebhookView>;

/** One delivery of one event to one endpoint, with the outcome of its latest attempt. */
export function toDeliveryView(delivery: WebhookDelivery, eventType: string) {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: eventType,
    webhook_id: delivery.webhookId,
    url: delivery.url,
    status: delivery.status,
    attempts: delivery.attempts,
    response_status_code: delivery.responseStatus,
    response_excerpt: delivery.responseExcerpt,
    error: delivery.error,
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
    last_attempt_at: delivery.lastAttemptAt?.toISOString() ?? null,
    created_at: delivery.createdAt.toISOString(),
    updated_at: delivery.updatedAt.toISOString(),
  };
}

export type DeliveryView = ReturnType<typeof toDeliveryView>;

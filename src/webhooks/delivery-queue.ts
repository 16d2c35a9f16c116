/** The pg-boss queue of webhook delivery attempts: one queue entry per attempt. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';

export interface DeliveryAttemptPayload {
  delivery_id: string;
  /** Must equal the delivery's `attempt_token`, or the attempt was superseded (manual retry). */
  token: string;
  /** A person asked for this attempt (test event, manual retry): sent even to a disabled webhook. */
  manual: boolean;
}

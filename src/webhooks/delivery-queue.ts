import { z } from 'zod';
import { defineQueue } from '../infra/queue/queue-definition';

/** The pg-boss queue of webhook delivery attempts: one queue entry per attempt. */
export const WEBHOOK_DELIVERY_QUEUE = defineQueue(
  'webhook-delivery',
  z.strictObject({
    delivery_id: z.string().min(1).max(100),
    /** Must equal the delivery's `attempt_token`, or the attempt was superseded (manual retry). */
    token: z.string().min(1).max(200),
    /** A person asked for this attempt (test event, manual retry): sent even to a disabled webhook. */
    manual: z.boolean(),
  }),
);

export type DeliveryAttemptPayload = z.infer<typeof WEBHOOK_DELIVERY_QUEUE.payload>;

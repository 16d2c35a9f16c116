/**
 * Webhook verification. The service signs deliveries per Standard Webhooks (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`, secret `whsec_…`), so the
 * reference library verifies them: `new Webhook(secret).verify(rawBody, headers)` returns the event
 * or throws WebhookVerificationError.
 */
export { Webhook, WebhookVerificationError } from 'standardwebhooks';

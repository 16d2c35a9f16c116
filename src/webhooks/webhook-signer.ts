import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * A workspace signing secret: `whsec_` + base64 of 24 random bytes, the form Standard Webhooks
 * libraries (and svix) accept as is. 24 bytes encode without `=` padding, which some verifiers trip on.
 */
export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Standard Webhooks signature headers for one attempt: `v1,` + base64 of HMAC-SHA256 over
 * `{id}.{timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): SignedHeaders {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`A signing secret starts with ${SECRET_PREFIX}`);
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}

import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateSigningSecret, signWebhook } from './webhook-signer';

describe('webhook signer', () => {
  const body = JSON.stringify({
    type: 'render.completed',
    timestamp: '2025-11-22T10:00:00.000Z',
    data: { id: 'render_1', metadata: { order: 'é€' } },
  });
  const now = () => Math.floor(Date.now() / 1000);

  it('makes whsec_ secrets of 24 random bytes, different every time', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it('signs so that the standardwebhooks verifier accepts the delivery', () => {
    const secret = generateSigningSecret();
    const headers = signWebhook(secret, 'evt_01ABC', now(), body);
    expect(headers['webhook-id']).toBe('evt_01ABC');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('agrees byte for byte with the reference implementation', () => {
    const secret = generateSigningSecret();
    const timestamp = now();
    const reference = new Webhook(secret).sign('evt_1', new Date(timestamp * 1000), body);
    expect(signWebhook(secret, 'evt_1', timestamp, body)['webhook-signature']).toBe(reference);
  });

  it('is rejected with another secret, a changed body, id or timestamp, or an old timestamp', () => {
    const secret = generateSigningSecret();
    const timestamp = now();
    const headers = signWebhook(secret, 'evt_1', timestamp, body);
    const verifier = new Webhook(secret);
    expect(() => new Webhook(generateSigningSecret()).verify(body, { ...headers })).toThrow(WebhookVerificationError);
    expect(() => verifier.verify(body.replace('render_1', 'render_2'), { ...headers })).toThrow(WebhookVerificationError);
    expect(() => verifier.verify(body, { ...headers, 'webhook-id': 'evt_2' })).toThrow(WebhookVerificationError);
    expect(() => verifier.verify(body, { ...headers, 'webhook-timestamp': String(timestamp + 1) })).toThrow(WebhookVerificationError);
    const stale = signWebhook(secret, 'evt_1', timestamp - 600, body);
    expect(() => verifier.verify(body, { ...stale })).toThrow(WebhookVerificationError);
  });

  it('refuses a secret without the whsec_ prefix', () => {
    expect(() => signWebhook('c2VjcmV0', 'evt_1', now(), body)).toThrow(/whsec_/);
  });
});

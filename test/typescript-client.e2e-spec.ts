import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createClient, JobFailedError, VideoRenderApiError, Webhook, type Job, type VideoRenderClient } from '../clients/typescript/src';
import { probe } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

/**
 * The typed client (clients/typescript) against the running service: the common flow (submit,
 * wait with progress over Server-Sent Events or polling, download), errors as typed envelopes,
 * and a webhook delivery verified with the client's re-exported Standard Webhooks verifier.
 */
describe('typed TypeScript client', () => {
  let app: TestApp;
  let client: VideoRenderClient;
  let key: string;
  let receiver: WebhookReceiver;
  let folder: string;
  const tiny = { width: 320, height: 180, duration: 1, frame_rate: 15, background_color: '#2040c0', output_format: 'mp4' } as const;

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'vrs-client-'));
    receiver = await startWebhookReceiver();
    app = await startTestApp({ role: 'all', env: { ALLOW_PRIVATE_NETWORK: 'true', ALLOW_HTTP_WEBHOOKS: 'true' } });
    ({ key } = await signupVerified(app));
    client = createClient({ baseUrl: app.url, apiKey: key });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('submits a 320x180 1 s render, follows its progress over events, downloads an mp4 of that size', async () => {
    const seen: Job[] = [];
    const { job, file } = await client.render(tiny, { onProgress: (current) => seen.push(current), timeoutMs: 280_000 });

    expect(job.status).toBe('completed');
    expect(job.output).toMatchObject({ width: 320, height: 180 });
    // Progress arrived as it happened: the first report is not yet final, the last one is.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(['ingesting', 'queued', 'processing']).toContain(seen[0].status);
    expect(seen.at(-1)!.status).toBe('completed');
    expect(seen.at(-1)!.progress_percent).toBe(100);

    expect(file.contentType).toBe('video/mp4');
    expect(file.filename).toBe(`${job.id}.mp4`);
    expect(Buffer.from(file.bytes.subarray(4, 8)).toString('latin1')).toBe('ftyp');
    const saved = path.join(folder, 'client.mp4');
    writeFileSync(saved, file.bytes);
    const info = await probe(saved);
    const video = info.streams.find((s) => s.codec_type === 'video')!;
    expect({ format: info.format.format_name.includes('mp4'), codec: video.codec_name, width: video.width, height: video.height }).toEqual({
      format: true,
      codec: 'h264',
      width: 320,
      height: 180,
    });
    expect(Number(info.format.duration)).toBeCloseTo(1, 1);
  }, 300_000);

  it('waits by polling too, and an Idempotency-Key replays the first answer', async () => {
    const first = await client.submitRender(tiny, { idempotencyKey: 'client-test-1' });
    const replay = await client.submitRender(tiny, { idempotencyKey: 'client-test-1' });
    expect(replay.id).toBe(first.id);
    expect(first.ok).toBe(true);
    const statuses: string[] = [];
    const done = await client.waitForJob('render', first.id, { via: 'polling', pollIntervalMs: 100, onProgress: (j) => statuses.push(j.status), timeoutMs: 120_000 });
    expect(done.status).toBe('completed');
    expect(statuses.at(-1)).toBe('completed');
  }, 300_000);

  it('surfaces a validation error as VideoRenderApiError with the service envelope', async () => {
    const error = await client.submitRender({ ...tiny, width: -5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VideoRenderApiError);
    const apiError = error as VideoRenderApiError;
    expect(apiError.status).toBe(422);
    expect(apiError.code).toBe('invalid_request');
    expect(apiError.envelope?.error.code).toBe('invalid_request');
    expect(apiError.validationErrors.map((e) => e.pointer)).toContain('/width');

    const missing = await client.getJob('render', 'job_doesnotexist').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });

    const badKey = createClient({ baseUrl: app.url, apiKey: 'sk_wrong' });
    await expect(badKey.getJob('render', 'job_x')).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  }, 60_000);

  it('rejects with JobFailedError when the awaited job is cancelled', async () => {
    // A long render, cancelled at once: the wait ends with the cancelled job.
    const submitted = await client.submitRender({ ...tiny, duration: 20 });
    const waiting = client.waitForJob('render', submitted.id, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    await app.http.post(`/v1/renders/${submitted.id}/cancel`).set(bearer(key)).expect(200);
    const error = await waiting;
    expect(error).toBeInstanceOf(JobFailedError);
    expect((error as JobFailedError).job.status).toBe('cancelled');
  }, 90_000);

  it('verifies a webhook delivery with the re-exported Standard Webhooks verifier', async () => {
    const registered = await app.http
      .post('/v1/webhooks')
      .set(bearer(key))
      .send({ url: `${receiver.url}/client`, events: ['webhook.test'] })
      .expect(201);
    await app.http.post(`/v1/webhooks/${registered.body.id}/test`).set(bearer(key)).expect(202);
    const [delivery] = await receiver.waitFor('/client', () => true, 1, 30_000);

    const verified = new Webhook(registered.body.secret).verify(delivery.body, delivery.headers as Record<string, string>) as { type: string };
    expect(verified.type).toBe('webhook.test');
    const tampered = delivery.body.replace('webhook.test', 'webhook.tost');
    expect(() => new Webhook(registered.body.secret).verify(tampered, delivery.headers as Record<string, string>)).toThrow();
  }, 60_000);
});

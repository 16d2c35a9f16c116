import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { Storage } from '../src/infra/storage/storage';
import { RetentionService } from '../src/retention/retention.service';
import { makeImage, waitFor } from './helpers/media';
import { withRenderApp } from './helpers/render-app';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

/**
 * Reuse of identical renders against the real app: the same resolved request completes at once
 * with the stored bytes (`output.reused_from`, no render minutes, render.completed sent), and is
 * rendered again when asked not to reuse, when a source is an external URL the service does not
 * hold, or when the earlier output is no longer stored. Retention keeps a shared file while its
 * youngest render is within RENDER_RETENTION_DAYS, then expires every render sharing it at once.
 */
describe('render reuse', () => {
  let receiver: WebhookReceiver;
  const request = { width: 320, height: 180, duration: 1, frame_rate: 10, background_color: '#ff0000' };
  const house = withRenderApp({
    name: 'reuse',
    env: { ALLOW_HTTP_WEBHOOKS: 'true', RENDER_REUSE: 'true', RENDER_RETENTION_DAYS: '7' },
    fixtures: (dir) => makeImage(path.join(dir, 'bg.png'), 'blue', 320, 180),
  });

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
  });

  const submit = (body: object) => house.api().post('/v1/renders').send(body);
  const completed = (id: string) =>
    waitFor(
      async () => (await house.api().get(`/v1/renders/${id}`).expect(200)).body,
      (job) => ['completed', 'failed', 'cancelled'].includes(job.status),
      180_000,
    );
  const minutes = async () => (await house.api().get('/v1/workspace/usage').expect(200)).body.render_minutes as number;
  const bytes = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

  it('serves an identical render from the stored output at no cost, and renders again without reuse', async () => {
    const first = await completed((await submit(request).expect(202)).body.id);
    expect(first.status).toBe('completed');
    expect(first.output.reused_from).toBeUndefined();
    const used = await minutes();
    expect(used).toBeGreaterThan(0);

    const again = await submit({ ...request, metadata: { try: 2 }, webhook_url: `${receiver.url}/reuse` });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'completed', progress_percent: 100, metadata: { try: 2 } });
    expect(again.body.id).not.toBe(first.id);
    expect(again.body.output.reused_from).toBe(first.id);
    expect((await bytes(again.body.output.url)).equals(await bytes(first.output.url))).toBe(true);
    expect(await minutes()).toBe(used);
    const [event] = await receiver.waitFor('/reuse', (d) => d.json.type === 'render.completed');
    expect(event.json.data).toMatchObject({ id: again.body.id, status: 'completed', output: { reused_from: first.id } });

    const fresh = await submit({ ...request, reuse: false });
    expect(fresh.status).toBe(202);
    expect(fresh.body.status).not.toBe('completed');
    const rendered = await completed(fresh.body.id);
    expect(rendered.status).toBe('completed');
    expect(rendered.output.reused_from).toBeUndefined();
  }, 240_000);

  it('never reuses a render whose source is an external URL the service does not hold', async () => {
    const body = { ...request, background_image_url: `${house.media.url}/bg.png`, ingest_external: false };
    const first = await completed((await submit(body).expect(202)).body.id);
    expect(first.status).toBe('completed');
    const second = await submit(body).expect(202);
    expect(second.body.status).not.toBe('completed');
    const done = await completed(second.body.id);
    expect(done.status).toBe('completed');
    expect(done.output.reused_from).toBeUndefined();
  }, 240_000);

  it('renders again once the earlier output is no longer stored', async () => {
    const body = { ...request, background_color: '#00ff00' };
    const first = await completed((await submit(body).expect(202)).body.id);
    const reused = await submit(body).expect(202);
    expect(reused.body.output.reused_from).toBe(first.id);

    const [{ output_key }] = await house.app.running.app.get(DataSource).query(`SELECT output_key FROM jobs WHERE id = $1`, [first.id]);
    await house.app.running.app.get(Storage).delete(output_key);
    const after = await submit(body).expect(202);
    expect(after.body.status).not.toBe('completed');
    const done = await completed(after.body.id);
    expect(done.status).toBe('completed');
    expect(done.output.reused_from).toBeUndefined();
  }, 240_000);

  it('keeps a reused file while its youngest render is young, then expires every render sharing it; an expired output is never reused', async () => {
    const db = house.app.running.app.get(DataSource);
    const storage = house.app.running.app.get(Storage);
    const retention = house.app.running.app.get(RetentionService);
    // Another sweep (the schedule's) may hold the lock: sweep until this one ran.
    const sweep = () => waitFor(() => retention.sweep(), (report) => report !== null, 30_000);
    const backdate = (id: string) => db.query(`UPDATE jobs SET completed_at = now() - interval '8 days' WHERE id = $1`, [id]);
    const body = { width: 32, height: 32, output_format: 'png', background_color: '#123456' };
    const first = await completed((await submit(body).expect(202)).body.id);
    const second = (await submit(body).expect(202)).body;
    expect(second.output.reused_from).toBe(first.id);
    const [{ output_key }] = await db.query(`SELECT output_key FROM jobs WHERE id = $1`, [first.id]);

    await backdate(first.id);
    await sweep();
    const kept = (await house.api().get(`/v1/renders/${first.id}`).expect(200)).body;
    expect(kept.output.expired_at).toBeUndefined();
    expect(await storage.stat(output_key)).not.toBeNull();
    expect((await bytes(kept.output.url)).equals(await bytes(second.output.url))).toBe(true);

    await backdate(second.id);
    await sweep();
    for (const id of [first.id, second.id]) {
      const gone = (await house.api().get(`/v1/renders/${id}`).expect(200)).body;
      expect(gone.output).toMatchObject({ url: null, expired_at: expect.any(String) });
      expect((await house.api().get(`/v1/renders/${id}/download`)).status).toBe(404);
    }
    expect(await storage.stat(output_key).catch(() => null)).toBeNull();

    const fresh = await submit(body).expect(202);
    expect(fresh.body.status).not.toBe('completed');
    const done = await completed(fresh.body.id);
    expect(done.status).toBe('completed');
    expect(done.output.reused_from).toBeUndefined();
  }, 240_000);
});

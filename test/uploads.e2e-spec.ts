import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { Storage } from '../src/infra/storage/storage';
import { makeImage, makeVideo, probe, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

/** Path and query of a URL the service signed, for the supertest client. */
function local(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/**
 * Uploads and assets end to end: real PostgreSQL, the local storage driver's signed PUT route,
 * ffprobe on the worker queue, a render (Chromium) reading an upload from storage, and
 * `asset.ready` delivered to a loopback webhook endpoint.
 */
describe('uploads and assets', () => {
  let app: TestApp;
  let key: string;
  let workspaceId: string;
  let receiver: WebhookReceiver;
  const fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-upload-fixtures-'));
  const clip = path.join(fixtures, 'clip.mp4');
  const tone = path.join(fixtures, 'tone.wav');
  const logo = path.join(fixtures, 'logo.png');

  beforeAll(async () => {
    await makeVideo(clip, { width: 320, height: 180, seconds: 1, fps: 25 });
    await makeImage(logo, 'green', 64, 48);
    execFileSync('ffmpeg', ['-y', '-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', tone]);
    receiver = await startWebhookReceiver();
    app = await startTestApp({ role: 'all', env: { ALLOW_PRIVATE_NETWORK: 'true', ALLOW_HTTP_WEBHOOKS: 'true' } });
    ({ key, workspaceId } = await signupVerified(app));
    const hook = await app.http.post('/v1/webhooks').set(bearer(key)).send({ url: `${receiver.url}/assets`, events: ['asset.ready'] });
    expect(hook.status).toBe(201);
    receiver.setSecret('/assets', hook.body.secret);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
    rmSync(fixtures, { recursive: true, force: true });
  });

  const reserve = (body: object, apiKey = key) => app.http.post('/v1/uploads').set(bearer(apiKey)).send(body);
  const detail = (id: string, apiKey = key) => app.http.get(`/v1/workspace/assets/${id}`).set(bearer(apiKey));
  const listIds = async (query = '') =>
    ((await app.http.get(`/v1/workspace/assets${query}`).set(bearer(key)).expect(200)).body.data as { id: string }[]).map((a) => a.id);
  const put = (uploadUrl: string, file: string, contentType: string) =>
    app.http.put(local(uploadUrl)).set('Content-Type', contentType).send(readFileSync(file));
  const untilStatus = (id: string, status: string) =>
    waitFor(async () => (await detail(id)).body, (asset) => asset.status === status, 30_000, 100);
  const render = (elements: object[], apiKey = key) =>
    app.http.post('/v1/renders').set(bearer(apiKey)).send({ width: 64, height: 36, duration: 0.5, frame_rate: 10, elements });

  it('reserves, takes the PUT, probes, lists, announces asset.ready, and renders from source_url via storage', async () => {
    const slot = await reserve({ content_type: 'video/mp4', filename: 'clip.mp4' });
    expect(slot.status).toBe(201);
    const id = slot.body.asset_id as string;
    expect(id).toMatch(/^asset_[0-9A-Z]{26}$/);
    expect(slot.body.source_url).toBe(`${new URL(slot.body.upload_url).origin}/v1/workspace/assets/${id}/content`);
    expect(slot.body.upload_url).toContain(`/v1/files/${workspaceId}/assets/${id}.mp4?`);
    expect(Math.abs(Date.parse(slot.body.expires_at) - Date.now() - 3600_000)).toBeLessThan(5_000);

    const reserved = await detail(id).expect(200);
    expect(reserved.body).toMatchObject({ id, kind: 'video', name: 'clip.mp4', status: 'reserved', bytes_uploaded: false, duration: null });
    expect(await listIds()).not.toContain(id); // a video without a known duration is not listed yet

    await put(slot.body.upload_url, clip, 'video/mp4').expect(200);
    expect((await detail(id)).body.bytes_uploaded).toBe(true);
    const probed = await untilStatus(id, 'present');
    expect(probed).toMatchObject({ width: 320, height: 180, video_codec: 'h264', audio_codec: 'aac', size_bytes: statSync(clip).size, error: null });
    expect(probed.duration).toBeCloseTo(1, 1);
    expect(await listIds()).toContain(id);
    expect(await listIds('?kind=video')).toContain(id);
    expect(await listIds('?kind=image')).not.toContain(id);

    const [ready] = await receiver.waitFor('/assets', (d) => d.json.data.id === id);
    expect(ready.verified).toBe(true);
    expect(ready.json).toMatchObject({ type: 'asset.ready', data: { id, status: 'present', source_url: slot.body.source_url, bytes_uploaded: true } });

    // The source_url itself answers the owner with a redirect to the bytes.
    const content = await app.http.get(local(slot.body.source_url)).set(bearer(key)).expect(302);
    expect((await app.http.get(local(content.headers.location)).buffer(true).expect(200)).body.length).toBe(statSync(clip).size);

    // No out_point needed (its length is known), no ingest (it is already stored): straight to the queue.
    const job = await render([{ type: 'video', source_url: slot.body.source_url }]);
    expect(job.status).toBe(202);
    expect(job.body.status).toBe('queued');
    const done = await waitFor(async () => (await app.http.get(`/v1/renders/${job.body.id}`).set(bearer(key))).body, (j) => j.status !== 'queued' && j.status !== 'processing', 60_000);
    expect(done.error).toBeNull();
    expect(done.status).toBe('completed');
    const output = path.join(fixtures, 'from-upload.mp4');
    writeFileSync(output, Buffer.from(await (await fetch(done.output.url)).arrayBuffer()));
    expect((await probe(output)).streams.find((s) => s.codec_type === 'video')).toMatchObject({ width: 64, height: 36 });
  }, 90_000);

  it('lists audio with a client-supplied duration at once (the probe overrides it), images at once', async () => {
    const audio = await reserve({ content_type: 'audio/wav', filename: 'tone.wav', duration: 7.5, width: 10 });
    const image = await reserve({ content_type: 'image/png', duration: 3, width: 64, height: 48 });
    for (const slot of [audio, image]) expect(slot.status).toBe(201);
    const listed = (await app.http.get('/v1/workspace/assets?limit=200').set(bearer(key)).expect(200)).body.data;
    expect(listed.find((a: { id: string }) => a.id === audio.body.asset_id)).toMatchObject({ kind: 'audio', duration: 7.5, width: null, status: 'reserved' });
    // Without a filename the asset shows as its storage key; a duration means nothing for an image.
    expect(listed.find((a: { id: string }) => a.id === image.body.asset_id)).toMatchObject({
      kind: 'image', name: `${workspaceId}/assets/${image.body.asset_id}.png`, duration: null, width: 64, height: 48,
    });
    expect(await listIds('?kind=audio')).toEqual([audio.body.asset_id]);

    // Usable only once the bytes are there.
    for (const [slot, type] of [[audio, 'audio'], [image, 'image']] as const) {
      const early = await render([{ type, source_url: slot.body.source_url }]);
      expect(early.status).toBe(422);
      expect(early.body.error).toMatchObject({ code: 'asset_not_ready', details: { pointer: '/elements/0/source_url', asset_id: slot.body.asset_id, status: 'reserved' } });
      expect(early.body.error.message).toMatch(/asset\.ready/);
    }

    await put(audio.body.upload_url, tone, 'audio/wav').expect(200);
    await put(image.body.upload_url, logo, 'image/png').expect(200);
    const probedAudio = await untilStatus(audio.body.asset_id, 'present');
    expect(probedAudio.duration).toBeCloseTo(1, 1);
    expect(probedAudio.audio_codec).toMatch(/^pcm_/);
    expect(await untilStatus(image.body.asset_id, 'present')).toMatchObject({ width: 64, height: 48, video_codec: 'png', duration: null });
  });

  it('pages the list with limit and cursor, newest first; rejects a bad kind', async () => {
    // Its own workspace: three image slots, listed as soon as they are reserved.
    const mine = await signupVerified(app);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await reserve({ content_type: 'image/png', filename: `${i}.png` }, mine.key).expect(201)).body.asset_id);
    const first = await app.http.get('/v1/workspace/assets?limit=2').set(bearer(mine.key)).expect(200);
    expect(first.body.data.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.has_more).toBe(true);
    const next = await app.http.get(`/v1/workspace/assets?limit=2&cursor=${first.body.next_cursor}`).set(bearer(mine.key)).expect(200);
    expect(next.body.data.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
    expect(next.body.has_more).toBe(false);
    const bad = await app.http.get('/v1/workspace/assets?kind=videos').set(bearer(key));
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.errors[0]).toMatchObject({ type: 'enum', loc: ['query', 'kind'], suggestion: 'video' });
  });

  it('refuses a non-media content type at reservation and a wrong, expired or tampered upload', async () => {
    const pdf = await reserve({ content_type: 'application/pdf' });
    expect(pdf.status).toBe(422);
    expect(pdf.body.error.details.errors[0]).toMatchObject({ loc: ['body', 'content_type'], pointer: '/content_type' });
    expect(pdf.body.error.details.errors[0].msg).toMatch(/video\/…, audio\/…, image\/… or font/);
    const malformed = await reserve({ content_type: 'video', filename: 'a.mp4', colour: 'red' });
    expect(malformed.status).toBe(422);
    expect(malformed.body.error.details.errors.map((e: { type: string }) => e.type).sort()).toEqual(['extra_forbidden', 'string_pattern_mismatch']);

    const slot = await reserve({ content_type: 'video/mp4' });
    const wrongType = await put(slot.body.upload_url, clip, 'video/webm');
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.error.details.errors[0]).toMatchObject({ type: 'literal_error', loc: ['header', 'content-type'] });

    const tampered = new URL(slot.body.upload_url);
    tampered.searchParams.set('content_type', 'image/png');
    const forged = await app.http.put(local(tampered.toString())).set('Content-Type', 'image/png').send(readFileSync(logo));
    expect(forged.status).toBe(403);
    expect(forged.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/signature does not match/) });

    // The same URL an hour and a bit later.
    const realNow = Date.now.bind(Date);
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 3601_000);
    let expired;
    try {
      expired = await put(slot.body.upload_url, clip, 'video/mp4');
    } finally {
      clock.mockRestore();
    }
    expect(expired.status).toBe(403);
    expect(expired.body.error.message).toMatch(/expired at/);
    expect(expired.body.error.details.expired_at).toBe(slot.body.expires_at);
    expect((await detail(slot.body.asset_id)).body).toMatchObject({ status: 'reserved', bytes_uploaded: false });
  });

  it('marks undecodable bytes unreadable: not listed, and a render naming them is 422 codec_unsupported', async () => {
    const garbage = path.join(fixtures, 'garbage.mp4');
    writeFileSync(garbage, 'this is not a video at all');
    const slot = await reserve({ content_type: 'video/mp4', duration: 3 });
    await put(slot.body.upload_url, garbage, 'video/mp4').expect(200);
    const unreadable = await untilStatus(slot.body.asset_id, 'unreadable');
    expect(unreadable.error).toMatchObject({ code: 'codec_unsupported', message: expect.stringMatching(/ffprobe/) });
    expect(await listIds()).not.toContain(slot.body.asset_id);
    const res = await render([{ type: 'video', source_url: slot.body.source_url }]);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'codec_unsupported', details: { pointer: '/elements/0/source_url' } });
  });

  it('probes bytes that arrive without the upload route (GCS) when the asset is read; still probing is asset_not_ready', async () => {
    const storage = app.running.app.get(Storage);
    const db = app.running.app.get(DataSource);
    const image = await reserve({ content_type: 'image/png', filename: 'direct.png' });
    const [{ storage_key: imageKey }] = await db.query(`SELECT storage_key FROM assets WHERE id = $1`, [image.body.asset_id]);
    await storage.putFile(imageKey, logo, 'image/png');
    // Named in a request: the bytes are found, the probe starts, and the request must wait for it.
    const waiting = await render([{ type: 'image', source_url: image.body.source_url }]);
    expect(waiting.status).toBe(422);
    expect(waiting.body.error).toMatchObject({ code: 'asset_not_ready', details: { status: 'probing' } });
    expect(waiting.body.error.message).toMatch(/still being probed/);
    await untilStatus(image.body.asset_id, 'present');

    const video = await reserve({ content_type: 'video/mp4' });
    const [{ storage_key: videoKey }] = await db.query(`SELECT storage_key FROM assets WHERE id = $1`, [video.body.asset_id]);
    await storage.putFile(videoKey, clip, 'video/mp4');
    expect((await detail(video.body.asset_id)).body).toMatchObject({ bytes_uploaded: true, status: 'probing' });
    expect((await untilStatus(video.body.asset_id, 'present')).duration).toBeCloseTo(1, 1);
  });

  it('deletes the row and the stored file; the URL then names nothing', async () => {
    const slot = await reserve({ content_type: 'image/png', filename: 'bye.png' });
    await put(slot.body.upload_url, logo, 'image/png').expect(200);
    await untilStatus(slot.body.asset_id, 'present');
    const file = path.join(app.dataDir, 'storage', workspaceId, 'assets', `${slot.body.asset_id}.png`);
    expect(existsSync(file)).toBe(true);

    await app.http.delete(`/v1/workspace/assets/${slot.body.asset_id}`).set(bearer(key)).expect(204);
    expect(existsSync(file)).toBe(false);
    expect((await detail(slot.body.asset_id)).status).toBe(404);
    expect(await listIds('?limit=200')).not.toContain(slot.body.asset_id);
    const named = await render([{ type: 'image', source_url: slot.body.source_url }]);
    expect(named.status).toBe(422);
    expect(named.body.error.code).toBe('source_not_found');
    await app.http.delete(`/v1/workspace/assets/${slot.body.asset_id}`).set(bearer(key)).expect(404);

    // The upload URL outlives the asset, but bytes PUT to it afterwards are not kept.
    await put(slot.body.upload_url, logo, 'image/png').expect(200);
    expect(existsSync(file)).toBe(false);
  });

  it("keeps workspaces apart: another workspace's asset is 404, and its source_url in a render is refused", async () => {
    const mine = await reserve({ content_type: 'image/png', filename: 'mine.png' });
    await put(mine.body.upload_url, logo, 'image/png').expect(200);
    await untilStatus(mine.body.asset_id, 'present');

    const other = await signupVerified(app);
    for (const route of [`/v1/workspace/assets/${mine.body.asset_id}`, `/v1/workspace/assets/${mine.body.asset_id}/content`]) {
      const res = await app.http.get(route).set(bearer(other.key));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await app.http.delete(`/v1/workspace/assets/${mine.body.asset_id}`).set(bearer(other.key))).status).toBe(404);
    expect((await app.http.get('/v1/workspace/assets').set(bearer(other.key)).expect(200)).body).toEqual({ data: [], next_cursor: null, has_more: false });
    const stolen = await render([{ type: 'image', source_url: mine.body.source_url }], other.key);
    expect(stolen.status).toBe(422);
    expect(stolen.body.error).toMatchObject({ code: 'source_not_found', details: { pointer: '/elements/0/source_url' } });
    expect((await detail(mine.body.asset_id)).body.status).toBe('present'); // untouched
  });
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { serveFolder } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';

interface ServerSentEvent {
  event: string;
  data: any;
}

/** Opens an event stream with a plain HTTP client; resolves when the server ends the stream. */
function readEvents(url: string, key: string, onEvent: (event: ServerSentEvent) => void = () => undefined) {
  return new Promise<{ response: IncomingMessage; events: ServerSentEvent[]; comments: string[] }>((resolve, reject) => {
    const request = get(url, { headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' } }, (response) => {
      const events: ServerSentEvent[] = [];
      const comments: string[] = [];
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          comments.push(...lines.filter((line) => line.startsWith(':')));
          const name = lines.find((line) => line.startsWith('event: '))?.slice(7);
          const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
          if (name) {
            const event = { event: name, data: response.headers['content-type']?.startsWith('text/event-stream') ? JSON.parse(data) : data };
            events.push(event);
            onEvent(event);
          }
        }
      });
      response.on('end', () => resolve({ response, events, comments }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** Reads a whole non-stream answer (an error envelope). */
function readBody(url: string, key: string | null) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    get(url, { headers: key ? { Authorization: `Bearer ${key}` } : {} }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    }).on('error', reject);
  });
}

describe('job event streams (Server-Sent Events)', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    app = await startTestApp({ role: 'all' });
    ({ key } = await signupVerified(app));
    ({ key: otherKey } = await signupVerified(app));
  }, 180_000);

  afterAll(async () => {
    await app?.close();
  });

  it('streams a render from queued through rising progress to completed, then closes', async () => {
    // 120 frames at 320x180: a few seconds of rendering, long enough for several progress writes.
    const submitted = await app.http
      .post('/v1/renders')
      .set(bearer(key))
      .send({
        width: 320,
        height: 180,
        duration: 4,
        frame_rate: 30,
        background_color: '#1d4ed8',
        elements: [{ type: 'shape', width: 80, height: 80, fill_color: '#ef4444', motion: [{ type: 'slide', direction: 'right', duration: 4 }] }],
      })
      .expect(202);
    const id = submitted.body.id;

    const { response, events } = await readEvents(`${app.url}/v1/renders/${id}/events`, key);

    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(response.headers['cache-control']).toContain('no-cache');
    // The first event is the status the job had when the stream opened; the last, its final status.
    expect(events[0].event).toBe('status');
    expect(['ingesting', 'queued', 'processing']).toContain(events[0].data.status);
    const last = events.at(-1)!;
    expect(last.event).toBe('status');
    expect(last.data).toMatchObject({ id, kind: 'render', status: 'completed', progress_percent: 100 });
    expect(last.data.output.url).toMatch(/^http/);
    // Every event carries the Job object.
    const statuses = events.filter((e) => e.event === 'status').map((e) => e.data.status);
    expect(statuses).toContain('processing');
    const progress = events.filter((e) => e.event === 'progress').map((e) => e.data);
    expect(progress.every((view) => view.id === id && view.status === 'processing')).toBe(true);
    // Progress rises within an attempt (a retry after a crashed browser starts again from 0): the
    // attempt that completed reported at least two distinct, increasing percentages.
    const percents = progress.map((view) => view.progress_percent);
    const restart = percents.findLastIndex((percent, i) => i > 0 && percent < percents[i - 1]);
    const lastAttempt = percents.slice(Math.max(restart, 0));
    expect(lastAttempt).toEqual([...lastAttempt].sort((a, b) => a - b));
    expect(new Set(lastAttempt).size).toBeGreaterThanOrEqual(2);
    expect(progress.some((view) => view.progress_stage === 'compositing' || view.progress_stage === 'encoding')).toBe(true);

    // What the stream ended with is what GET shows.
    const final = await app.http.get(`/v1/renders/${id}`).set(bearer(key)).expect(200);
    expect(final.body.status).toBe('completed');

    // A stream opened on a finished job sends its status once and closes.
    const again = await readEvents(`${app.url}/v1/renders/${id}/events`, key);
    expect(again.events.map((e) => [e.event, e.data.status])).toEqual([['status', 'completed']]);
  }, 180_000);

  it('answers like every route: 401 without a key, 404 for an unknown id or another workspace’s job', async () => {
    const submitted = await app.http
      .post('/v1/renders')
      .set(bearer(key))
      .send({ width: 64, height: 64, duration: 0.2, elements: [] })
      .expect(202);
    const id = submitted.body.id;

    const anonymous = await readBody(`${app.url}/v1/renders/${id}/events`, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('unauthorized');

    const foreign = await readBody(`${app.url}/v1/renders/${id}/events`, otherKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'not_found' });

    // A render is not a task: its id under /v1/tasks is unknown too.
    const wrongKind = await readBody(`${app.url}/v1/tasks/${id}/events`, key);
    expect(wrongKind.status).toBe(404);
    expect(wrongKind.body.error.code).toBe('not_found');

    const unknown = await readBody(`${app.url}/v1/tasks/task_doesnotexist/events`, key);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/Task/);
  }, 60_000);
});

describe('job event streams on an API process (nothing runs the jobs)', () => {
  let app: TestApp;
  let key: string;
  let media: Awaited<ReturnType<typeof serveFolder>>;
  const fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-events-'));

  beforeAll(async () => {
    execFileSync('ffmpeg', ['-y', '-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=16000:duration=1', path.join(fixtures, 'tone.wav')]);
    media = await serveFolder(fixtures);
    app = await startTestApp({ role: 'api', env: { ALLOW_PRIVATE_NETWORK: 'true' } });
    ({ key } = await signupVerified(app));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await media?.close();
    rmSync(fixtures, { recursive: true, force: true });
  });

  it('keeps a waiting task\'s stream open until it is cancelled, then sends `cancelled` and closes', async () => {
    const submitted = await app.http.post('/v1/tasks/transcribe').set(bearer(key)).send({ source_url: `${media.url}/tone.wav` }).expect(202);
    const id = submitted.body.id;
    let cancelled: Promise<unknown> | null = null;
    const { events } = await readEvents(`${app.url}/v1/tasks/${id}/events`, key, () => {
      // Cancel once the stream has shown the waiting job: the stream must then report the change.
      cancelled ??= app.http.post(`/v1/tasks/${id}/cancel`).set(bearer(key)).expect(200).then((res) => res.body);
    });
    expect(await cancelled).toMatchObject({ id, status: 'cancelled' });
    expect(events.map((e) => e.event)).toEqual(['status', 'status']);
    expect(['ingesting', 'queued']).toContain(events[0].data.status);
    expect(events[1].data).toMatchObject({ id, kind: 'task', task_type: 'transcribe', status: 'cancelled' });
  }, 60_000);
});

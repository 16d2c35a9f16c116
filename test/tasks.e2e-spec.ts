import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { makeImage, probe, serveFolder, waitFor } from './helpers/media';
import { bearer, signupVerified, startTestApp, TestApp } from './helpers/test-app';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

/**
 * The phrases the fixtures say. espeak-ng's synthetic voice is far from pocketsphinx's acoustic
 * model (word error rate above 90 % open-vocabulary), so the app under test runs pocketsphinx with
 * a JSGF grammar of these phrases (POCKETSPHINX_JSGF, an operator setting, not an API option):
 * recognition is then deterministic and these tests prove the plumbing and the timings. Real
 * accuracy is measured on real recordings in pocketsphinx.engine.spec.ts.
 */
const GRAMMAR = `#JSGF V1.0;
grammar fixtures;
public <speech> = <phrase>+;
<phrase> = the quick brown fox jumps over the lazy dog | hello world | seven green apples | good morning everyone;
`;

/** Spoken at 140 words a minute: at espeak-ng's default 175 the grammar search finds no path through the fox sentence. */
function speak(file: string, ssml: string) {
  execFileSync('espeak-ng', ['-s', '140', '-m', '-w', file, `<speak>${ssml}</speak>`]);
}

function local(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** Words ordered, inside the clip, and exactly the words of the utterances, in order. */
function expectConsistent(result: any) {
  const words = result.words as { text: string; start: number; end: number; confidence: number; speaker: string | null }[];
  expect(words.length).toBeGreaterThan(0);
  const clipMs = result.duration * 1000;
  words.forEach((word, i) => {
    expect(word.start).toBeGreaterThanOrEqual(i === 0 ? 0 : words[i - 1].end);
    expect(word.end).toBeGreaterThan(word.start);
    expect(word.end).toBeLessThanOrEqual(clipMs);
    expect(word.confidence).toBeGreaterThanOrEqual(0);
    expect(word.confidence).toBeLessThanOrEqual(1);
    expect(word.speaker).toBeNull();
  });
  expect(result.utterances.flatMap((u: any) => u.words)).toEqual(words);
  for (const utterance of result.utterances) {
    expect(utterance.start).toBe(utterance.words[0].start);
    expect(utterance.end).toBe(utterance.words[utterance.words.length - 1].end);
    expect(utterance.text).toBe(utterance.words.map((w: any) => w.text).join(' '));
  }
  expect(result.text).toBe(words.map((w) => w.text).join(' '));
}

describe('tasks: transcribe (pocketsphinx, grammar-constrained fixtures)', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  let media: Awaited<ReturnType<typeof serveFolder>>;
  let vanishing: Server;
  let vanishingUrl: string;
  let receiver: WebhookReceiver;
  const fixtures = mkdtempSync(path.join(tmpdir(), 'vrs-task-fixtures-'));

  beforeAll(async () => {
    writeFileSync(path.join(fixtures, 'fixtures.gram'), GRAMMAR);
    speak(path.join(fixtures, 'fox.wav'), 'the quick brown fox jumps over the lazy dog');
    speak(path.join(fixtures, 'two.wav'), "hello world<break time='1500ms'/>seven green apples");
    speak(path.join(fixtures, 'morning.wav'), 'good morning everyone');
    // A video whose audio track holds the speech (H.264 + AAC at 44.1 kHz, resampled by the service).
    execFileSync('ffmpeg', ['-y', '-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=10:duration=2', '-i', path.join(fixtures, 'morning.wav'),
      '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-ar', '44100', '-shortest', path.join(fixtures, 'morning.mp4')]);
    execFileSync('ffmpeg', ['-y', '-v', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '1', path.join(fixtures, 'silence.wav')]);
    await makeImage(path.join(fixtures, 'still.png'), 'green', 32, 32);
    writeFileSync(path.join(fixtures, 'garbage.wav'), 'this is not audio at all');
    media = await serveFolder(fixtures);
    // Answers the submit-time check, then the file is gone when the worker fetches it.
    vanishing = createServer((req, res) => res.writeHead(req.method === 'HEAD' ? 200 : 404).end());
    await new Promise<void>((resolve) => vanishing.listen(0, '127.0.0.1', resolve));
    vanishingUrl = `http://127.0.0.1:${(vanishing.address() as AddressInfo).port}/speech.wav`;
    receiver = await startWebhookReceiver();
    app = await startTestApp({
      role: 'all',
      env: { ALLOW_PRIVATE_NETWORK: 'true', ALLOW_HTTP_WEBHOOKS: 'true', POCKETSPHINX_JSGF: path.join(fixtures, 'fixtures.gram') },
    });
    ({ key } = await signupVerified(app));
    ({ key: otherKey } = await signupVerified(app));
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await media?.close();
    await receiver?.close();
    await new Promise((resolve) => vanishing?.close(resolve));
    rmSync(fixtures, { recursive: true, force: true });
  });

  const transcribe = (body: object, headers: Record<string, string> = {}, apiKey = key) =>
    app.http.post('/v1/tasks/transcribe').set(bearer(apiKey)).set(headers).send(body);
  const finish = (id: string) =>
    waitFor(
      async () => (await app.http.get(`/v1/tasks/${id}`).set(bearer(key)).expect(200)).body,
      (job) => ['completed', 'failed', 'cancelled'].includes(job.status),
      60_000,
      100,
    );

  it('transcribes a clip at a loopback URL: text, ordered word timings inside the clip, one utterance per pause, task.* events', async () => {
    receiver.setSecret('/task', (await app.http.post('/v1/webhooks').set(bearer(key)).send({ url: `${receiver.url}/unused`, events: ['task.completed'] })).body.secret);
    const res = await transcribe({ source_url: `${media.url}/two.wav`, metadata: { episode: 7 }, webhook_url: `${receiver.url}/task` });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ kind: 'task', task_type: 'transcribe', status: 'queued', output: null, result: null, metadata: { episode: 7 } });
    expect(res.body.id).toMatch(/^task_/);

    const job = await finish(res.body.id);
    expect(job.error).toBeNull();
    expect(job).toMatchObject({ status: 'completed', output: null, progress_percent: 100 });
    const { result } = job;
    expect(result.text).toBe('hello world seven green apples');
    expect(result.language_code).toBe('en-US');
    expect(result.duration).toBeCloseTo(Number((await probe(path.join(fixtures, 'two.wav'))).format.duration), 1);
    expectConsistent(result);
    // The 1.5 s pause splits the speech into two utterances, the second starting after it.
    expect(result.utterances.map((u: any) => u.text)).toEqual(['hello world', 'seven green apples']);
    expect(result.utterances[1].start - result.utterances[0].end).toBeGreaterThan(1000);
    expect(result.utterances[0].speaker).toBeNull();

    const [completed] = await receiver.waitFor('/task', (d) => d.json.type === 'task.completed');
    expect(completed.verified).toBe(true);
    expect(completed.json.data).toMatchObject({ id: job.id, status: 'completed', metadata: { episode: 7 } });
    expect(completed.json.data.result.text).toBe(result.text);

    const download = await app.http.get(`/v1/tasks/${job.id}/download`).set(bearer(key));
    expect(download.status).toBe(404);
    expect(download.body.error.code).toBe('not_found');
  });

  it('transcribes an upload by its source_url, with every analysis', async () => {
    const slot = await app.http.post('/v1/uploads').set(bearer(key)).send({ content_type: 'audio/wav', filename: 'fox.wav' });
    expect(slot.status).toBe(201);
    await app.http.put(local(slot.body.upload_url)).set('Content-Type', 'audio/wav').send(readFileSync(path.join(fixtures, 'fox.wav'))).expect(200);
    await waitFor(async () => (await app.http.get(`/v1/workspace/assets/${slot.body.asset_id}`).set(bearer(key))).body.status, (s) => s === 'present', 30_000, 100);

    const res = await transcribe({ source_url: slot.body.source_url, key_phrases: true, sentiment: true, entities: true, chapters: true, summary: true, punctuate: false });
    expect(res.status).toBe(202);
    const job = await finish(res.body.id);
    expect(job.status).toBe('completed');
    const { result } = job;
    expect(result.text).toBe('the quick brown fox jumps over the lazy dog');
    expectConsistent(result);
    expect(result.key_phrases.map((p: any) => p.text)).toEqual(expect.arrayContaining(['quick brown fox', 'lazy dog']));
    const fox = result.key_phrases.find((p: any) => p.text === 'quick brown fox');
    expect(fox.timestamps[0].start).toBe(result.words[1].start);
    expect(fox.timestamps[0].end).toBe(result.words[3].end);
    expect(result.sentiment).toEqual([expect.objectContaining({ text: result.text, sentiment: expect.stringMatching(/^(POSITIVE|NEUTRAL|NEGATIVE)$/), start: result.words[0].start })]);
    expect(Array.isArray(result.entities)).toBe(true);
    expect(result.summary).toBe(result.text);
    expect(result.chapters).toEqual([expect.objectContaining({ start: result.words[0].start, end: result.words[8].end, headline: result.text })]);
  });

  it('transcribes the audio track of a video', async () => {
    const job = await finish((await transcribe({ source_url: `${media.url}/morning.mp4` }).expect(202)).body.id);
    expect(job.status).toBe('completed');
    expect(job.result.text).toBe('good morning everyone');
    expect(job.result.duration).toBeLessThanOrEqual(2.05);
    expectConsistent(job.result);
  });

  it('fails tasks whose source is silent, not audio, undecodable or gone, with a clear code', async () => {
    const cases = [
      { file: `${media.url}/silence.wav`, code: 'no_speech', message: /silent/ },
      { file: `${media.url}/still.png`, code: 'invalid_source', message: /no audio track/ },
      { file: `${media.url}/garbage.wav`, code: 'codec_unsupported', message: /not audio or video/ },
      { file: vanishingUrl, code: 'source_not_found', message: /404/ },
    ];
    for (const { file, code, message } of cases) {
      const job = await finish((await transcribe({ source_url: file }).expect(202)).body.id);
      expect(job).toMatchObject({ status: 'failed', result: null, error: { code } });
      expect(job.error.message).toMatch(message);
    }
  });

  it('refuses at submit what is invalid, unreachable, or beyond the engine (never silently dropped)', async () => {
    const invalid = await transcribe({ source_url: `${media.url}/two.wav`, speaker_label: true });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details.errors[0]).toMatchObject({ type: 'extra_forbidden', suggestion: 'speaker_labels' });
    expect((await transcribe({})).body.error.details.errors[0]).toMatchObject({ type: 'missing', pointer: '/source_url' });
    expect((await transcribe({ source_url: 'ftp://example.com/a.wav' })).status).toBe(422);
    expect((await transcribe({ source_url: `${media.url}/two.wav`, speakers_expected: 2 })).body.error.details.errors[0].pointer).toBe('/speakers_expected');
    expect((await transcribe({ source_url: `${media.url}/two.wav`, language_code: 'not a code' })).status).toBe(422);
    const missing = await transcribe({ source_url: `${media.url}/nothing.wav` });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'source_not_found', details: { pointer: '/source_url' } });
    expect((await transcribe({ source_url: `${media.url}/two.wav`, webhook_url: 'http://169.254.169.254/hook' })).status).toBe(422);

    for (const [option, pointer] of [
      [{ speaker_labels: true, speakers_expected: 2 }, '/speaker_labels'],
      [{ punctuate: true }, '/punctuate'],
      [{ language_code: 'fr-FR' }, '/language_code'],
    ] as const) {
      const res = await transcribe({ source_url: `${media.url}/two.wav`, ...option });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'unsupported_feature', details: { engine: 'pocketsphinx', errors: [{ pointer }] } });
    }
    expect((await transcribe({ source_url: `${media.url}/two.wav`, language_code: 'en-US' })).status).toBe(202);

    const caps = (await app.http.get('/v1/capabilities').expect(200)).body;
    expect(caps.task_types).toEqual([
      { name: 'transcribe', supported: true },
      { name: 'remove_background', supported: false },
      { name: 'super_resolution', supported: false },
      { name: 'gaze_redirect', supported: false },
    ]);
    expect(caps.transcribe).toMatchObject({ engine: 'pocketsphinx', options: { speaker_labels: false, punctuate: false, language_detection: false, languages: ['en-US'] } });
    expect(caps.transcribe.engines.google).toMatchObject({ speaker_labels: true, punctuate: true, language_detection: true });
  });

  it('answers remove-background 422 after validating its body, other catalogued types 422, unknown types 404', async () => {
    const bad = await app.http.post('/v1/tasks/remove-background').set(bearer(key)).send({ source_url: `${media.url}/still.png`, output_alpha: 'yes' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', details: { errors: [{ pointer: '/output_alpha' }] } });
    expect((await app.http.post('/v1/tasks/remove-background').set(bearer(key)).send({ output_alpha: false })).body.error.code).toBe('invalid_request');
    const unsupported = await app.http.post('/v1/tasks/remove-background').set(bearer(key)).send({ source_url: `${media.url}/still.png`, output_alpha: false });
    expect(unsupported.status).toBe(422);
    expect(unsupported.body.error).toMatchObject({ code: 'unsupported_feature', details: { task_type: 'remove_background' } });
    expect((await app.http.post('/v1/tasks/super-resolution').set(bearer(key)).send({})).body.error.code).toBe('unsupported_feature');
    const unknown = await app.http.post('/v1/tasks/translate').set(bearer(key)).send({});
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('replays an Idempotency-Key, refuses it with another body, cancels, hides tasks from other workspaces, lists with filters and cursors, counts usage', async () => {
    // Its own workspace, and a source whose download waits until released, so the task is
    // certainly still running when it is cancelled.
    const mine = await signupVerified(app);
    const release = media.hold('two.wav');
    const body = { source_url: `${media.url}/two.wav`, metadata: { n: 1 } };
    const first = await transcribe(body, { 'Idempotency-Key': 'two-1' }, mine.key);
    expect(first.status).toBe(202);
    const replay = await transcribe(body, { 'Idempotency-Key': 'two-1' }, mine.key);
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(first.body.id);
    expect((await transcribe({ ...body, metadata: { n: 2 } }, { 'Idempotency-Key': 'two-1' }, mine.key)).status).toBe(409);

    await waitFor(async () => (await app.http.get(`/v1/tasks/${first.body.id}`).set(bearer(mine.key))).body.status, (status) => status === 'processing', 60_000, 50);
    const cancelled = await app.http.post(`/v1/tasks/${first.body.id}/cancel`).set(bearer(mine.key));
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    release();
    const again = await app.http.post(`/v1/tasks/${first.body.id}/cancel`).set(bearer(mine.key));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');

    for (const route of [`/v1/tasks/${first.body.id}`, `/v1/tasks/${first.body.id}/download`]) {
      expect((await app.http.get(route).set(bearer(otherKey))).status).toBe(404);
    }
    expect((await app.http.post(`/v1/tasks/${first.body.id}/cancel`).set(bearer(otherKey))).status).toBe(404);
    expect((await app.http.get('/v1/tasks').set(bearer(otherKey)).expect(200)).body.data).toEqual([]);

    // Two that complete and two that fail, for the filters.
    const made = [first.body.id];
    for (const source of ['fox.wav', 'morning.wav', 'silence.wav', 'garbage.wav']) {
      const res = await transcribe({ source_url: `${media.url}/${source}` }, {}, mine.key);
      expect(res.status).toBe(202);
      made.push(res.body.id);
    }
    for (const id of made) {
      await waitFor(async () => (await app.http.get(`/v1/tasks/${id}`).set(bearer(mine.key))).body.status, (s) => ['completed', 'failed', 'cancelled'].includes(s), 60_000, 100);
    }

    const all = (await app.http.get('/v1/tasks?limit=200').set(bearer(mine.key)).expect(200)).body;
    expect(all.data.map((t: any) => t.id)).toEqual([...made].reverse()); // newest first
    expect(all.data.every((t: any) => t.kind === 'task' && t.task_type === 'transcribe')).toBe(true);
    const ids = all.data.map((t: any) => t.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await app.http.get(`/v1/tasks?limit=2${cursor ? `&cursor=${cursor}` : ''}`).set(bearer(mine.key)).expect(200)).body;
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((t: any) => t.id));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(ids);

    const failed = (await app.http.get('/v1/tasks?status=failed&task_type=transcribe').set(bearer(mine.key)).expect(200)).body.data;
    expect(failed.map((t: any) => t.id).sort()).toEqual([made[3], made[4]].sort());
    const completed = (await app.http.get('/v1/tasks?status=completed').set(bearer(mine.key)).expect(200)).body.data;
    expect(completed.map((t: any) => t.id).sort()).toEqual([made[1], made[2]].sort());
    expect((await app.http.get('/v1/tasks?task_type=remove_background').set(bearer(mine.key)).expect(200)).body.data).toEqual([]);
    for (const query of ['limit=0', 'limit=201', 'task_type=translate', 'status=done', 'cursor=bogus']) {
      expect((await app.http.get(`/v1/tasks?${query}`).set(bearer(mine.key))).status).toBe(422);
    }

    const usage = (await app.http.get('/v1/workspace/usage').set(bearer(mine.key)).expect(200)).body;
    expect(usage.task_count).toBe(made.length);
  });
});

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { Frame, frameAt, waitFor } from './helpers/media';
import { Checks } from './helpers/checks';
import { withRenderApp } from './helpers/render-app';
import { startWebhookReceiver, WebhookReceiver } from './helpers/webhook-receiver';

/**
 * Captions from speech. The fixture says two phrases (espeak-ng) a pause apart, a second after
 * the clip starts. pocketsphinx runs with a JSGF grammar of the phrases (POCKETSPHINX_JSGF, as in
 * tasks.e2e-spec.ts), so recognition is deterministic: a transcribe task of the same clip gives the
 * word times the render must follow, and its captions export is checked against the same words.
 */
const GRAMMAR = `#JSGF V1.0;
grammar fixtures;
public <speech> = <phrase>+;
<phrase> = hello world | seven green apples;
`;

const FPS = 30;
const BACKGROUND = '#203040';

interface Word {
  text: string;
  start: number;
  end: number;
}

/** Caption ink in a frame: white (normal) and red (highlighted) pixels, with their mean x. */
function ink(frame: Frame) {
  let white = 0;
  let red = 0;
  let whiteX = 0;
  let redX = 0;
  for (let y = 0; y < frame.height; y++) {
    for (let x = 0; x < frame.width; x++) {
      const [r, g, b] = frame.at(x, y);
      if (r > 190 && g > 190 && b > 190) {
        white++;
        whiteX += x;
      } else if (r > 160 && g < 90 && b < 90) {
        red++;
        redX += x;
      }
    }
  }
  return { white, red, whiteX: white ? whiteX / white : NaN, redX: red ? redX / red : NaN };
}

/** Frame `n` of the output: ffmpeg's accurate seek returns the first frame at or after the time asked, so ask half a frame early. */
const frame = (file: string, n: number) => frameAt(file, Math.max(0, (n - 0.5) / FPS));
/** The frame a word starts on. */
const startFrame = (ms: number) => Math.floor((ms / 1000) * FPS + 1e-6);

/** SRT or VTT cues: start and end in ms, and the text lines. */
function parseCues(body: string): { start: number; end: number; lines: string[] }[] {
  const ms = (stamp: string) => {
    const [h, m, rest] = stamp.split(':');
    const [s, frac] = rest.split(/[,.]/);
    return ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(frac);
  };
  return body
    .trim()
    .split(/\n\n+/)
    .filter((block) => block.includes('-->'))
    .map((block) => {
      const lines = block.split('\n');
      const at = lines.findIndex((line) => line.includes('-->'));
      const [from, to] = lines[at].split(' --> ');
      return { start: ms(from.trim()), end: ms(to.trim()), lines: lines.slice(at + 1) };
    });
}

describe('captions from speech (pocketsphinx, grammar-constrained fixture)', () => {
  let otherKey: string;
  let receiver: WebhookReceiver;
  let clipUrl: string;
  let task: { id: string; result: { words: Word[] } };
  const house = withRenderApp({
    name: 'captions',
    env: (files) => ({ ALLOW_HTTP_WEBHOOKS: 'true', POCKETSPHINX_JSGF: path.join(files.fixtures, 'fixtures.gram') }),
    accounts: 2,
    fixtures: async (dir) => {
      writeFileSync(path.join(dir, 'fixtures.gram'), GRAMMAR);
      execFileSync('espeak-ng', ['-s', '140', '-m', '-w', path.join(dir, 'two.wav'), "<speak>hello world<break time='1500ms'/>seven green apples</speak>"]);
      // 320x180 of one colour, the speech a second in, half a second of silence after it.
      execFileSync('ffmpeg', ['-y', '-v', 'error', '-f', 'lavfi', '-i', `color=c=0x${BACKGROUND.slice(1)}:s=320x180:r=${FPS}`, '-i', path.join(dir, 'two.wav'),
        '-af', 'adelay=1000:all=1,apad=pad_dur=0.5', '-shortest', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-ar', '44100',
        path.join(dir, 'speech.mp4')]);
    },
  });

  beforeAll(async () => {
    otherKey = house.accounts[1].key;
    clipUrl = house.mediaUrl('speech.mp4');
    receiver = await startWebhookReceiver();
    // The reference words: a transcribe task of the very clip the render captions.
    const submitted = await house.api().post('/v1/tasks/transcribe').send({ source_url: clipUrl }).expect(202);
    task = await waitFor(
      async () => (await house.api().get(`/v1/tasks/${submitted.body.id}`).expect(200)).body,
      (job) => ['completed', 'failed', 'cancelled'].includes(job.status),
      90_000,
      100,
    );
    expect(task).toMatchObject({ status: 'completed', result: { text: 'hello world seven green apples' } });
  }, 180_000);

  afterAll(async () => {
    await receiver?.close();
  });

  it('captions a clip from its own speech: pages in the phrase windows, the spoken word highlighted from its frame on, one transcription cached', async () => {
    const [hello, world, seven] = task.result.words;
    const { job, file } = await house.render('captioned', {
      width: 320,
      height: 180,
      frame_rate: FPS,
      webhook_url: `${receiver.url}/progress`,
      elements: [
        { type: 'video', id: 'clip', source_url: clipUrl },
        {
          type: 'text',
          transcript: { source: 'clip', max_words: 3, highlight_color: '#ff0000' },
          font_family: 'Inter',
          font_weight: 800,
          font_size: 34,
          fill_color: '#ffffff',
          text_transform: 'uppercase',
          x_alignment: 'center',
        },
      ],
    }, 240_000);
    const checks = new Checks(40);

    // Nothing before the first word's frame; both words of the first page from it on, "hello" in red.
    const before = ink(await frame(file, startFrame(hello.start) - 1));
    checks.that('no caption before the first word', before.white + before.red < 5, before);
    const first = ink(await frame(file, startFrame(hello.start)));
    checks.that('first page on screen at the first word', first.white > 40 && first.red > 40, first);
    checks.that('the first word is the highlighted one (left of the rest)', first.redX < first.whiteX, first);
    // The highlight moves to "world" on exactly the frame its start falls in.
    const lastOfHello = ink(await frame(file, startFrame(world.start) - 1));
    const firstOfWorld = ink(await frame(file, startFrame(world.start)));
    checks.that('"hello" still highlighted the frame before "world" starts', lastOfHello.redX < lastOfHello.whiteX, lastOfHello);
    checks.that('"world" highlighted from its first frame', firstOfWorld.redX > firstOfWorld.whiteX && firstOfWorld.red > 40, firstOfWorld);
    // The pause between the phrases clears the screen (after the half-second hold), then the second page.
    const pauseFrame = startFrame((world.end + seven.start) / 2 + 300);
    if (pauseFrame < startFrame(seven.start)) {
      const pause = ink(await frame(file, pauseFrame));
      checks.that('no caption in the pause between phrases', pause.white + pause.red < 5, pause);
    }
    const second = ink(await frame(file, startFrame(seven.start) + 1));
    checks.that('second page on screen with its first word highlighted', second.red > 40 && second.white > 40 && second.redX < second.whiteX, second);
    checks.assertAll();

    // The job went through a transcription stage; the words are cached for the workspace.
    const progress = await receiver.waitFor('/progress', (d) => d.json.type === 'render.progress' && d.json.data.progress_stage === 'transcribing');
    expect(progress[0].json.data.id).toBe(job.id);
    const db = new Client({ connectionString: house.app.databaseUrl });
    await db.connect();
    try {
      const rows = (await db.query(`SELECT transcript FROM transcript_cache WHERE workspace_id = $1 AND source_url = $2`, [job.workspace_id, clipUrl])).rows;
      expect(rows).toHaveLength(1);
      expect(rows[0].transcript.words).toEqual(task.result.words);
    } finally {
      await db.end();
    }
  }, 300_000);

  it('exports a transcribe task as SRT and VTT, broken into the same pages', async () => {
    const words = task.result.words;
    const srt = await house.api().get(`/v1/tasks/${task.id}/captions?format=srt&max_words=3`).expect(200);
    expect(srt.headers['content-type']).toMatch(/^application\/x-subrip/);
    const vtt = await house.api().get(`/v1/tasks/${task.id}/captions?format=vtt&max_words=3`).expect(200);
    expect(vtt.headers['content-type']).toMatch(/^text\/vtt/);
    expect(vtt.text.startsWith('WEBVTT\n')).toBe(true);
    expect(srt.text.split('\n')[0]).toBe('1');
    for (const body of [srt.text, vtt.text]) {
      const cues = parseCues(body);
      expect(cues.map((cue) => cue.lines.join(' / '))).toEqual(['hello world', 'seven green apples']);
      expect(cues.flatMap((cue) => cue.lines.join(' ').split(' '))).toEqual(words.map((w) => w.text));
      expect(cues[0].start).toBe(words[0].start);
      expect(cues[1].start).toBe(words[2].start);
      // Each cue lasts past its last word (a short hold), never into the next cue.
      expect(cues[0].end).toBeGreaterThanOrEqual(words[1].end);
      expect(cues[0].end).toBeLessThanOrEqual(cues[1].start);
      expect(cues[1].end).toBeGreaterThanOrEqual(words[4].end);
    }
    // One word a line, two lines a cue: "seven / green", then "apples".
    const narrow = parseCues((await house.api().get(`/v1/tasks/${task.id}/captions?format=srt&max_words=1&max_lines=2`).expect(200)).text);
    expect(narrow.map((cue) => cue.lines)).toEqual([['hello', 'world'], ['seven', 'green'], ['apples']]);

    const badFormat = await house.api().get(`/v1/tasks/${task.id}/captions?format=ass`);
    expect(badFormat.status).toBe(422);
    expect(badFormat.body.error.details.errors[0]).toMatchObject({ loc: ['query', 'format'] });
    expect((await house.api(otherKey).get(`/v1/tasks/${task.id}/captions?format=srt`)).status).toBe(404);
  });

  it('refuses a caption source that is not a speaking element or a completed transcribe task of the workspace (422 with the pointer)', async () => {
    const body = (source: string) => ({
      width: 320,
      height: 180,
      elements: [
        { type: 'video', id: 'clip', source_url: clipUrl },
        { type: 'shape', id: 'box' },
        { type: 'text', transcript: { source } },
      ],
    });
    const cases: [string, string, RegExp][] = [
      ['clp', house.key, /did you mean "clip"/],
      ['box', house.key, /is a shape element/],
      [task.id, otherKey, /No task task_\w+ in this workspace/],
      ['task_01NOSUCHTASK0000000000000', house.key, /No task/],
    ];
    for (const [source, apiKey, message] of cases) {
      const res = await house.api(apiKey).post('/v1/renders').send(body(source));
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 422, code: 'invalid_request' });
      expect(res.body.error.details.errors[0]).toMatchObject({ pointer: '/elements/2/transcript/source' });
      expect(res.body.error.details.errors[0].msg).toMatch(message);
    }
    const both = await house.api().post('/v1/renders').send({ elements: [{ type: 'text', text: 'hi', transcript: { source: 'x' } }] });
    expect(both.status).toBe(422);
    expect(both.body.error.details.errors.map((e: { pointer: string }) => e.pointer)).toContain('/elements/0/transcript');
    const neither = await house.api().post('/v1/renders').send({ elements: [{ type: 'text' }] });
    expect(neither.status).toBe(422);
    expect(neither.body.error.details.errors[0]).toMatchObject({ pointer: '/elements/0/text', type: 'missing' });

    // The catalog publishes the fields (from the same zod schema).
    const capabilities = (await house.app.http.get('/v1/capabilities').expect(200)).body;
    const transcript = capabilities.element_schemas.text.properties.transcript;
    expect(Object.keys(transcript.properties)).toEqual(['source', 'max_words', 'max_chars', 'max_lines', 'highlight_color', 'highlight_background', 'reveal']);
    expect(transcript.required).toEqual(['source']);
  });
});

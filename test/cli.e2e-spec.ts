import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { deliverResponsesAfterNotifications } from './helpers/mcp';
import { FolderServer, frameAt, makeImage, near, probe, serveFolder } from './helpers/media';
import { freePort, signupVerified, startTestApp, TestApp } from './helpers/test-app';

const VRS = path.resolve(__dirname, '../clients/cli/bin/vrs.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The built `vrs`, as a child process, against the running service. */
describe('vrs, the command-line tool', () => {
  let app: TestApp;
  let folder: string;
  let env: Record<string, string>;
  let otherKey: string;
  let media: FolderServer;

  function vrs(args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
    return new Promise((resolve) => {
      execFile(process.execPath, [VRS, ...args], { cwd: folder, env: { PATH: process.env.PATH ?? '', ...env, ...extraEnv }, timeout: 300_000 }, (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  const request = (extra: Record<string, unknown> = {}) => ({
    width: 320,
    height: 180,
    duration: 1,
    background_color: '#16a34a',
    elements: [{ type: 'text', text: 'vrs', font_size: 60, fill_color: '#ffffff' }],
    ...extra,
  });

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'vrs-cli-'));
    // A grammar of the fixture's phrase keeps pocketsphinx's recognition deterministic.
    writeFileSync(path.join(folder, 'speech.gram'), '#JSGF V1.0;\ngrammar speech;\npublic <speech> = hello world;\n');
    execFileSync('espeak-ng', ['-s', '140', '-w', path.join(folder, 'speech.wav'), 'hello world']);
    await makeImage(path.join(folder, 'blue.png'), 'blue', 40, 20);
    // A loopback stand-in for a public media host (reachable with ALLOW_PRIVATE_NETWORK).
    media = await serveFolder(folder);
    app = await startTestApp({ env: { POCKETSPHINX_JSGF: path.join(folder, 'speech.gram'), ALLOW_PRIVATE_NETWORK: 'true' } });
    const { key } = await signupVerified(app);
    otherKey = (await signupVerified(app)).key;
    env = { XDG_CONFIG_HOME: path.join(folder, 'config'), HOME: folder };
    writeFileSync(path.join(folder, 'ok.json'), JSON.stringify(request()));
    await makeImage(path.join(folder, 'red.png'), 'red', 32, 32);
    writeFileSync(path.join(folder, 'typo.json'), JSON.stringify(request({ elements: [{ type: 'text', text: 'x', font_sise: 40 }] })));
    writeFileSync(path.join(folder, 'type-typo.json'), JSON.stringify(request({ elements: [{ type: 'txt', text: 'x' }] })));
    const login = await vrs(['login', '--url', app.url, '--key', key, '--json']);
    expect(login.code).toBe(0);
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await media?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('login stores the URL and key in the user config file, readable by its owner only', () => {
    const file = path.join(folder, 'config', 'vrs', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ api_url: app.url, api_key: expect.stringMatching(/^sk_/) });
  });

  it('documents the commands and exit codes in --help', async () => {
    const help = await vrs(['--help']);
    expect(help.code).toBe(0);
    for (const word of ['login', 'render FILE', 'preview FILE', 'status ID', 'cancel ID', 'upload FILE|URL', 'transcribe', 'projects', 'batch create --csv FILE', 'batch status ID', 'mcp', 'VRS_API_URL', 'VRS_API_KEY']) {
      expect(help.stdout).toContain(word);
    }
    expect(help.stdout).toMatch(/0\s+success/);
    expect(help.stdout).toMatch(/1\s+permanent failure/);
    expect(help.stdout).toMatch(/2\s+transient failure/);
  });

  it('render --wait --out writes a video ffprobe reads; --json prints one JSON document; status --watch follows the same job', async () => {
    // One render serves all: submitted without waiting, then followed by `status --watch` while the
    // same submit, replayed by its Idempotency-Key, waits and downloads.
    const submitted = await vrs(['render', 'ok.json', '--idempotency-key', 'cli-render-1', '--json']);
    expect(submitted.code).toBe(0);
    const queued = JSON.parse(submitted.stdout) as { id: string; status: string };
    expect(['queued', 'processing']).toContain(queued.status);
    const [watched, run] = await Promise.all([
      vrs(['status', queued.id, '--watch', '--json']),
      vrs(['render', 'ok.json', '--idempotency-key', 'cli-render-1', '--wait', '--out', 'out.mp4', '--json']),
    ]);
    expect([watched.code, JSON.parse(watched.stdout).id, JSON.parse(watched.stdout).status]).toEqual([0, queued.id, 'completed']);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const job = JSON.parse(run.stdout) as { id: string; status: string; output_path: string; download_url: string };
    expect(job.id).toBe(queued.id);
    expect(job).toEqual(expect.objectContaining({ id: expect.stringMatching(/^render_/), status: 'completed', output_path: path.join(folder, 'out.mp4') }));
    const probed = await probe(job.output_path);
    const video = probed.streams.find((s) => s.codec_type === 'video')!;
    expect([video.width, video.height]).toEqual([320, 180]);
    expect(Number(probed.format.duration)).toBeCloseTo(1, 1);
    expect(near((await frameAt(job.output_path, 0.5)).at(5, 5), [0x16, 0xa3, 0x4a])).toBe(true);

    const status = await vrs(['status', job.id, '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual(expect.objectContaining({ id: job.id, status: 'completed' }));
    // Another workspace's key does not see it: a permanent failure.
    const other = await vrs(['status', job.id, '--json'], { VRS_API_KEY: otherKey });
    expect(other.code).toBe(1);
    expect(JSON.parse(other.stdout).error.code).toBe('not_found');
  }, 300_000);

  it('preview --time --out saves the frame', async () => {
    const run = await vrs(['preview', 'ok.json', '--time', '0.5', '--out', 'frame.png']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(path.join(folder, 'frame.png'));
    const frame = await frameAt(path.join(folder, 'frame.png'));
    expect([frame.width, frame.height]).toEqual([320, 180]);
    expect(near(frame.at(5, 5), [0x16, 0xa3, 0x4a])).toBe(true);
  }, 300_000);

  it('a malformed request exits 1 with the API message, its pointer and suggestion', async () => {
    const run = await vrs(['render', 'typo.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('/elements/0/font_sise');
    // The API's message carries the suggestion already: said once, not twice.
    expect(run.stderr.match(/did you mean "font_size"/g)).toHaveLength(1);
    const validated = await vrs(['validate', 'type-typo.json']);
    expect(validated.code).toBe(1);
    expect(validated.stdout.trim()).toBe('not ok');
    expect(validated.stderr).toContain('/elements/0/type');
    expect(validated.stderr.match(/did you mean "text"/g)).toHaveLength(1);
    const json = await vrs(['render', 'typo.json', '--json']);
    expect(json.code).toBe(1);
    const envelope = JSON.parse(json.stdout) as { error: { code: string; details: { errors: { pointer: string; suggestion: string }[] } } };
    expect(envelope.error.code).toBe('invalid_request');
    expect(envelope.error.details.errors[0]).toEqual(expect.objectContaining({ pointer: '/elements/0/font_sise', suggestion: 'font_size' }));
  });

  it('transcribe FILE --captions srt uploads the file, waits and saves captions of its words', async () => {
    const run = await vrs(['transcribe', 'speech.wav', '--captions', 'srt', '--out', 'speech.srt', '--json']);
    expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, stderr: '' });
    const job = JSON.parse(run.stdout) as { status: string; captions_path: string; result: { words: { text: string }[] } };
    expect(job.status).toBe('completed');
    expect(job.result.words.map((word) => word.text.toLowerCase())).toEqual(['hello', 'world']);
    const srt = readFileSync(job.captions_path, 'utf8');
    const cues = srt.trim().split(/\n\n+/);
    expect(cues[0].split('\n')[0]).toBe('1');
    expect(cues[0].split('\n')[1]).toMatch(/^\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}$/);
    const spoken = cues.flatMap((cue) => cue.split('\n').slice(2)).join(' ').toLowerCase().split(/\s+/);
    expect(spoken).toEqual(['hello', 'world']);
  }, 300_000);

  it('upload FILE and upload URL store the file and print its source_url; a private address exits 1 with the API message', async () => {
    const local = await vrs(['upload', 'red.png', '--json']);
    expect(local.code).toBe(0);
    const uploaded = JSON.parse(local.stdout) as { source_url: string; content_type: string };
    expect(uploaded.content_type).toBe('image/png');
    const key = (JSON.parse(readFileSync(path.join(folder, 'config', 'vrs', 'config.json'), 'utf8')) as { api_key: string }).api_key;
    const read = async (url: string) => Buffer.from(await (await fetch(url, { headers: { Authorization: `Bearer ${key}` } })).arrayBuffer());
    expect((await read(uploaded.source_url)).equals(readFileSync(path.join(folder, 'red.png')))).toBe(true);

    const remote = await vrs(['upload', `${media.url}/blue.png`]);
    expect(remote.code).toBe(0);
    const sourceUrl = remote.stdout.trim();
    expect(sourceUrl).toMatch(/^http:\/\/[\w.]+:\d+\/v1\/workspace\/assets\/asset_\w+\/content$/);
    expect((await read(sourceUrl)).equals(readFileSync(path.join(folder, 'blue.png')))).toBe(true);

    const refused = await vrs(['upload', 'http://169.254.169.254/latest/meta-data/x.png']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('invalid_source');
    expect(refused.stderr).toContain('link-local');
  });

  it('projects create, patch, list, get --full and render; cancel stops the render, a second cancel exits 1', async () => {
    // Long enough, and moving on every frame (nothing to hold), that the cancel lands before the render could finish.
    writeFileSync(path.join(folder, 'template.json'), JSON.stringify(request({ duration: 20, elements: [{ type: 'text', text: 'Hello {{who}}', font_size: 40, motion: [{ type: 'zoom' }] }] })));
    writeFileSync(path.join(folder, 'ops.json'), JSON.stringify([{ op: 'replace', path: '/elements/0/text', value: 'Bye {{who}}' }]));
    const created = await vrs(['projects', 'create', 'template.json', '--name', 'Promo', '--var', 'who=world', '--json']);
    expect(created.code).toBe(0);
    const project = JSON.parse(created.stdout) as { id: string; version: number };
    expect(project.version).toBe(1);
    const patched = await vrs(['projects', 'patch', project.id, 'ops.json', '--base-version', '1', '--json']);
    expect([patched.code, JSON.parse(patched.stdout).version]).toEqual([0, 2]);
    const stale = await vrs(['projects', 'patch', project.id, 'ops.json', '--base-version', '1', '--json']);
    expect([stale.code, JSON.parse(stale.stdout).error.code]).toEqual([1, 'conflict']);
    const listed = await vrs(['projects', 'list']);
    expect(listed.stdout).toContain(`${project.id}  v2  Promo`);
    const full = JSON.parse((await vrs(['projects', 'get', project.id, '--full', '--json'])).stdout) as { render_request: { elements: { text: string }[] } };
    expect(full.render_request.elements[0].text).toBe('Bye {{who}}');

    const rendered = await vrs(['projects', 'render', project.id, '--var', 'who=cli', '--json']);
    expect(rendered.code).toBe(0);
    const job = JSON.parse(rendered.stdout) as { id: string; status: string };
    const cancelled = await vrs(['cancel', job.id, '--json']);
    expect([cancelled.code, JSON.parse(cancelled.stdout).status]).toEqual([0, 'cancelled']);
    const status = await vrs(['status', job.id, '--json']);
    expect([status.code, JSON.parse(status.stdout).status]).toEqual([1, 'cancelled']);
    const again = await vrs(['cancel', job.id, '--json']);
    expect([again.code, JSON.parse(again.stdout).error.code]).toEqual([1, 'conflict']);
  });

  it('batch create --csv --watch renders one file per row; status; cancel of a queued batch, and of an ended one (exit 1); a bad line exits 1 naming it', async () => {
    writeFileSync(path.join(folder, 'swatch.json'), JSON.stringify({ width: 32, height: 32, output_format: 'png', background_color: '{{bg}}' }));
    const project = JSON.parse((await vrs(['projects', 'create', 'swatch.json', '--name', 'Swatch', '--json'])).stdout) as { id: string };
    writeFileSync(path.join(folder, 'rows.csv'), 'bg\r\n#ff0000\r\n#0000ff\r\n');
    const made = await vrs(['batch', 'create', '--csv', 'rows.csv', '--project', project.id, '--output-filename', 'swatch-{{row}}', '--watch', '--json']);
    expect(made.code).toBe(0);
    const batch = JSON.parse(made.stdout) as { id: string; status: string; counts: { completed: number }; renders: { data: { output: { url: string } }[] } };
    expect(batch).toMatchObject({ status: 'completed', counts: { completed: 2 } });
    const file = path.join(folder, 'swatch-2.png');
    writeFileSync(file, Buffer.from(await (await fetch(batch.renders.data[1].output.url)).arrayBuffer()));
    expect(near((await frameAt(file)).at(16, 16), [0, 0, 255])).toBe(true);
    const status = await vrs(['batch', 'status', batch.id]);
    expect([status.code, status.stdout.trim()]).toEqual([0, `${batch.id} completed: 2/2 completed, 0 failed, 0 cancelled, 0 rendering, 0 queued`]);
    const ended = await vrs(['batch', 'cancel', batch.id, '--json']);
    expect([ended.code, JSON.parse(ended.stdout).error.code]).toEqual([1, 'conflict']);

    writeFileSync(path.join(folder, 'many.csv'), `bg\n${Array.from({ length: 30 }, (_, i) => `#${(i * 8).toString(16).padStart(2, '0')}8040`).join('\n')}\n`);
    const many = JSON.parse((await vrs(['batch', 'create', '--csv', 'many.csv', '--project', project.id, '--json'])).stdout) as { id: string };
    const cancelled = await vrs(['batch', 'cancel', many.id, '--json']);
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout).cancelled_at).not.toBeNull();
    expect(JSON.parse(cancelled.stdout).counts.cancelled).toBeGreaterThan(0);

    writeFileSync(path.join(folder, 'bad.csv'), 'bg\n#ff0000\nnope\n');
    const bad = await vrs(['batch', 'create', '--csv', 'bad.csv', '--project', project.id]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('CSV line 3, column 1 ("bg")');
  }, 240_000);

  it('an unreachable service exits 2', async () => {
    const port = await freePort();
    const run = await vrs(['status', 'render_x', '--json'], { VRS_API_URL: `http://127.0.0.1:${port}` });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout).error.code).toBe('unavailable');
  });

  it('vrs mcp serves the service tools over stdio, plus upload_file: validate, preview pixels, a 1 s render downloaded, scoping', async () => {
    const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [VRS, 'mcp'], env: { ...env, PATH: process.env.PATH ?? '' }, stderr: 'pipe' }));
    deliverResponsesAfterNotifications(client);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['validate_render', 'preview_frame', 'render', 'get_job', 'upload_from_url', 'upload_file']));
      const validated = await client.callTool({ name: 'validate_render', arguments: { request: JSON.parse(readFileSync(path.join(folder, 'typo.json'), 'utf8')) } });
      const out = validated.structuredContent as { ok: boolean; submit_error: { details: { errors: { pointer: string; suggestion: string }[] } } };
      expect(out.ok).toBe(false);
      expect(out.submit_error.details.errors[0]).toEqual(expect.objectContaining({ pointer: '/elements/0/font_sise', suggestion: 'font_size' }));

      const uploaded = await client.callTool({ name: 'upload_file', arguments: { path: path.join(folder, 'red.png') } });
      expect(uploaded.isError).toBeFalsy();
      const asset = uploaded.structuredContent as { source_url: string; content_type: string };
      expect(asset.content_type).toBe('image/png');
      // source_url is the asset's content route: the workspace's key reads it.
      const key = (JSON.parse(readFileSync(path.join(folder, 'config', 'vrs', 'config.json'), 'utf8')) as { api_key: string }).api_key;
      const fetched = await fetch(asset.source_url, { headers: { Authorization: `Bearer ${key}` } });
      expect(fetched.status).toBe(200);
      expect(Buffer.from(await fetched.arrayBuffer()).equals(readFileSync(path.join(folder, 'red.png')))).toBe(true);

      const missing = await client.callTool({ name: 'get_job', arguments: { id: 'render_doesnotexist' } });
      expect(missing.isError).toBe(true);
      expect(JSON.parse((missing.content as { text: string }[])[0].text).error.code).toBe('not_found');

      // A frame, as image content with the expected pixels.
      const split = request({ background_color: '#ff0000', elements: [{ type: 'shape', shape: 'rectangle', x: '75%', y: '50%', width: '50%', height: '100%', fill_color: '#00ff00' }] });
      const preview = await client.callTool({ name: 'preview_frame', arguments: { request: split, time: 0.5, scale: 1 } });
      expect(preview.isError).toBeFalsy();
      const image = (preview.content as { type: string; data?: string; mimeType?: string }[]).find((c) => c.type === 'image')!;
      expect(image.mimeType).toBe('image/png');
      writeFileSync(path.join(folder, 'stdio-frame.png'), Buffer.from(image.data!, 'base64'));
      const frame = await frameAt(path.join(folder, 'stdio-frame.png'));
      expect([frame.width, frame.height]).toEqual([320, 180]);
      expect([near(frame.at(40, 90), [255, 0, 0]), near(frame.at(280, 90), [0, 255, 0])]).toEqual([true, true]);

      // A 1 s render followed to completion with progress forwarded, then downloaded.
      const progress: number[] = [];
      const rendered = await client.callTool({ name: 'render', arguments: { request: split, wait: true } }, undefined, {
        onprogress: (p) => progress.push(p.progress),
        timeout: 300_000,
      });
      expect(rendered.isError).toBeFalsy();
      const job = rendered.structuredContent as { id: string; status: string; download_url: string };
      expect(job.status).toBe('completed');
      expect(progress[progress.length - 1]).toBe(100);
      writeFileSync(path.join(folder, 'stdio.mp4'), Buffer.from(await (await fetch(job.download_url)).arrayBuffer()));
      const probed = await probe(path.join(folder, 'stdio.mp4'));
      expect(Number(probed.format.duration)).toBeCloseTo(1, 1);
      expect(near((await frameAt(path.join(folder, 'stdio.mp4'), 0.5)).at(280, 90), [0, 255, 0])).toBe(true);

      // The bridge of another workspace's key does not find that job.
      const other = new Client({ name: 'e2e-stdio-other', version: '1.0.0' });
      await other.connect(new StdioClientTransport({ command: process.execPath, args: [VRS, 'mcp'], env: { ...env, PATH: process.env.PATH ?? '', VRS_API_KEY: otherKey }, stderr: 'pipe' }));
      try {
        const foreign = await other.callTool({ name: 'get_job', arguments: { id: job.id } });
        expect(foreign.isError).toBe(true);
        expect(JSON.parse((foreign.content as { text: string }[])[0].text).error.code).toBe('not_found');
      } finally {
        await other.close();
      }
    } finally {
      await client.close();
    }
  }, 300_000);
});

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { deliverResponsesAfterNotifications } from './helpers/mcp';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppConfig } from '../src/config/app-config';
import { APP_CONFIG } from '../src/config/config.module';
import { llmsFullTxt, llmsTxt } from '../src/skills/llms-txt';
import { SkillsService } from '../src/skills/skills.service';
import { FolderServer, frameAt, makeImage, near, probe, serveFolder, waitFor } from './helpers/media';
import { signupVerified, startTestApp, TestApp } from './helpers/test-app';

/** The MCP server at /mcp, driven by the SDK's own client over Streamable HTTP against the running app. */
describe('MCP server over Streamable HTTP', () => {
  let app: TestApp;
  let folder: string;
  let a: Client;
  let b: Client;
  let keyOfA: string;
  let media: FolderServer;

  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
    deliverResponsesAfterNotifications(client);
    return client;
  }

  const small = (elements: unknown[], extra: Record<string, unknown> = {}) => ({ width: 320, height: 180, duration: 1, ...extra, elements });

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'mcp-e2e-'));
    // Speech for the transcript tools; a grammar of its phrase keeps recognition deterministic.
    writeFileSync(path.join(folder, 'speech.gram'), '#JSGF V1.0;\ngrammar speech;\npublic <speech> = hello world;\n');
    execFileSync('espeak-ng', ['-s', '140', '-w', path.join(folder, 'speech.wav'), 'hello world']);
    await makeImage(path.join(folder, 'logo.png'), 'blue', 48, 32);
    // A loopback stand-in for a public media host; private addresses stay allowed for it only by this setting.
    media = await serveFolder(folder);
    app = await startTestApp({
      env: { MCP_ALLOWED_ORIGINS: 'https://agent.example', POCKETSPHINX_JSGF: path.join(folder, 'speech.gram'), ALLOW_PRIVATE_NETWORK: 'true' },
    });
    keyOfA = (await signupVerified(app)).key;
    a = await connect(keyOfA);
    b = await connect((await signupVerified(app)).key);
  }, 180_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await app?.close();
    await media?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('lists the tools, each with the JSON Schema of its request, plus the guides as resources and the prompts', async () => {
    const { tools } = await a.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['get_capabilities', 'validate_render', 'preview_frame', 'preview_contact_sheet', 'render', 'get_job', 'list_renders', 'cancel_job', 'transcribe', 'get_transcript', 'get_captions', 'create_project', 'edit_project', 'render_project', 'extract_brand_kit', 'get_brand_kit', 'create_upload']) {
      expect(names).toContain(name);
    }
    const render = tools.find((t) => t.name === 'render')!;
    const request = (render.inputSchema.properties as Record<string, { properties: Record<string, unknown> }>).request;
    // The render request's schema is the one /v1/capabilities publishes (the composition's zod schema).
    const capabilities = (await a.callTool({ name: 'get_capabilities', arguments: {} })).structuredContent as { request_schema: { properties: object } };
    expect(Object.keys(request.properties).sort()).toEqual(Object.keys(capabilities.request_schema.properties).sort());
    const transcribe = tools.find((t) => t.name === 'transcribe')!;
    expect(Object.keys((transcribe.inputSchema.properties as { request: { properties: object } }).request.properties)).toContain('source_url');

    const { resources } = await a.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['vrs://capabilities', 'vrs://skills/onboarding', 'vrs://skills/previews']));
    const guide = await a.readResource({ uri: 'vrs://skills/previews' });
    expect((guide.contents[0] as { text: string }).text).toMatch(/^# /);
    const { prompts } = await a.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('captioned_vertical_video');
    const prompt = await a.getPrompt({ name: 'captioned_vertical_video', arguments: { script: 'Hello there. Bye now.' } });
    expect((prompt.messages[0].content as { text: string }).text).toContain('validate_render');
  });

  it('validates a request with a typo: ok false, the pointer and the suggestion', async () => {
    const result = await a.callTool({ name: 'validate_render', arguments: { request: small([{ type: 'text', text: 'Hi', font_sise: 40 }]) } });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent as { ok: boolean; submit_error: { code: string; details: { errors: { pointer: string; suggestion?: string }[] } } };
    expect(out.ok).toBe(false);
    expect(out.submit_error.code).toBe('invalid_request');
    expect(out.submit_error.details.errors).toEqual([expect.objectContaining({ pointer: '/elements/0/font_sise', suggestion: 'font_size' })]);
  });

  it('returns API errors as tool errors with code, message and validation items', async () => {
    const result = await a.callTool({ name: 'render', arguments: { request: small([{ type: 'shape', shape: 'rectangel' }]) } });
    expect(result.isError).toBe(true);
    const envelope = JSON.parse((result.content as { text: string }[])[0].text) as { error: { code: string; message: string; details: { errors: { pointer: string; suggestion?: string }[] } } };
    expect(envelope.error.code).toBe('invalid_request');
    expect(envelope.error.message).toContain('/elements/0/shape');
    expect(envelope.error.details.errors).toEqual([expect.objectContaining({ pointer: '/elements/0/shape', suggestion: 'rectangle' })]);
    const unknown = await a.callTool({ name: 'render', arguments: { request: small([]), wiat: true } });
    expect(JSON.parse((unknown.content as { text: string }[])[0].text).error.details.errors).toEqual([
      expect.objectContaining({ type: 'extra_forbidden', pointer: '/wiat', suggestion: 'wait' }),
    ]);
  });

  it('uploads speech, transcribes it and returns its captions as SRT; another workspace cannot read them', async () => {
    const text = (result: unknown) => (result as { content: { text: string }[] }).content[0].text;
    const slot = await a.callTool({ name: 'create_upload', arguments: { request: { content_type: 'audio/wav', filename: 'speech.wav' } } });
    const { upload_url, source_url, asset_id } = JSON.parse(text(slot)) as { upload_url: string; source_url: string; asset_id: string };
    const put = await fetch(upload_url, { method: 'PUT', headers: { 'Content-Type': 'audio/wav' }, body: readFileSync(path.join(folder, 'speech.wav')) });
    expect(put.status).toBeLessThan(300);
    // The service probes the upload before tasks may use it.
    await waitFor(async () => (await app.http.get(`/v1/workspace/assets/${asset_id}`).set('Authorization', `Bearer ${keyOfA}`)).body.status as string, (status) => status === 'present', 60_000);
    const task = await a.callTool({ name: 'transcribe', arguments: { request: { source_url }, wait: true } });
    const job = JSON.parse(text(task)) as { id: string; status: string; result: { words: { text: string }[] } };
    expect(job.status).toBe('completed');
    expect(job.result.words.map((word) => word.text.toLowerCase())).toEqual(['hello', 'world']);

    const captions = await a.callTool({ name: 'get_captions', arguments: { id: job.id, format: 'srt' } });
    expect(captions.isError).toBeFalsy();
    const cues = text(captions).trim().split(/\n\n+/);
    expect(cues[0].split('\n')[1]).toMatch(/^\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}$/);
    expect(cues.flatMap((cue) => cue.split('\n').slice(2)).join(' ').toLowerCase()).toBe('hello world');
    const vtt = await a.callTool({ name: 'get_captions', arguments: { id: job.id, format: 'vtt' } });
    expect(text(vtt).startsWith('WEBVTT')).toBe(true);

    const bad = await a.callTool({ name: 'get_captions', arguments: { id: job.id, format: 'ass' } });
    expect(bad.isError).toBe(true);
    expect(JSON.parse(text(bad)).error.details.errors).toEqual([expect.objectContaining({ pointer: '/format' })]);
    const other = await b.callTool({ name: 'get_captions', arguments: { id: job.id, format: 'srt' } });
    expect(JSON.parse(text(other)).error.code).toBe('not_found');
  }, 240_000);

  it('previews a frame as image content a model can look at', async () => {
    const request = small([{ type: 'shape', shape: 'rectangle', x: '75%', y: '50%', width: '50%', height: '100%', fill_color: '#00ff00' }], { background_color: '#ff0000' });
    const result = await a.callTool({ name: 'preview_frame', arguments: { request, time: 0.5, scale: 1 } });
    expect(result.isError).toBeFalsy();
    const image = (result.content as { type: string; data?: string; mimeType?: string }[]).find((c) => c.type === 'image')!;
    expect(image.mimeType).toBe('image/png');
    const file = path.join(folder, 'frame.png');
    writeFileSync(file, Buffer.from(image.data!, 'base64'));
    const frame = await frameAt(file);
    expect([frame.width, frame.height]).toEqual([320, 180]);
    expect(near(frame.at(40, 90), [255, 0, 0])).toBe(true);
    expect(near(frame.at(280, 90), [0, 255, 0])).toBe(true);
    expect((result.structuredContent as { is_preview: boolean }).is_preview).toBe(true);
  }, 180_000);

  it('renders a 1 s 320x180 request to completion with progress notifications, and the download is that video', async () => {
    const progress: number[] = [];
    const result = await a.callTool(
      { name: 'render', arguments: { request: small([{ type: 'text', text: 'MCP', font_size: 60, fill_color: '#ffffff' }], { background_color: '#1d4ed8' }), wait: true } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 300_000 },
    );
    expect(result.isError).toBeFalsy();
    const job = result.structuredContent as { id: string; status: string; download_url: string; ok: boolean };
    expect(job.status).toBe('completed');
    expect(job.ok).toBe(true);
    expect(progress[progress.length - 1]).toBe(100);
    const res = await fetch(job.download_url);
    expect(res.status).toBe(200);
    const file = path.join(folder, 'render.mp4');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const probed = await probe(file);
    const video = probed.streams.find((s) => s.codec_type === 'video')!;
    expect([video.width, video.height]).toEqual([320, 180]);
    expect(Number(probed.format.duration)).toBeCloseTo(1, 1);
    expect(near(await frameAt(file, 0.5).then((f) => f.at(5, 5)), [0x1d, 0x4e, 0xd8])).toBe(true);

    // The job is this workspace's: the other workspace's client is told it does not exist.
    const other = await b.callTool({ name: 'get_job', arguments: { id: job.id } });
    expect(other.isError).toBe(true);
    expect(JSON.parse((other.content as { text: string }[])[0].text).error.code).toBe('not_found');
    const own = await a.callTool({ name: 'get_job', arguments: { id: job.id } });
    expect((own.structuredContent as { status: string }).status).toBe('completed');
  }, 300_000);

  it('refuses a request without a key (401) and a cross-origin page (403), in the error envelope', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const noKey = await fetch(`${app.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    const { key } = await signupVerified(app);
    const foreign = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { ...headers, Authorization: `Bearer ${key}`, Origin: 'https://evil.example' }, body: JSON.stringify(init) });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    const own = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { ...headers, Authorization: `Bearer ${key}`, Origin: 'https://agent.example' }, body: JSON.stringify(init) });
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('"serverInfo"');
  });

  it('publishes the MCP server in /v1/capabilities with the tools it lists', async () => {
    const capabilities = (await app.http.get('/v1/capabilities').expect(200)).body as { agents: { mcp: { url: string; tools: string[] } } };
    expect(capabilities.agents.mcp.url).toMatch(/\/mcp$/);
    expect(capabilities.agents.mcp.tools).toEqual((await a.listTools()).tools.map((t) => t.name));
  });

  it('serves /llms.txt and /llms-full.txt without a key, from the guides and the OpenAPI document', async () => {
    const index = await app.http.get('/llms.txt').expect(200);
    expect(index.headers['content-type']).toMatch(/^text\/plain/);
    expect(index.text).toMatch(/^# Video rendering and AI task service\n\n> /);
    const guides = (await app.http.get('/v1/skills').set('Authorization', `Bearer ${(await signupVerified(app)).key}`).expect(200)).body as { data: { title: string; path: string }[] };
    for (const guide of guides.data) expect(index.text).toContain(`[${guide.title}](`);
    expect(index.text).toContain('/mcp');

    const full = (await app.http.get('/llms-full.txt').expect(200)).text;
    const openapi = (await app.http.get('/v1/openapi.json').expect(200)).body as { paths: Record<string, Record<string, unknown>> };
    for (const [route, item] of Object.entries(openapi.paths)) {
      for (const method of Object.keys(item)) expect(full).toContain(`## ${method.toUpperCase()} ${route}`);
    }
    expect(full).toContain('# Guide: ');
    // A DTO body is spelt out field by field; the render request points at its JSON Schema.
    expect(full).toMatch(/## POST \/v1\/tasks\/transcribe\n[\s\S]*?- `source_url` \(string, required\)/);
    expect(full).toContain('## GET /v1/capabilities (no key)');

    // The files were written by the build; they say exactly what the generator makes of the current
    // guides and the committed OpenAPI document (which the served one equals), with this deployment's URL.
    const base = app.running.app.get<symbol, AppConfig>(APP_CONFIG).publicBaseUrl;
    const committed = JSON.parse(readFileSync(path.join(__dirname, '..', 'openapi', 'openapi.json'), 'utf8')) as OpenAPIObject;
    const skills = new SkillsService();
    expect(index.text).toBe(llmsTxt(base, skills.list().data));
    expect(full).toBe(llmsFullTxt(base, skills.all(), committed));
    expect(full).toContain(`Base URL: ${base}.`);
    expect(full).toContain('## POST /v1/workspace/assets');
  });

  it('uploads from a URL: the service stores and probes the file; a private address is a tool error at /url', async () => {
    const url = `${media.url}/logo.png`;
    const result = await a.callTool({ name: 'upload_from_url', arguments: { request: { url } } });
    expect(result.isError).toBeFalsy();
    const asset = result.structuredContent as { id: string; status: string; kind: string; width: number; height: number; source_url: string };
    expect(asset).toMatchObject({ status: 'present', kind: 'image', width: 48, height: 32 });
    const stored = await fetch(asset.source_url, { headers: { Authorization: `Bearer ${keyOfA}` } });
    expect(Buffer.from(await stored.arrayBuffer()).equals(readFileSync(path.join(folder, 'logo.png')))).toBe(true);
    const again = await a.callTool({ name: 'upload_from_url', arguments: { request: { url } } });
    expect((again.structuredContent as { id: string }).id).toBe(asset.id);
    expect(media.requests.filter((r) => r === 'GET /logo.png')).toHaveLength(1);

    const refused = await a.callTool({ name: 'upload_from_url', arguments: { request: { url: 'http://169.254.169.254/latest/meta-data/logo.png' } } });
    expect(refused.isError).toBe(true);
    const envelope = JSON.parse((refused.content as { text: string }[])[0].text) as { error: { code: string; message: string; details: { pointer: string } } };
    expect(envelope.error).toMatchObject({ code: 'invalid_source', details: { pointer: '/url' } });
    expect(envelope.error.message).toMatch(/link-local/);
  });

  it('creates a project and edits it with JSON Patch through the same DTO checks as the routes', async () => {
    const created = await a.callTool({
      name: 'create_project',
      arguments: { request: { name: 'Promo', variables: { who: 'world' }, render_request: small([{ type: 'text', text: 'Hello {{who}}' }]) } },
    });
    expect(created.isError).toBeFalsy();
    const project = created.structuredContent as { id: string; version: number };
    expect(project.version).toBe(1);
    const edited = await a.callTool({ name: 'edit_project', arguments: { id: project.id, request: { base_version: 1, ops: [{ op: 'replace', path: '/elements/0/text', value: 'Bye {{who}}' }] } } });
    expect((edited.structuredContent as { version: number }).version).toBe(2);
    const full = await a.callTool({ name: 'get_project', arguments: { id: project.id, view: 'full' } });
    expect((full.structuredContent as { render_request: { elements: { text: string }[] } }).render_request.elements[0].text).toBe('Bye {{who}}');
    // A DTO refusal carries the pointer into `request`, as the route's 422 does.
    const bad = await a.callTool({ name: 'create_project', arguments: { request: { nmae: 'x', render_request: small([]) } } });
    expect(bad.isError).toBe(true);
    const errors = JSON.parse((bad.content as { text: string }[])[0].text).error.details.errors as { pointer: string; suggestion?: string }[];
    expect(errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer: '/nmae', suggestion: 'name' })]));
    // Another workspace does not find it.
    const other = await b.callTool({ name: 'get_project', arguments: { id: project.id } });
    expect(JSON.parse((other.content as { text: string }[])[0].text).error.code).toBe('not_found');
  });

  it('renders a batch from CSV text and follows it to the end; lists, gets and refuses to cancel an ended batch', async () => {
    const created = await a.callTool({
      name: 'create_project',
      arguments: { request: { name: 'Cards', variables: {}, render_request: { width: 32, height: 32, output_format: 'png', background_color: '{{bg}}' } } },
    });
    const project = created.structuredContent as { id: string };
    const progress: number[] = [];
    const result = await a.callTool(
      { name: 'create_batch', arguments: { id: project.id, csv: 'bg\n#ff0000\n#0000ff\n', output_filename: 'card-{{row}}', wait: true } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 240_000 },
    );
    expect(result.isError).toBeFalsy();
    const batch = result.structuredContent as { id: string; status: string; counts: { completed: number } };
    expect(batch).toMatchObject({ status: 'completed', counts: { completed: 2 } });
    expect(progress.at(-1)).toBe(100);

    const got = (await a.callTool({ name: 'get_batch', arguments: { id: batch.id } })).structuredContent as { renders: { data: { batch_row: number; output: { url: string } }[] } };
    expect(got.renders.data.map((r) => r.batch_row)).toEqual([1, 2]);
    const file = path.join(folder, 'row2.png');
    writeFileSync(file, Buffer.from(await (await fetch(got.renders.data[1].output.url)).arrayBuffer()));
    expect(near((await frameAt(file)).at(16, 16), [0, 0, 255])).toBe(true);
    const listed = (await a.callTool({ name: 'list_batches', arguments: { limit: 5 } })).structuredContent as { data: { id: string }[] };
    expect(listed.data[0].id).toBe(batch.id);
    const cancel = await a.callTool({ name: 'cancel_batch', arguments: { id: batch.id } });
    expect(cancel.isError).toBe(true);
    expect(JSON.parse((cancel.content as { text: string }[])[0].text).error.code).toBe('conflict');
    // Rows given both ways, or a bad CSV line: tool errors pointing at the problem.
    const both = await a.callTool({ name: 'create_batch', arguments: { id: project.id, csv: 'bg\n#ff0000\n', request: { rows: [{ bg: '#ff0000' }] } } });
    expect(both.isError).toBe(true);
    const bad = await a.callTool({ name: 'create_batch', arguments: { id: project.id, csv: 'bg\n#ff0000\nnope\n' } });
    expect(JSON.parse((bad.content as { text: string }[])[0].text).error.details.errors[0]).toMatchObject({ pointer: '/rows/1/bg', loc: ['body', 'line', 3, 'column', 1] });
    // Another workspace does not find it.
    const other = await b.callTool({ name: 'get_batch', arguments: { id: batch.id } });
    expect(JSON.parse((other.content as { text: string }[])[0].text).error.code).toBe('not_found');
  }, 300_000);
});

/// <reference lib="dom" />
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { loadConfig } from '../src/config/app-config';
import { frameAt, makeImage, near, serveFolder, type FolderServer } from './helpers/media';
import { bearer, signupVerified, startTestApp, type TestApp } from './helpers/test-app';

const BLUE = [0x1d, 0x4e, 0xd8];
const RED = [0xef, 0x44, 0x44];
/** The request the test pastes: small and short, a blue canvas with a red box in the middle. */
const REQUEST = {
  width: 320,
  height: 180,
  duration: 1,
  frame_rate: 30,
  background_color: '#1d4ed8',
  elements: [
    { type: 'shape', x: '50%', y: '50%', width: 120, height: 80, fill_color: '#ef4444' },
    { type: 'text', text: 'Playground', y: '18%', font_family: 'Montserrat', font_weight: 700, font_size: 24 },
  ],
};

/**
 * The playground at /playground in Debian's Chromium (the worker's offline wrapper: no name
 * resolves but loopback) against the real app: paste a request, see the preview, render, follow
 * the progress over Server-Sent Events, play the result; the batch tab's CSV batch. Reuse is on,
 * as shipped: the batch's identical rows render once.
 */
describe('playground page', () => {
  let app: TestApp;
  let browser: Browser;
  let key: string;
  let folder: string;
  let media: FolderServer;

  beforeAll(async () => {
    app = await startTestApp({ env: { RENDER_REUSE: 'true' } });
    ({ key } = await signupVerified(app));
    folder = mkdtempSync(path.join(tmpdir(), 'vrs-playground-'));
    await makeImage(path.join(folder, 'green.png'), '#22c55e', 64, 64);
    media = await serveFolder(folder);
    browser = await puppeteer.launch({
      executablePath: loadConfig().render.browserExecutable,
      headless: true,
      pipe: true,
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--mute-audio', '--autoplay-policy=no-user-gesture-required', '--window-size=1280,800'],
      defaultViewport: { width: 1280, height: 800 },
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await media?.close();
    await app?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  /** Opens the page; records every request it makes and every CSP violation it reports. */
  async function open(): Promise<{ page: Page; requests: string[]; violations: () => Promise<string[]> }> {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (req) => requests.push(req.url()));
    await page.evaluateOnNewDocument(() => {
      const seen: string[] = [];
      (window as any).__cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
    });
    const response = await page.goto(`${app.url}/playground`, { waitUntil: 'load', timeout: 60_000 });
    // 304 when the browser revalidates the page it already has (no-cache).
    expect([200, 304]).toContain(response?.status());
    await page.waitForSelector('.cm-content', { timeout: 60_000 });
    // The sample request the page opens with is valid.
    await page.waitForFunction(() => document.querySelector('[data-testid=findings] .summary')?.textContent?.startsWith('Checked in the page'), { timeout: 10_000 });
    // Where a key comes from is said next to where it goes.
    expect(await page.$eval('[data-testid=key-help]', (el) => el.textContent)).toMatch(/No key yet\?.*POST \/v1\/signup.*POST \/v1\/signup\/verify/);
    return { page, requests, violations: () => page.evaluate(() => (window as any).__cspViolations as string[]) };
  }

  /** Replaces the editor's text the way a user's paste does (a paste event with clipboard data). */
  async function paste(page: Page, text: string): Promise<void> {
    await page.click('.cm-content');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.evaluate((value) => {
      const data = new DataTransfer();
      data.setData('text/plain', value);
      document.querySelector('.cm-content')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, text);
    await page.waitForFunction((value) => (document.querySelector('.cm-content') as HTMLElement).innerText.replace(/\s/g, '') === value.replace(/\s/g, ''), { timeout: 10_000 }, text);
    // The preview and the findings are of the pasted text once the page has checked it.
    await page.waitForSelector('.playground[data-pending=false]', { timeout: 10_000 });
  }

  /** The preview's pixels, as the page shows them. */
  async function previewFrame(page: Page, name: string) {
    const element = await page.waitForSelector('[data-testid=preview] .__remotion-player', { timeout: 30_000 });
    const file = path.join(folder, `${name}.png`);
    writeFileSync(file, await element!.screenshot({ type: 'png' }));
    return frameAt(file);
  }

  it('is served with a strict CSP, its files from the service alone', async () => {
    const res = await fetch(`${app.url}/playground`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    const scripts = [...html.matchAll(/src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) expect(src).toMatch(/^\/playground\/assets\//);
    // Only built asset names are served; nothing else under the folder.
    expect((await fetch(`${app.url}/playground/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
  });

  it("marks errors in the editor from the request's JSON Schema and lists them", async () => {
    const { page } = await open();
    // Inline errors: the schema's type of width, marked in the text and listed with its pointer.
    await paste(page, '{\n  "width": "wide",\n  "elements": []\n}');
    await page.waitForSelector('.cm-lintRange-error', { timeout: 20_000 });
    await page.waitForFunction(() => document.querySelector('[data-testid=findings] .summary')?.textContent === 'The request is invalid', { timeout: 10_000 });
    expect(await page.$eval('[data-testid=findings] li', (el) => el.textContent)).toMatch(/^error \/width /);
    expect(await page.$('[data-testid=preview] .__remotion-player')).toBeNull();
    await page.close();
  }, 120_000);

  it("completes property names in the editor from the request's JSON Schema", async () => {
    const { page } = await open();
    await paste(page, '{\n  \n}');
    await page.keyboard.down('Control');
    await page.keyboard.press('Home');
    await page.keyboard.up('Control');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.type('"backgr');
    await page.waitForFunction(() => document.querySelector('.cm-tooltip-autocomplete')?.textContent?.includes('background_color'), { timeout: 30_000 });
    const options = await page.$$eval('.cm-tooltip-autocomplete li', (items) => items.map((item) => item.textContent ?? ''));
    expect(options.some((option) => option.startsWith('background_color'))).toBe(true);
    await page.close();
  }, 120_000);

  it('previews a pasted request, renders it with a key, follows the progress to 100 % and plays the video', async () => {
    const { page, requests, violations } = await open();
    await paste(page, JSON.stringify(REQUEST, null, 2));

    // The live preview draws the request: the blue canvas with the red box in its middle.
    await page.waitForFunction(() => document.querySelector('[data-testid=findings] .summary')?.textContent?.startsWith('Checked in the page'), { timeout: 10_000 });
    for (const name of ['preview-a', 'preview-b']) {
      const frame = await previewFrame(page, name);
      const colours = new Set<string>();
      for (let y = 0; y < frame.height; y += 4) for (let x = 0; x < frame.width; x += 4) colours.add(frame.at(x, y).join(','));
      expect(colours.size).toBeGreaterThan(3);
      expect(near(frame.at(Math.round(frame.width / 2), Math.round(frame.height / 2)), RED)).toBe(true);
      // A corner away from the Player's controls, which cover its bottom while shown.
      expect(near(frame.at(4, 4), BLUE)).toBe(true);
    }

    // With a key, the findings are the service's dry run.
    await page.type('[data-testid=api-key]', key);
    await page.waitForFunction(() => document.querySelector('[data-testid=findings] .summary')?.textContent?.includes('checked by the service'), { timeout: 30_000 });
    expect(await page.$eval('[data-testid=findings] .summary', (el) => el.textContent)).toMatch(/^Ready to render: 30 frames/);

    // Render, and watch the progress bar the job's events feed.
    await page.evaluate(() => {
      const bar = document.querySelector('[data-testid=progress]') as HTMLProgressElement;
      const seen: number[] = [];
      (window as any).__progressSeen = seen;
      new MutationObserver(() => seen.push(bar.value)).observe(bar, { attributes: true });
    });
    await page.click('[data-testid=render]');
    await page.waitForFunction(() => (document.querySelector('[data-testid=progress]') as HTMLProgressElement).value === 100, { timeout: 180_000 });
    const seen: number[] = await page.evaluate(() => (window as any).__progressSeen);
    expect(seen[seen.length - 1]).toBe(100);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    // The page shows the end (and fetches the download link) after the last event.
    await page.waitForFunction(() => document.querySelector('[data-testid=render-status]')?.textContent === 'Completed: 100 %', { timeout: 30_000 });
    // The progress came over the events stream, read with fetch and the header (never a key in a URL).
    expect(requests.some((url) => /\/v1\/renders\/[^/]+\/events$/.test(url))).toBe(true);
    expect(requests.filter((url) => url.includes(key))).toEqual([]);

    // The finished video plays in the page.
    await page.waitForFunction(() => {
      const video = document.querySelector('[data-testid=output-video]') as HTMLVideoElement | null;
      return video !== null && video.readyState >= 2 && video.videoWidth > 0;
    }, { timeout: 60_000 });
    const first = await page.$eval('[data-testid=output-video]', (v) => ({ width: (v as HTMLVideoElement).videoWidth, height: (v as HTMLVideoElement).videoHeight, duration: (v as HTMLVideoElement).duration }));
    expect(first).toEqual({ width: 320, height: 180, duration: expect.closeTo(1, 1) });
    const start = await page.$eval('[data-testid=output-video]', (v) => (v as HTMLVideoElement).currentTime);
    await page.waitForFunction((t0) => {
      const video = document.querySelector('[data-testid=output-video]') as HTMLVideoElement;
      return !video.paused && video.currentTime !== t0;
    }, { timeout: 30_000 }, start);
    const download = await page.$eval('[data-testid=download]', (a) => (a as HTMLAnchorElement).href);
    const file = await fetch(download);
    expect(file.status).toBe(200);
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(1000);

    expect(await violations()).toEqual([]);
    await page.close();
  }, 300_000);

  it("batch tab: a project's CSV becomes a batch followed to the end, every row listed with its output; a bad line is shown with its place", async () => {
    const made = await app.http.post('/v1/projects').set(bearer(key)).send({ name: 'Swatch', render_request: { width: 32, height: 32, output_format: 'png', background_color: '{{bg}}' }, variables: {} });
    expect(made.status).toBe(201);
    const { page, requests, violations } = await open();
    await page.type('[data-testid=api-key]', key);
    await page.click('[data-testid=tab-batch]');
    await page.waitForFunction((id) => [...document.querySelectorAll('[data-testid=batch-project] option')].some((o) => (o as HTMLOptionElement).value === id), { timeout: 30_000 }, made.body.id);
    await page.select('[data-testid=batch-project]', made.body.id);
    const typeCsv = async (csv: string) => {
      await page.click('[data-testid=batch-csv]', { count: 3 });
      await page.keyboard.down('Control');
      await page.keyboard.press('KeyA');
      await page.keyboard.up('Control');
      await page.keyboard.press('Backspace');
      await page.type('[data-testid=batch-csv]', csv);
    };

    await typeCsv('bg\nnope\n');
    await page.click('[data-testid=batch-start]');
    await page.waitForSelector('[data-testid=batch-errors]', { timeout: 30_000 });
    expect(await page.$eval('[data-testid=batch-errors]', (el) => el.textContent)).toContain('CSV line 2, column 1 ("bg")');

    await typeCsv('bg\n#ff0000\n#0000ff\n#ff0000\n');
    await page.click('[data-testid=batch-start]');
    await page.waitForSelector('[data-testid=batch-rows]', { timeout: 180_000 });
    expect(await page.$eval('[data-testid=batch-status]', (el) => el.textContent)).toMatch(/^batch_\w+ completed: 3\/3 completed, 0 failed/);
    expect(await page.$eval('[data-testid=batch-progress]', (el) => (el as HTMLProgressElement).value)).toBe(100);
    const rows = await page.$$eval('[data-testid=batch-rows] li', (items) => items.map((li) => ({ status: li.getAttribute('data-status'), text: li.textContent, href: li.querySelector('a')?.href })));
    expect(rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    expect(rows[2].text).toContain('same as render_');
    const file = path.join(folder, 'batch-row-2.png');
    writeFileSync(file, Buffer.from(await (await fetch(rows[1].href!)).arrayBuffer()));
    expect(near((await frameAt(file)).at(16, 16), [0, 0, 255])).toBe(true);
    // Followed over the batch's event stream, with the key in a header only.
    expect(requests.some((url) => /\/v1\/batches\/[^/]+\/events$/.test(url))).toBe(true);
    expect(requests.filter((url) => url.includes(key))).toEqual([]);
    expect(await violations()).toEqual([]);
    await page.close();
  }, 240_000);

  it('loads preview media only through the service, refusing what a render refuses', async () => {
    const { page, requests } = await open();
    const source = `${media.url}/green.png`;
    const withImage = { ...REQUEST, elements: [...REQUEST.elements, { type: 'image', source_url: source, x: 10, y: 10, width: 64, height: 64 }] };
    await paste(page, JSON.stringify(withImage, null, 2));
    await page.waitForFunction(() => document.querySelector('[data-testid=findings]')?.textContent?.includes('type an API key'), { timeout: 10_000 });

    // The service refuses a loopback address for a render (no ALLOW_PRIVATE_NETWORK), so the
    // preview says why and leaves the image out; the browser never asked the media host.
    await page.type('[data-testid=api-key]', key);
    await page.waitForFunction(() => document.querySelector('[data-testid=findings]')?.textContent?.includes('Not in the preview (invalid_source)'), { timeout: 30_000 });
    // The dry run checked the source as a submit would, and every finding names the request's field.
    await page.waitForFunction(() => document.querySelector('[data-testid=findings] .summary')?.textContent?.includes('checked by the service'), { timeout: 30_000 });
    expect(await page.$eval('[data-testid=findings] .summary', (el) => el.textContent)).toBe('A render would be refused or would fail (checked by the service, sources included)');
    const listed = await page.$$eval('[data-testid=findings] li', (items) => items.map((item) => item.textContent ?? ''));
    expect(listed.filter((line) => line.includes('invalid_source') || line.includes('The source at'))).toEqual([
      expect.stringMatching(/^error \/elements\/2\/source_url The source at \/elements\/2\/source_url /),
      expect.stringMatching(/^info \/elements\/2\/source_url Not in the preview \(invalid_source\): The source at \/elements\/2\/source_url /),
    ]);
    expect(listed.join('\n')).not.toContain('/url ');
    const frame = await previewFrame(page, 'refused');
    expect(near(frame.at(Math.round(frame.width / 2), Math.round(frame.height / 2)), RED)).toBe(true);
    expect(media.requests).toEqual([]);
    expect(requests.filter((url) => url.startsWith(media.url))).toEqual([]);
    await page.close();

    // The proxy itself: a key is required, and the render's answer for a refused address.
    expect((await fetch(`${app.url}/v1/playground/media`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ url: source }) })).status).toBe(401);
    const refused = await fetch(`${app.url}/v1/playground/media`, { method: 'POST', headers: { ...bearer(key), 'Content-Type': 'application/json' }, body: JSON.stringify({ url: source }) });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as any).error.code).toBe('invalid_source');
  }, 180_000);
});

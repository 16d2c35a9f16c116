import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/**
 * The composition in a browser `<Player>` (what a client embeds), for comparing frames with the
 * server render: bundles test/player/player-page.tsx with esbuild, serves it on 127.0.0.1 and
 * drives it in the same Debian Chromium the worker uses.
 */
export interface PlayerPage {
  /** Shows `frame` of the composition and returns the page's pixels as a PNG file. */
  frame(frame: number): Promise<string>;
  /** Replaces the request shown (a fresh Player in the same page and browser). */
  show(props: unknown): Promise<void>;
  close(): Promise<void>;
}

/** Longest wait for one frame to settle (media decoded, fonts loaded, two equal captures). */
const SETTLE_TIMEOUT_MS = 20_000;

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.woff2': 'font/woff2', '.woff': 'font/woff' };

export async function openPlayer(props: unknown, size: { width: number; height: number }, browserExecutable: string): Promise<PlayerPage> {
  const esbuild = await import('esbuild');
  const dir = mkdtempSync(path.join(tmpdir(), 'vrs-player-'));
  await esbuild.build({
    entryPoints: [path.join(__dirname, '../player/player-page.tsx')],
    bundle: true,
    outfile: path.join(dir, 'bundle.js'),
    format: 'iife',
    jsx: 'automatic',
    loader: { '.woff2': 'file', '.woff': 'file' },
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
  });
  writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><link rel="stylesheet" href="bundle.css"><style>html,body{margin:0;background:#000}</style></head>` +
      `<body><div id="root"></div><script>window.__props = ${JSON.stringify(props).replace(/</g, '\\u003c')};</script><script src="bundle.js"></script></body></html>`,
  );
  const server: Server = createServer((req, res) => {
    const name = path.basename(decodeURIComponent((req.url ?? '/').split('?')[0])) || 'index.html';
    try {
      const body = readFileSync(path.join(dir, name));
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(name)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { openBrowser } = await import('@remotion/renderer');
  const browser = await openBrowser('chrome', { browserExecutable, logLevel: 'error', chromiumOptions: { gl: 'angle' } });
  const page = await browser.newPage({ context: () => null, logLevel: 'error', indent: false, pageIndex: 0, onBrowserLog: null, onLog: () => undefined });
  await page.setViewport({ ...size, deviceScaleFactor: 1 });
  await page.goto({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.html`, timeout: 30_000 });
  const client = page._client();
  const evaluate = async (expression: string) => {
    const { value } = await client.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (value.exceptionDetails) throw new Error(`in the player page: ${JSON.stringify(value.exceptionDetails)}`);
    return value.result.value as unknown;
  };
  await evaluate('new Promise((resolve) => { const wait = () => (window.playerState && window.playerState().frame !== null ? resolve(true) : setTimeout(wait, 50)); wait(); })');
  let shot = 0;
  const capture = async () => {
    const { value } = await client.send('Page.captureScreenshot', { format: 'png', clip: { x: 0, y: 0, ...size, scale: 1 } });
    return Buffer.from(value.data, 'base64');
  };
  return {
    async frame(frame) {
      // Seek, then wait for what the page reports: the Player on that frame and not buffering
      // (its media layers decoded), fonts and images loaded; then capture until two captures in a
      // row are equal (canvas effects and decoded video frames land a paint or two later).
      await evaluate(`window.seekTo(${frame})`);
      const deadline = Date.now() + SETTLE_TIMEOUT_MS;
      const settled = `Promise.all([...document.images].map((image) => image.decode().catch(() => undefined))).then(() =>
        new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(
          (() => { const s = window.playerState(); return s.frame === ${frame} && !s.buffering && document.fonts.status === 'loaded'
            && [...document.images].every((image) => image.complete); })())))))`;
      while (!(await evaluate(settled))) {
        if (Date.now() > deadline) throw new Error(`the player did not settle on frame ${frame}: ${JSON.stringify(await evaluate('window.playerState()'))}`);
      }
      let previous = await capture();
      for (;;) {
        await evaluate(settled);
        const current = await capture();
        if (current.equals(previous) && (await evaluate(settled))) break;
        if (Date.now() > deadline) throw new Error(`frame ${frame} of the player kept changing for ${SETTLE_TIMEOUT_MS} ms`);
        previous = current;
      }
      const file = path.join(dir, `frame-${shot++}.png`);
      writeFileSync(file, previous);
      return file;
    },
    async show(next) {
      await evaluate(`window.show(${JSON.stringify(next).replace(/</g, '\\u003c')})`);
      await evaluate('new Promise((resolve) => { const wait = () => (window.playerState().frame === 0 ? resolve(true) : requestAnimationFrame(wait)); wait(); })');
    },
    async close() {
      await browser.close({ silent: true });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

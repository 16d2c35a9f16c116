import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { frameAt, near, waitFor, type Frame } from './helpers/media';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..');
const EXAMPLE = path.join(ROOT, 'examples/player');
const BLUE = [0x1d, 0x4e, 0xd8];
const RED = [0xef, 0x44, 0x44];

/**
 * The composition as a frontend team gets it: `npm pack` of composition/, installed by a fresh
 * Vite + React app (a copy of examples/player, its own pinned lock file; registry packages come
 * from the npm cache when present), built, served on loopback and played in Debian's Chromium.
 */
describe('composition package in a Vite app', () => {
  let app: string;
  let server: Server;
  let closeBrowser: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    app = mkdtempSync(path.join(tmpdir(), 'vrs-example-'));
    for (const name of ['package.json', 'package-lock.json', '.npmrc', 'index.html', 'vite.config.js', 'tsconfig.json', 'src']) {
      cpSync(path.join(EXAMPLE, name), path.join(app, name), { recursive: true });
    }
    await run(process.execPath, [path.join(ROOT, 'scripts/pack-composition.mjs'), app], { cwd: ROOT });
    // The tarball just packed is this checkout's composition: the lock's checksum of an earlier pack does not apply.
    const lockFile = path.join(app, 'package-lock.json');
    const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as { packages: Record<string, { integrity?: string }> };
    delete lock.packages['node_modules/@video-render-service/composition'].integrity;
    writeFileSync(lockFile, JSON.stringify(lock, null, 2));
    // `npm install` (not `ci`): the packed tarball's checksum changes with every composition change;
    // the registry packages stay at the versions the example's lock file pins.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 16 * 1024 * 1024 });
    await run(path.join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'error'], { cwd: app, maxBuffer: 16 * 1024 * 1024 });
    const dist = path.join(app, 'dist');
    server = createServer((req, res) => {
      const name = decodeURIComponent((req.url ?? '/').split('?')[0]);
      const file = path.join(dist, path.normalize(name === '/' ? '/index.html' : name));
      if (!file.startsWith(dist) || !existsSync(file)) {
        res.writeHead(404).end();
        return;
      }
      const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.woff2': 'font/woff2', '.woff': 'font/woff' };
      res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  }, 240_000);

  afterAll(async () => {
    await closeBrowser();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    rmSync(app, { recursive: true, force: true });
  });

  it('installs as a package whose entries and fonts resolve for the consumer', () => {
    const installed = path.join(app, 'node_modules/@video-render-service/composition');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.exports['.'].import).toBe('./dist/index.js');
    expect(existsSync(path.join(installed, manifest.exports['.'].types))).toBe(true);
    // No TypeScript sources travel: dist only, plus the manifest and README.
    expect(readdirSync(installed).sort()).toEqual(['README.md', 'dist', 'package.json']);
    const assets = readdirSync(path.join(app, 'dist/assets'));
    expect(assets.filter((name) => name.startsWith('montserrat-latin-700-normal') && name.endsWith('.woff2'))).toHaveLength(1);
  });

  it('ships type declarations a consumer type-checks against (the example, and misuse refused)', async () => {
    // Were the declarations missing or unresolvable, the imports would be `any`, the expected
    // errors below would not occur, and tsc reports an unused expect-error directive as an error.
    writeFileSync(
      path.join(app, 'src/package-types.check.ts'),
      [
        "import { Main, playerPropsFor, type RenderRequest } from '@video-render-service/composition';",
        "import { validateRenderRequest } from '@video-render-service/composition/schema';",
        '// @ts-expect-error width is a number',
        "export const wrong: RenderRequest = { width: 'wide', elements: [] };",
        'export const fps: number = playerPropsFor({ elements: [] }).fps;',
        '// @ts-expect-error fps is a number',
        'export const notString: string = playerPropsFor({ elements: [] }).fps;',
        'export const checks = [Main, validateRenderRequest];',
        '',
      ].join('\n'),
    );
    const { stdout } = await run(path.join(app, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: app });
    expect(stdout).toBe('');
  }, 60_000);

  it('plays the request in <Player>: the shape fades in over the background, text in the shipped font', async () => {
    const { openBrowser } = await import('@remotion/renderer');
    const browser = await openBrowser('chrome', {
      browserExecutable: process.env.CHROMIUM_EXECUTABLE ?? path.join(ROOT, 'scripts/chromium-offline.sh'),
      logLevel: 'error',
      chromiumOptions: { gl: 'angle' },
    });
    closeBrowser = () => browser.close({ silent: true });
    const page = await browser.newPage({ context: () => null, logLevel: 'error', indent: false, pageIndex: 0, onBrowserLog: null, onLog: () => undefined });
    await page.setViewport({ width: 640, height: 360, deviceScaleFactor: 1 });
    await page.goto({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, timeout: 30_000 });
    const client = page._client();
    const evaluate = async (expression: string): Promise<unknown> => {
      const { value } = await client.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
      if (value.exceptionDetails) throw new Error(`in the example page: ${JSON.stringify(value.exceptionDetails)}`);
      return value.result.value;
    };
    const shots = mkdtempSync(path.join(tmpdir(), 'vrs-example-shots-'));
    let shot = 0;
    const screenshot = async (): Promise<Frame> => {
      const { value } = await client.send('Page.captureScreenshot', { format: 'png', clip: { x: 0, y: 0, width: 640, height: 360, scale: 1 } });
      const file = path.join(shots, `shot-${shot++}.png`);
      writeFileSync(file, Buffer.from(value.data, 'base64'));
      return frameAt(file);
    };
    const shown = async (frame: number, settled: (f: Frame) => boolean): Promise<Frame> => {
      await evaluate(`window.previewPlayer.current.seekTo(${frame})`);
      return waitFor(screenshot, settled, 20_000, 100);
    };
    try {
      await waitFor(() => evaluate('Boolean(window.previewPlayer && window.previewPlayer.current)'), (ready) => ready === true, 20_000, 100);
      const whitePixels = (f: Frame) => {
        let count = 0;
        for (let y = 25; y < 85; y += 1) for (let x = 200; x < 440; x += 1) if (f.at(x, y).every((v) => v > 220)) count += 1;
        return count;
      };

      // Frame 0: the shape's fade starts at opacity 0, so the centre shows the background.
      const first = await shown(0, (f) => near(f.at(320, 180), BLUE, 30));
      // Frame 30 (1 s, after the 0.5 s fade): the red shape covers the centre; the corner stays blue.
      const later = await shown(30, (f) => near(f.at(320, 180), RED, 30) && whitePixels(f) > 300);
      expect(near(later.at(320, 180), RED, 30)).toBe(true);
      expect(near(later.at(20, 300), BLUE, 30)).toBe(true);
      expect(near(first.at(320, 180), BLUE, 30)).toBe(true);
      // The title is drawn in Montserrat Bold, loaded from the package's @fontsource dependency.
      expect(whitePixels(later)).toBeGreaterThan(300);
      expect(await evaluate(`document.fonts.ready.then(() => [...document.fonts].some((face) => face.family.replace(/"/g, '') === 'Montserrat' && face.weight === '700' && face.status === 'loaded'))`)).toBe(true);
    } finally {
      rmSync(shots, { recursive: true, force: true });
    }
  }, 90_000);
});

import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { frameAt, makeImage, near, waitFor, type Frame } from './helpers/media';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..');
const EXAMPLE = path.join(ROOT, 'examples/player');
const BLUE = [0x1d, 0x4e, 0xd8];
const RED = [0xef, 0x44, 0x44];
const YELLOW = [0xff, 0xff, 0x00];
const BIG = { maxBuffer: 16 * 1024 * 1024 };
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.woff2': 'font/woff2', '.png': 'image/png', '.wav': 'audio/wav', '.cube': 'text/plain' };

/** What building and packing the three packages reads, copied without any dist/: packing must build them. */
const PACKAGE_SOURCES = [
  '.npmrc',
  'openapi/openapi.json',
  'scripts/build-composition.mjs',
  'scripts/pack-composition.mjs',
  'scripts/build-client.mjs',
  'composition/package.json',
  'composition/README.md',
  'composition/LICENSE',
  'composition/tsconfig.json',
  'composition/tsconfig.build.json',
  'composition/src',
  'clients/typescript/package.json',
  'clients/typescript/README.md',
  'clients/typescript/LICENSE',
  'clients/typescript/tsconfig.json',
  'clients/typescript/src',
  'clients/cli/package.json',
  'clients/cli/LICENSE',
  'clients/cli/tsconfig.json',
  'clients/cli/bin',
  'clients/cli/src',
];

/**
 * A copy of the packages' sources beside the installed dependencies (linked one by one, so that
 * `@video-render-service/client` is the copy's own client): packing it proves each package builds
 * itself, and leaves this checkout's built files alone while other test files use them.
 */
function copyPackageSources(): string {
  const repo = mkdtempSync(path.join(tmpdir(), 'vrs-packages-'));
  for (const name of PACKAGE_SOURCES) cpSync(path.join(ROOT, name), path.join(repo, name), { recursive: true });
  mkdirSync(path.join(repo, 'node_modules/@video-render-service'), { recursive: true });
  for (const name of readdirSync(path.join(ROOT, 'node_modules'))) {
    if (name !== '@video-render-service') symlinkSync(path.join(ROOT, 'node_modules', name), path.join(repo, 'node_modules', name));
  }
  symlinkSync(path.join(repo, 'clients/typescript'), path.join(repo, 'node_modules/@video-render-service/client'));
  return repo;
}

/** Serves `dir` at `prefix`; `hidden` paths (relative to dir) answer 404. Sends no CORS headers. */
function folderRoute(prefix: string, dir: string, hidden: (name: string) => boolean = () => false) {
  return (url: string): string | null => {
    if (!url.startsWith(prefix)) return null;
    const name = url.slice(prefix.length) || 'index.html';
    const file = path.join(dir, path.normalize(name));
    return file.startsWith(dir) && !hidden(name) && existsSync(file) ? file : null;
  };
}

async function listen(routes: ((url: string) => string | null)[]): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const url = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const file = routes.map((route) => route(url)).find((found) => found !== null);
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The woff2 files of every `@font-face` rule in the stylesheets composition/src/fonts.ts imports (what the server renders with). */
function shippedFontFiles(): string[] {
  const sheets = [...readFileSync(path.join(ROOT, 'composition/src/fonts.ts'), 'utf8').matchAll(/^import '(@fontsource\/[^']+\.css)';$/gm)];
  return sheets.flatMap(([, sheet]) => [...readFileSync(path.join(ROOT, 'node_modules', sheet), 'utf8').matchAll(/url\(\.\/files\/([^)]+\.woff2)\)/g)].map(([, file]) => file));
}

/**
 * The packages as their users get them: `npm pack` of a copy of the sources (no dist/ anywhere),
 * under `strict-allow-scripts`; then the composition package installed by a fresh Vite + React
 * app (a copy of examples/player, its own pinned lock file; registry packages come from the npm
 * cache when present) and by a bare esbuild build, both played in Debian's Chromium.
 */
describe('the npm packages, and the composition package in a Vite app and an esbuild app', () => {
  let repo: string;
  let app: string;
  let packTemp: string;
  let packTarget: string;
  let site: { server: Server; url: string };
  let media: { server: Server; url: string };
  let closeBrowser: () => Promise<void> = async () => undefined;
  let browser: Awaited<ReturnType<typeof import('@remotion/renderer').openBrowser>> | null = null;

  beforeAll(async () => {
    repo = copyPackageSources();
    app = mkdtempSync(path.join(tmpdir(), 'vrs-example-'));
    for (const name of ['package.json', 'package-lock.json', '.npmrc', 'index.html', 'vite.config.js', 'tsconfig.json', 'src']) {
      cpSync(path.join(EXAMPLE, name), path.join(app, name), { recursive: true });
    }
    // Packed into a folder that does not exist yet, with a temporary folder of its own to check.
    packTemp = mkdtempSync(path.join(tmpdir(), 'vrs-pack-temp-'));
    packTarget = path.join(app, 'packed/by/script');
    await run(process.execPath, [path.join(repo, 'scripts/pack-composition.mjs'), packTarget], {
      cwd: repo,
      env: { ...process.env, TMPDIR: packTemp, npm_config_strict_allow_scripts: 'true' },
      ...BIG,
    });
    copyFileSync(path.join(packTarget, 'composition.tgz'), path.join(app, 'composition.tgz'));
    // `npm install` (not `ci`): the packed tarball changes with every composition change (the
    // example's lock file leaves its checksum out); the registry packages stay as the lock pins them.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, ...BIG });
    await run(path.join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'error'], { cwd: app, ...BIG });
    const mediaDir = path.join(app, 'media');
    mkdirSync(mediaDir);
    await makeImage(path.join(mediaDir, 'yellow.png'), 'yellow', 80, 60);
    await run('ffmpeg', ['-y', '-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000:duration=2', path.join(mediaDir, 'tone.wav')]);
    const corners = [0, 1].flatMap((b) => [0, 1].flatMap((g) => [0, 1].map((r) => `${r} ${g} ${b}`)));
    writeFileSync(path.join(mediaDir, 'look.cube'), ['LUT_3D_SIZE 2', ...corners, ''].join('\n'));
    const esbuildOut = path.join(app, 'esbuild-out');
    site = await listen([
      folderRoute('/esbuild/', esbuildOut),
      // The same bundle with its fonts folder not served: what a build that forgot to copy it does.
      folderRoute('/esbuild-nofonts/', esbuildOut, (name) => name.startsWith('fonts/')),
      folderRoute('/', path.join(app, 'dist')),
    ]);
    // Another origin, without CORS headers: a media host that does not allow the page.
    media = await listen([folderRoute('/', mediaDir)]);
  }, 360_000);

  afterAll(async () => {
    await closeBrowser();
    for (const running of [site, media]) await new Promise<void>((resolve) => (running ? running.server.close(() => resolve()) : resolve()));
    for (const dir of [app, repo, packTemp]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A page of the shared Chromium at `url`, with `evaluate` (awaits promises) and `screenshot`. */
  const openPage = async (url: string) => {
    if (!browser) {
      const { openBrowser } = await import('@remotion/renderer');
      browser = await openBrowser('chrome', {
        browserExecutable: process.env.CHROMIUM_EXECUTABLE ?? path.join(ROOT, 'scripts/chromium-offline.sh'),
        logLevel: 'error',
        chromiumOptions: { gl: 'angle' },
      });
      const opened = browser;
      closeBrowser = () => opened.close({ silent: true });
    }
    const page = await browser.newPage({ context: () => null, logLevel: 'error', indent: false, pageIndex: 0, onBrowserLog: null, onLog: () => undefined });
    await page.setViewport({ width: 640, height: 360, deviceScaleFactor: 1 });
    await page.goto({ url, timeout: 30_000 });
    const client = page._client();
    const evaluate = async (expression: string): Promise<unknown> => {
      const { value } = await client.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
      if (value.exceptionDetails) throw new Error(`in the page: ${JSON.stringify(value.exceptionDetails)}`);
      return value.result.value;
    };
    const shots = mkdtempSync(path.join(app, 'shots-'));
    let shot = 0;
    const screenshot = async (width: number, height: number): Promise<Frame> => {
      const { value } = await client.send('Page.captureScreenshot', { format: 'png', clip: { x: 0, y: 0, width, height, scale: 1 } });
      const file = path.join(shots, `shot-${shot++}.png`);
      writeFileSync(file, Buffer.from(value.data, 'base64'));
      return frameAt(file);
    };
    return { evaluate, screenshot };
  };

  it('packs the composition with its build (prepack): dist, types, every shipped font file and the licences; no sources', async () => {
    const { stdout } = await run('tar', ['-tzf', path.join(app, 'composition.tgz')], BIG);
    const entries = stdout.split('\n').filter(Boolean);
    expect(entries).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/LICENSE',
        'package/README.md',
        'package/dist/index.js',
        'package/dist/schema.js',
        'package/dist/types/package.d.ts',
        'package/dist/types/schema/index.d.ts',
        'package/dist/fonts/LICENSE-montserrat.txt',
      ]),
    );
    expect(entries.filter((entry) => entry.startsWith('package/src/'))).toEqual([]);
    const shipped = shippedFontFiles();
    expect(shipped).toContain('montserrat-latin-700-normal.woff2');
    const packedFonts = entries.filter((entry) => entry.startsWith('package/dist/fonts/') && entry.endsWith('.woff2'));
    expect(packedFonts.map((entry) => path.basename(entry)).sort()).toEqual([...new Set(shipped)].sort());
    const manifest = JSON.parse(readFileSync(path.join(repo, 'composition/package.json'), 'utf8'));
    expect(manifest.license).toBe('Apache-2.0');
    expect(Object.keys(manifest.dependencies).filter((name) => name.startsWith('@fontsource/'))).toEqual([]);
    expect(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).license).toBe('Apache-2.0');
    expect(readFileSync(path.join(ROOT, 'LICENSE'), 'utf8')).toContain('Apache License');
  });

  it('npm pack of the client and the CLI builds them first and lists their dist files (strict-allow-scripts)', async () => {
    const pack = async (dir: string) => {
      const { stdout, stderr } = await run('npm', ['pack', '--dry-run', '--json', '--strict-allow-scripts=true'], { cwd: path.join(repo, dir), ...BIG });
      const [packed] = JSON.parse(stdout) as { name: string; files: { path: string }[] }[];
      return { name: packed.name, files: packed.files.map((file) => file.path), stderr };
    };
    const client = await pack('clients/typescript');
    expect(client.stderr).toContain(`${client.name}@0.2.0 prepack`);
    // The declarations import the generated OpenAPI types, and `…/openapi.json` is exported: both travel.
    expect(client.files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'openapi.json', 'dist/index.js', 'dist/index.d.ts', 'dist/client.js', 'dist/generated/openapi.d.ts']));
    const cli = await pack('clients/cli');
    expect(cli.stderr).toContain(`${cli.name}@0.2.0 prepack`);
    expect(cli.files).toEqual(expect.arrayContaining(['LICENSE', 'package.json', 'bin/vrs.js', 'dist/main.js', 'dist/client-api.js']));
    const clientManifest = JSON.parse(readFileSync(path.join(repo, 'clients/typescript/package.json'), 'utf8'));
    const cliManifest = JSON.parse(readFileSync(path.join(repo, 'clients/cli/package.json'), 'utf8'));
    expect([clientManifest.license, cliManifest.license]).toEqual(['MIT', 'MIT']);
    // Publishable: not private, and the client named by version (a file: path means nothing to an installer).
    expect(cliManifest.private).toBeUndefined();
    expect(cliManifest.dependencies['@video-render-service/client']).toBe(clientManifest.version);
  }, 240_000);

  it('pack:composition creates a missing target folder and removes its temporary folder, also when npm pack fails', async () => {
    // Node keeps its compile cache in the temporary folder too; the script's own folders are vrs-pack-*.
    const leftovers = () => readdirSync(packTemp).filter((name) => name.startsWith('vrs-pack-'));
    expect(existsSync(path.join(packTarget, 'composition.tgz'))).toBe(true);
    expect(leftovers()).toEqual([]);
    const failingNpm = path.join(app, 'failing-npm.js');
    writeFileSync(failingNpm, "process.stderr.write('npm failed on purpose\\n'); process.exit(3);\n");
    const failed = run(process.execPath, [path.join(repo, 'scripts/pack-composition.mjs'), path.join(app, 'never/packed')], {
      cwd: repo,
      env: { ...process.env, TMPDIR: packTemp, npm_execpath: failingNpm },
    });
    await expect(failed).rejects.toMatchObject({ stderr: expect.stringContaining('npm failed on purpose') });
    expect(leftovers()).toEqual([]);
    expect(existsSync(path.join(app, 'never/packed/composition.tgz'))).toBe(false);
  });

  it('installs as a package whose entries and fonts resolve for the consumer', () => {
    const installed = path.join(app, 'node_modules/@video-render-service/composition');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.exports['.'].import).toBe('./dist/index.js');
    expect(existsSync(path.join(installed, manifest.exports['.'].types))).toBe(true);
    // No TypeScript sources travel: dist only, plus the manifest, README and licence.
    expect(readdirSync(installed).sort()).toEqual(['LICENSE', 'README.md', 'dist', 'package.json']);
    // Vite saw the fonts' `new URL(…, import.meta.url)` and emitted the files (small ones inlined).
    const assets = readdirSync(path.join(app, 'dist/assets'));
    expect(assets.filter((name) => name.startsWith('montserrat-latin-700-normal') && name.endsWith('.woff2'))).toHaveLength(1);
  });

  it('ships type declarations a consumer type-checks against (the example, misuse refused, JSON through validateRenderRequest)', async () => {
    // Were the declarations missing or unresolvable, the imports would be `any`, the expected
    // errors below would not occur, and tsc reports an unused expect-error directive as an error.
    writeFileSync(path.join(app, 'src/request.json'), JSON.stringify({ width: 320, height: 180, elements: [{ type: 'text', text: 'Hi' }] }));
    writeFileSync(
      path.join(app, 'src/package-types.check.ts'),
      [
        "import { Main, onPreviewProblem, playerPropsFor, validateRenderRequest, type RenderRequest } from '@video-render-service/composition';",
        "import { validateRenderRequest as validateInNode } from '@video-render-service/composition/schema';",
        "import fromJson from './request.json';",
        '// @ts-expect-error width is a number',
        "export const wrong: RenderRequest = { width: 'wide', elements: [] };",
        'export const fps: number = playerPropsFor({ elements: [] }).fps;',
        '// @ts-expect-error fps is a number',
        'export const notString: string = playerPropsFor({ elements: [] }).fps;',
        'export const checks = [Main, validateInNode];',
        // What the README says: a JSON import types `type` as string, not as an element type; validate it.
        '// @ts-expect-error a request from a .json file is not typed as a RenderRequest',
        'export const direct: RenderRequest = fromJson;',
        'const parsed = validateRenderRequest(fromJson);',
        'export const checked: RenderRequest | null = parsed.ok ? parsed.value : null;',
        'export const stop: () => void = onPreviewProblem((problem) => console.warn(problem.kind, problem.url, problem.message));',
        '',
      ].join('\n'),
    );
    const { stdout } = await run(path.join(app, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: app });
    expect(stdout).toBe('');
  }, 60_000);

  it('plays the request in <Player> (Vite build): the shape fades in over the background, text in the shipped font', async () => {
    const { evaluate, screenshot } = await openPage(`${site.url}/`);
    const shown = async (frame: number, settled: (f: Frame) => boolean): Promise<Frame> => {
      await evaluate(`window.previewPlayer.current.seekTo(${frame})`);
      return waitFor(() => screenshot(640, 360), settled, 20_000, 100);
    };
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
    // The title is drawn in Montserrat Bold, loaded from the package's own font files.
    expect(whitePixels(later)).toBeGreaterThan(300);
    expect(await evaluate(`document.fonts.ready.then(() => [...document.fonts].some((face) => face.family.replace(/"/g, '') === 'Montserrat' && face.weight === '700' && face.status === 'loaded'))`)).toBe(true);
  }, 90_000);

  it('builds with esbuild and no loaders; fonts load from dist/fonts beside the bundle; media a host does not share is reported, not dropped silently', async () => {
    // A frontend's entry as the README shows it, with the problems the package reports kept for the test.
    mkdirSync(path.join(app, 'esbuild-src'));
    writeFileSync(
      path.join(app, 'esbuild-src/main.tsx'),
      [
        "import { Player, type PlayerRef } from '@remotion/player';",
        "import { Main, onPreviewProblem, playerPropsFor, type PreviewProblem, type RenderRequest } from '@video-render-service/composition';",
        "import { createRef } from 'react';",
        "import { createRoot } from 'react-dom/client';",
        'const page = window as unknown as { request: RenderRequest; problems: PreviewProblem[]; player: ReturnType<typeof createRef<PlayerRef>> };',
        'page.problems = [];',
        'onPreviewProblem((problem) => page.problems.push(problem));',
        'page.player = createRef<PlayerRef>();',
        'const props = playerPropsFor(page.request);',
        "createRoot(document.getElementById('root')!).render(<Player ref={page.player} component={Main} {...props} style={{ width: props.compositionWidth, height: props.compositionHeight }} acknowledgeRemotionLicense />);",
        '',
      ].join('\n'),
    );
    const esbuild = await import('esbuild');
    const out = path.join(app, 'esbuild-out');
    // No loaders, no plugins: what `esbuild main.tsx --bundle --format=esm --outdir=…` does.
    const result = await esbuild.build({ entryPoints: [path.join(app, 'esbuild-src/main.tsx')], bundle: true, format: 'esm', outdir: out, logLevel: 'silent' });
    expect([...result.errors, ...result.warnings]).toEqual([]);
    expect(readdirSync(out).sort()).toEqual(['main.js']);
    const bundle = readFileSync(path.join(out, 'main.js'), 'utf8');
    expect(bundle).toContain('new URL("./fonts/montserrat-latin-700-normal.woff2", import.meta.url)');
    // The one step the README gives esbuild users: the package's fonts folder beside the bundle.
    cpSync(path.join(app, 'node_modules/@video-render-service/composition/dist/fonts'), path.join(out, 'fonts'), { recursive: true });
    expect(existsSync(path.join(out, 'fonts/montserrat-latin-700-normal.woff2'))).toBe(true);
    const request = {
      width: 320,
      height: 180,
      duration: 2,
      frame_rate: 30,
      background_color: '#000000',
      elements: [
        { type: 'text', text: 'Preview', y: '20%', font_family: 'Montserrat', font_weight: 700, font_size: 32, fill_color: '#ffffff' },
        // Graded (a canvas must read its pixels) from a host that does not allow the page's origin.
        { type: 'image', source_url: `${media.url}/yellow.png`, x: 80, y: 120, width: 80, height: 60, brightness: -50, lut_url: `${media.url}/look.cube` },
        { type: 'audio', id: 'tone', source_url: `${media.url}/tone.wav` },
        { type: 'waveform', source: 'tone', x: 240, y: 120, width: 120, height: 60, duration: 2 },
      ],
    };
    writeFileSync(
      path.join(out, 'index.html'),
      `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><style>html,body{margin:0;background:#000}</style></head>` +
        `<body><div id="root"></div><script>window.request = ${JSON.stringify(request)};</script><script type="module" src="main.js"></script></body></html>`,
    );
    // The page's console errors (the problems this test provokes, and Chromium's own CORS lines)
    // reach Jest's console through Remotion's browser log; the problems are asserted below instead.
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      type Problem = { kind: string; url: string; message: string };
      const problemsIn = (evaluate: (expression: string) => Promise<unknown>) => evaluate('window.problems ?? []') as Promise<Problem[]>;

      const { evaluate, screenshot } = await openPage(`${site.url}/esbuild/index.html`);
      await waitFor(() => evaluate('Boolean(window.player && window.player.current)'), (ready) => ready === true, 20_000, 100);
      await evaluate('window.player.current.seekTo(30)');
      // The text is in Montserrat Bold, not a fallback: the face loaded, and it sets the word wider than a serif does.
      expect(
        await waitFor(
          () => evaluate(`document.fonts.ready.then(() => [...document.fonts].some((face) => face.family === 'Montserrat' && face.weight === '700' && face.status === 'loaded'))`),
          (loaded) => loaded === true,
          20_000,
          100,
        ),
      ).toBe(true);
      const widths = (await evaluate(
        `(() => { const c = document.createElement('canvas').getContext('2d'); return ['700 32px Montserrat', '700 32px serif'].map((font) => { c.font = font; return c.measureText('Preview').width; }); })()`,
      )) as number[];
      expect(Math.abs(widths[0] - widths[1])).toBeGreaterThan(5);
      // The graded image, its LUT and the waveform's sound cannot be read from this page: each reported, with the URL and why.
      const problems = await waitFor(() => problemsIn(evaluate), (found) => found.length >= 3, 20_000, 200);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: 'image', url: `${media.url}/yellow.png`, message: expect.stringContaining('CORS') }),
          expect.objectContaining({ kind: 'lut', url: `${media.url}/look.cube`, message: expect.stringContaining('CORS') }),
          expect.objectContaining({ kind: 'sound', url: `${media.url}/tone.wav`, message: expect.stringContaining('CORS') }),
        ]),
      );
      expect(problems.filter((problem) => problem.kind === 'font')).toEqual([]);
      // The image no longer vanishes: it shows ungraded (its own yellow, not darkened by brightness -50).
      const frame = await waitFor(() => screenshot(320, 180), (f) => near(f.at(80, 120), YELLOW, 30), 20_000, 100);
      expect(near(frame.at(80, 120), YELLOW, 30)).toBe(true);

      // The same bundle without its fonts folder: the missing font is reported with its URL, not silently replaced.
      const missing = await openPage(`${site.url}/esbuild-nofonts/index.html`);
      await waitFor(() => missing.evaluate('Boolean(window.player && window.player.current)'), (ready) => ready === true, 20_000, 100);
      const fontProblems = await waitFor(
        async () => (await problemsIn(missing.evaluate)).filter((problem) => problem.kind === 'font'),
        (found) => found.length > 0,
        20_000,
        200,
      );
      expect(fontProblems).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ url: `${site.url}/esbuild-nofonts/fonts/montserrat-latin-700-normal.woff2`, message: expect.stringContaining('HTTP 404') }),
        ]),
      );
    } finally {
      quiet.mockRestore();
    }
  }, 120_000);
});

// `npm run bench:frame-profile`: where a frame's time goes on Remotion's page (issue 32). The built
// composition bundle (dist/composition-bundle) on one tab of the service's browser (Debian's headless
// shell, the service's flags), driven with the steps the warm still page uses; each frame split into
// Remotion's seek (its readiness wait before, `remotion_setFrame`, the readiness wait after,
// `document.fonts.ready`) and its screenshot (takeFrame, JPEG 90 as the plan's encoder), plus the
// main thread's own account of it (CDP Performance.getMetrics: script, style, layout, other tasks)
// and, over a few frames, a trace of every thread (paint, raster, GPU, image decode), ms a frame.
// Cases `moving` and `texts` (bench/engine.mts's scenes) at 1920x1080 and 320x180: a cost that
// scales with the pixels is paint/raster/capture; one that does not is JS, React or waiting.
// CPU ms: this process and the browser's, user + system, a frame (the frames before the trace).
// BENCH_FRAMES (default 30) frames from the middle of a 3 s scene; BENCH_FLAGS adds Chromium flags;
// BENCH_GL (default angle, as the service) sets Remotion's gl option.
import { openBrowser } from '@remotion/renderer';
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NoReactInternals } from 'remotion/no-react';
import { printTable, root, treeCpuSeconds } from './bench-service.mts';

const require = createRequire(import.meta.url);
const steps = require(path.join(root, 'dist/src/renders/engine/browser/remotion-steps.js'));
const cases = process.argv.slice(2).length ? process.argv.slice(2) : ['moving', 'texts'];
const sizes = (process.env.BENCH_SIZES ?? '1920x1080,320x180').split(',').map((s) => s.split('x').map(Number) as [number, number]);
const frames = Number(process.env.BENCH_FRAMES ?? 30);
const seconds = 3;
const fps = 30;
const gl = (process.env.BENCH_GL ?? 'angle') as 'angle';
// BENCH_SHOT: remotion (its takeFrame), beyond or viewport (Page.captureScreenshot with captureBeyondViewport true / false);
// a list (beyond,viewport,beyond,viewport) takes turns, a row each.
const shots = (process.env.BENCH_SHOT ?? 'remotion').split(',');
const extraFlags = (process.env.BENCH_FLAGS ?? '').split(' ').filter(Boolean);

const work = mkdtempSync(path.join(tmpdir(), 'bench-frame-profile-'));
// Media with Range support (the page's decoder reads clips in pieces).
const server = createServer((req, res) => {
  const file = path.join(work, path.basename(req.url ?? ''));
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    res.writeHead(404).end();
    return;
  }
  const type = file.endsWith('.png') ? 'image/png' : 'video/mp4';
  const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
  if (range) {
    const start = Number(range[1]);
    const end = range[2] ? Number(range[2]) : size - 1;
    res.writeHead(206, { 'Content-Type': type, 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${size}`, 'Accept-Ranges': 'bytes', 'Access-Control-Allow-Origin': '*' });
    createReadStream(file, { start, end }).pipe(res);
  } else {
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': size, 'Accept-Ranges': 'bytes', 'Access-Control-Allow-Origin': '*' });
    createReadStream(file).pipe(res);
  }
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

function request(name: string, W: number, H: number): object {
  const px = (fraction: number, of: number) => 2 * Math.round((fraction * of) / 2);
  const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
  const clip = `clip-${W}.mp4`;
  ffmpeg('-f', 'lavfi', '-i', `testsrc2=size=${W}x${H}:rate=30:duration=${seconds}`, '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', path.join(work, clip));
  ffmpeg('-f', 'lavfi', '-i', 'color=c=orange:s=200x200', '-frames:v', '1', path.join(work, 'logo.png'));
  const fontSize = Math.round(H / 15);
  const box = { type: 'shape', shape: 'rectangle', x: '70%', y: '50%', width: '20%', height: '20%', fill_color: '#ef4444' };
  const title = { type: 'text', text: 'Render service benchmark', x: '50%', y: '85%', width: '80%', height: '12%', font_size: fontSize, fill_color: '#ffffff' };
  if (name === 'moving') {
    return {
      width: W, height: H, duration: seconds, frame_rate: fps, background_gradient: 'linear-gradient(90deg, #1d4ed8, #9333ea)',
      elements: [
        { ...box, motion: [{ type: 'spin', duration: seconds, easing: 'linear' }] },
        { type: 'video', source_url: `${url}/${clip}`, x: '35%', y: '50%', width: '50%', height: '50%', out_point: seconds },
        { type: 'image', source_url: `${url}/logo.png`, x: '10%', y: '15%', width: '10%', height: '18%' },
        { ...title, animation_preset: 'typewriter' },
      ],
    };
  }
  // bench/engine.mts's texts scene: 20 animated texts over three boards with two transitions.
  const SCENES = [{ id: 'scene0', duration: seconds * 0.35, fill: '#1e3a8a' }, { id: 'scene1', duration: seconds * 0.4, fill: '#581c87' }, { id: 'scene2', duration: seconds * 0.35, fill: '#064e3b' }];
  const transition = Math.min(0.5, seconds * 0.05);
  const starts = [0, seconds * 0.35 - transition, seconds * 0.75 - 2 * transition];
  const ENTRANCES: object[] = [
    { motion: [{ type: 'slide', direction: 'left', duration: 0.5 }] }, { animation_preset: 'rise_words' }, { motion: [{ type: 'scale', duration: 0.4 }] },
    { animation_preset: 'word_pop' }, { motion: [{ type: 'fade', duration: 0.5 }] }, { animation_preset: 'typewriter' },
  ];
  const texts = Array.from({ length: 20 }, (_, i) => {
    const s = i < 7 ? 0 : i < 14 ? 1 : 2;
    const j = i - [0, 7, 14][s];
    const shown = starts[s] + (s === 0 ? 0 : transition);
    const end = starts[s] + SCENES[s].duration - (s === 2 ? 0 : transition);
    const time = shown + 0.2 + 0.1 * j;
    return {
      type: 'text', text: j === 0 ? `Part ${s + 1}: what the service does` : `Point ${j}, said in a few words`, time, duration: end - time,
      x: '50%', y: `${12 + j * 12}%`, font_size: Math.round(H / (j === 0 ? 14 : 22)), font_weight: j === 0 ? 700 : 400, fill_color: '#ffffff', ...ENTRANCES[i % ENTRANCES.length],
    };
  });
  void px;
  return {
    width: W, height: H, duration: seconds, frame_rate: fps, background_color: '#000000',
    elements: [...SCENES.map(({ id, duration, fill }) => ({ type: 'shape', id, track: 1, duration, x: 0, y: 0, x_anchor: 0, y_anchor: 0, width: '100%', height: '100%', fill_color: fill })), ...texts],
    transitions: [{ type: 'cross_dissolve', from_id: 'scene0', to_id: 'scene1', duration: transition }, { type: 'wipe_left', from_id: 'scene1', to_id: 'scene2', duration: transition }],
  };
}

interface Cdp {
  send(method: string, params?: object): Promise<unknown>;
  on(event: string, listener: (event: never) => void): void;
}
interface ProfilePage {
  _client(): Cdp;
  setViewport(viewport: { width: number; height: number; deviceScaleFactor: number }): Promise<void>;
  evaluateHandle(expression: string): Promise<unknown>;
  close(): Promise<void>;
}
interface PageGlobals {
  remotion_setFrame(...args: unknown[]): void;
  remotion_renderReady: boolean;
  __marks: { set: number; ready: number }[];
}
interface Layer {
  layerId: string;
  backendNodeId?: number;
  width: number;
  height: number;
  drawsContent: boolean;
  paintCount: number;
}
interface TraceEvent {
  name: string;
  ph: string;
  dur?: number;
  args?: { data?: { nodeName?: string; reason?: string; paintId?: string } };
}
/** Remotion's CDP events and answers come as `{ value, size }`. */
type Wrapped<T> = T | { value: T };

const unwrap = <T,>(answer: unknown): T => {
  const wrapped = answer as { value?: T } | null;
  return (wrapped && typeof wrapped === 'object' && 'value' in wrapped ? wrapped.value : answer) as T;
};
const evaluate = (page: unknown, pageFunction: (...args: never[]) => unknown, args: unknown[] = []) =>
  rs.puppeteerEvaluateWithCatch({ pageFunction, args, frame: null, page, timeoutInMilliseconds: 30_000 });

// Remotion's openBrowser takes no extra flags: a wrapper script adds them (as BrowserHost does for BeginFrame).
const executable = path.join(work, 'chromium.sh');
writeFileSync(executable, `#!/bin/sh\nexec ${path.join(root, 'scripts/chromium-offline.sh')} ${extraFlags.join(' ')} "$@"\n`, { mode: 0o755 });
const browser = await openBrowser('chrome', {
  browserExecutable: executable,
  chromiumOptions: { gl },
  logLevel: 'error',
});
const rs = steps.remotionSteps();
// seekToFrame's parts, run one by one below as it runs them.
const { waitForReady } = require(path.join(path.dirname(require.resolve('@remotion/renderer')), 'seek-to-frame.js'));
const bundle = await steps.serveBundle(rs, path.join(root, 'dist/composition-bundle'));
const rows: string[][] = [];
const THREAD_EVENTS = ['Paint', 'RasterTask', 'PaintImage', 'Decode Image', 'ImageDecodeTask', 'CompositeLayers', 'UpdateLayerTree', 'Layout', 'UpdateLayoutTree', 'FunctionCall', 'EvaluateScript', 'GPUTask', 'Screenshot', 'CaptureScreenshot'];

for (const name of cases) {
  for (const [W, H] of sizes) for (const shot of shots) {
    const page = await (browser as unknown as { newPage(o: object): Promise<ProfilePage> }).newPage({ context: bundle.sourceMap, logLevel: 'error', indent: false, pageIndex: 0, onBrowserLog: null, onLog: rs.defaultOnLog });
    const cdp = page._client();
    await page.setViewport({ width: W, height: H, deviceScaleFactor: 1 });
    await steps.loadBundle(rs, page, bundle);
    const scene = request(name, W, H) as { elements: { type: string; motion?: unknown }[]; background_gradient?: string };
    // BENCH_DROP (video, image, text, shape, spin, gradient): a part left out, to see what it costs.
    for (const part of (process.env.BENCH_DROP ?? '').split(',').filter(Boolean)) {
      if (part === 'gradient') delete scene.background_gradient;
      else if (part === 'spin') for (const e of scene.elements) delete e.motion;
      else scene.elements = scene.elements.filter((e) => e.type !== part);
    }
    const props = { request: scene, media: {}, sources: {} };
    const composition = { id: 'Main', width: W, height: H, fps, durationInFrames: seconds * fps, props };
    await steps.setComposition(rs, page, composition, NoReactInternals.serializeJSONWithSpecialTypes({ data: props, indent: undefined, staticBase: null }).serializedString);
    // Page-side marks: how long remotion_setFrame runs, and when renderReady turns true after it.
    await evaluate(page, (() => {
      const w = globalThis as unknown as PageGlobals;
      const original = w.remotion_setFrame;
      w.__marks = [];
      w.remotion_setFrame = (...a: unknown[]) => {
        const t0 = performance.now();
        original(...a);
        const t1 = performance.now();
        const mark = { set: t1 - t0, ready: -1 };
        w.__marks.push(mark);
        const poll = () => (w.remotion_renderReady === true ? (mark.ready = performance.now() - t0) : setTimeout(poll, 0));
        poll();
      };
    }) as never);
    await cdp.send('Performance.enable');
    const metrics = async () => Object.fromEntries(unwrap<{ metrics: { name: string; value: number }[] }>(await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const sum: Record<string, number> = {};
    const add = (k: string, v: number) => (sum[k] = (sum[k] ?? 0) + v);
    const first = Math.floor((seconds * fps) / 2) - Math.floor(frames / 2);
    // Warm-up: the clip's decoder and the fonts.
    for (const f of [first - 2, first - 1]) await rs.seekToFrame({ frame: f, page, composition: 'Main', timeoutInMilliseconds: 30_000, indent: false, logLevel: 'error', attempt: 0 });
    const screenshot = async () => {
      if (shot === 'remotion') await rs.takeFrame({ freePage: page, height: H, width: W, imageFormat: 'jpeg', scale: 1, output: null, jpegQuality: 90, wantsBuffer: true, timeoutInMilliseconds: 30_000 });
      else await cdp.send('Page.captureScreenshot', { format: 'jpeg', quality: 90, clip: { x: 0, y: 0, width: W, height: H, scale: 1 }, captureBeyondViewport: shot === 'beyond', optimizeForSpeed: true, fromSurface: true });
    };
    if (process.env.BENCH_COMPARE) {
      // The same frame captured with captureBeyondViewport true and false, at device scale factors 1, 0.5 and 2: identical bytes?
      for (const scale of [1, 0.5, 2]) {
        await page.setViewport({ width: W, height: H, deviceScaleFactor: scale });
        await rs.seekToFrame({ frame: first, page, composition: 'Main', timeoutInMilliseconds: 30_000, indent: false, logLevel: 'error', attempt: 0 });
        const shots: string[] = [];
        for (const beyond of [true, false, true, false]) {
          for (const format of ['jpeg', 'png']) {
            const { data } = unwrap<{ data: string }>(await cdp.send('Page.captureScreenshot', { format, quality: format === 'jpeg' ? 90 : undefined, clip: { x: 0, y: 0, width: W, height: H, scale: 1 }, captureBeyondViewport: beyond, optimizeForSpeed: true, fromSurface: true }));
            shots.push(data);
          }
        }
        console.log(`scale ${scale}: jpeg beyond=viewport ${shots[0] === shots[2]} (beyond repeat ${shots[0] === shots[4]}), png ${shots[1] === shots[3]}, png size ${Buffer.from(shots[3], 'base64').readUInt32BE(16)}x${Buffer.from(shots[3], 'base64').readUInt32BE(20)}`);
      }
      await page.setViewport({ width: W, height: H, deviceScaleFactor: 1 });
    }
    if (process.env.BENCH_LAYERS) {
      // The compositor's layers after a frame: each one's size and why it was made (BENCH_LAYERS=1).
      const layers: Layer[] = [];
      cdp.on('LayerTree.layerTreeDidChange', (e: Wrapped<{ layers?: Layer[] }>) => layers.splice(0, layers.length, ...(('value' in e ? e.value : e).layers ?? [])));
      await cdp.send('LayerTree.enable');
      for (const f of [first, first + 1, first + 2, first + 3, first + 4]) {
        await rs.seekToFrame({ frame: f, page, composition: 'Main', timeoutInMilliseconds: 30_000, indent: false, logLevel: 'error', attempt: 0 });
        await screenshot();
      }
      for (const layer of layers) {
        const reasons = unwrap<{ compositingReasonIds?: string[] }>(await cdp.send('LayerTree.compositingReasons', { layerId: layer.layerId }).catch(() => ({})));
        const node = layer.backendNodeId ? unwrap<{ node?: { nodeName: string; attributes?: string[] } }>(await cdp.send('DOM.describeNode', { backendNodeId: layer.backendNodeId }).catch(() => ({}))).node : undefined;
        console.log(`${node ? `${node.nodeName} ${(node.attributes ?? []).join(' ').slice(0, 160)}` : ''}`);
        console.log(`layer ${layer.layerId} ${Math.round(layer.width)}x${Math.round(layer.height)} draws=${layer.drawsContent} paints=${layer.paintCount} ${(reasons.compositingReasonIds ?? []).join(',')}`);
      }
      await cdp.send('LayerTree.disable');
    }
    const traced = Math.min(5, frames);
    let cpu = treeCpuSeconds(process.pid);
    const traceEvents: TraceEvent[] = [];
    for (let i = 0; i < frames; i++) {
      const frame = first + i;
      const tracing = i >= frames - traced;
      if (i === frames - traced) {
        cpu = treeCpuSeconds(process.pid) - cpu;
        cdp.on('Tracing.dataCollected', (e: Wrapped<TraceEvent[]>) => traceEvents.push(...('value' in e ? e.value : e)));
        await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.invalidationTracking,gpu,cc,viz,blink', transferMode: 'ReportEvents' });
      }
      void tracing;
      const m0 = await metrics();
      const t0 = performance.now();
      await waitForReady({ page, timeoutInMilliseconds: 30_000, frame: null, indent: false, logLevel: 'error' });
      const t1 = performance.now();
      await evaluate(page, ((f: number) => (globalThis as unknown as PageGlobals).remotion_setFrame(f, 'Main', 0)) as never, [frame]);
      const t2 = performance.now();
      await waitForReady({ page, timeoutInMilliseconds: 30_000, frame, indent: false, logLevel: 'error' });
      const t3 = performance.now();
      await page.evaluateHandle('document.fonts.ready');
      const t4 = performance.now();
      await screenshot();
      const t5 = performance.now();
      const m1 = await metrics();
      add('ready before', t1 - t0);
      add('setFrame call', t2 - t1);
      add('ready after', t3 - t2);
      add('fonts.ready', t4 - t3);
      add('screenshot', t5 - t4);
      add('total', t5 - t0);
      add('main: script', 1000 * (m1.ScriptDuration - m0.ScriptDuration));
      add('main: style', 1000 * (m1.RecalcStyleDuration - m0.RecalcStyleDuration));
      add('main: layout', 1000 * (m1.LayoutDuration - m0.LayoutDuration));
      add('main: all tasks', 1000 * (m1.TaskDuration - m0.TaskDuration));
    }
    const marks = unwrap<{ set: number; ready: number }[]>(await evaluate(page, (() => (globalThis as unknown as PageGlobals).__marks) as never));
    const done = new Promise((resolve) => cdp.on('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    await done;
    const byName: Record<string, number> = {};
    for (const e of traceEvents) if (e.ph === 'X' && typeof e.dur === 'number') byName[e.name] = (byName[e.name] ?? 0) + e.dur / 1000;
    if (process.env.BENCH_LAYERS) {
      // What invalidated paint during the traced frames (node and reason), to see why layers repaint.
      const reasons: Record<string, number> = {};
      for (const e of traceEvents) if (/Invalidation/.test(e.name) && e.args?.data) {
        const d = e.args.data;
        const key = `${e.name} ${d.nodeName ?? ''} ${d.reason ?? ''} ${d.paintId ?? ''}`;
        reasons[key] = (reasons[key] ?? 0) + 1;
      }
      console.log(Object.entries(reasons).sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${v}× ${k}`).join('\n'));
    }
    const top = Object.entries(byName).sort((a, b) => b[1] - a[1]).slice(0, 14).map(([k, v]) => `${k} ${(v / traced).toFixed(1)}`);
    const pageSet = marks.slice(-frames).reduce((s, m) => s + m.set, 0) / frames;
    const pageReady = marks.slice(-frames).reduce((s, m) => s + m.ready, 0) / frames;
    const per = (k: string) => (sum[k] / frames).toFixed(1);
    rows.push([name, `${W}x${H}`, shot, ((1000 * cpu) / (frames - traced)).toFixed(0), per('ready before'), per('setFrame call'), per('ready after'), per('fonts.ready'), per('screenshot'), per('total'), pageSet.toFixed(1), pageReady.toFixed(1), per('main: script'), per('main: style'), per('main: layout'), per('main: all tasks')]);
    console.log(`${name} ${W}x${H} trace, ms a frame by event (all threads): ${top.join(', ')}`);
    await page.close();
  }
}
printTable(['case', 'size', 'screenshot call', 'CPU ms (untraced)', 'ready before', 'setFrame (CDP)', 'ready after', 'fonts.ready', 'screenshot', 'total', 'page: setFrame', 'page: until ready', 'main: script', 'main: style', 'main: layout', 'main: tasks'], rows);
await bundle.closeServer(true);
await browser.close({ silent: true });
server.close();
rmSync(work, { recursive: true, force: true });
void THREAD_EVENTS;

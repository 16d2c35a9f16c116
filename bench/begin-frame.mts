// `npm run bench:begin-frame`: does capturing frames with Chromium's BeginFrame control (one
// HeadlessExperimental.beginFrame call draws and returns the frame, as HyperFrames does) beat the
// screenshot after each frame that Remotion takes (set the frame, wait for the page, then
// Page.captureScreenshot)? Debian's chromium-headless-shell, one page of 1080p animated text and a
// spinning box driven by a frame number, BENCH_FRAMES frames (default 150) per way, JPEG and PNG,
// the ways taking turns BENCH_RUNS times (default 2). Prints ms a frame, median of the runs.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type CDPSession } from 'puppeteer-core';
import { printTable } from './bench-service.mts';

const frames = Math.max(10, Number(process.env.BENCH_FRAMES ?? 150));
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 2));
const executablePath = process.env.BENCH_CHROMIUM ?? '/usr/lib/chromium/chromium-headless-shell';
const work = mkdtempSync(path.join(tmpdir(), 'bench-begin-frame-'));
const page = path.join(work, 'page.html');
writeFileSync(page, `<!doctype html><html><body style="margin:0;width:1920px;height:1080px;overflow:hidden;background:linear-gradient(90deg,#1d4ed8,#9333ea);font:40px sans-serif;color:white">
${Array.from({ length: 20 }, (_, i) => `<div class="t" style="position:absolute;left:${5 + (i % 4) * 24}%;top:${6 + Math.floor(i / 4) * 18}%">Animated line ${i + 1}</div>`).join('')}
<div id="box" style="position:absolute;left:800px;top:400px;width:300px;height:300px;background:#f59e0b;border-radius:24px"></div>
<script>
window.setFrame = (f) => {
  document.querySelectorAll('.t').forEach((el, i) => { el.style.transform = 'translate(' + (Math.sin((f + i * 7) / 10) * 30) + 'px,' + (Math.cos((f + i * 5) / 12) * 20) + 'px)'; el.style.opacity = String(0.5 + 0.5 * Math.sin((f + i) / 15)); });
  document.getElementById('box').style.transform = 'rotate(' + (f * 3) + 'deg)';
};
window.setFrame(0);
</script></body></html>`);

const common = ['--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--mute-audio', '--window-size=1920,1080'];

/** Remotion's way: set the frame, let the page settle (a rAF round trip), then a screenshot. */
async function screenshots(browser: Browser, format: 'jpeg' | 'png'): Promise<number> {
  const tab = await browser.newPage();
  await tab.setViewport({ width: 1920, height: 1080 });
  await tab.goto(`file://${page}`);
  const cdp = await tab.createCDPSession();
  const started = performance.now();
  for (let f = 0; f < frames; f++) {
    await tab.evaluate((n) => new Promise((resolve) => { (window as unknown as { setFrame(n: number): void }).setFrame(n); requestAnimationFrame(() => resolve(null)); }), f);
    // Remotion's own call (screenshot-task.js).
    await cdp.send('Page.captureScreenshot', { format, ...(format === 'jpeg' ? { quality: 80 } : {}), clip: { x: 0, y: 0, width: 1920, height: 1080, scale: 1 }, captureBeyondViewport: true, optimizeForSpeed: true, fromSurface: true });
  }
  const ms = (performance.now() - started) / frames;
  await tab.close();
  return ms;
}

/** BeginFrame control: the page draws only when told, and the same call returns the picture. */
async function beginFrames(browser: Browser, format: 'jpeg' | 'png'): Promise<number> {
  const root: CDPSession = await browser.target().createCDPSession();
  const { targetId } = await root.send('Target.createTarget', { url: 'about:blank', enableBeginFrameControl: true, width: 1920, height: 1080 } as never);
  const target = await browser.waitForTarget((t) => (t as unknown as { _targetId: string })._targetId === targetId);
  const tab = (await target.page())!;
  const cdp = await tab.createCDPSession();
  await cdp.send('HeadlessExperimental.enable' as never);
  const interval = 1000 / 30;
  let ticks = 0;
  const tick = () => cdp.send('HeadlessExperimental.beginFrame' as never, { frameTimeTicks: (ticks += interval), interval, noDisplayUpdates: true } as never);
  const navigation = tab.goto(`file://${page}`);
  // The page loads only while frames are begun.
  let loaded = false;
  void navigation.then(() => (loaded = true));
  while (!loaded) await tick();
  const started = performance.now();
  for (let f = 0; f < frames; f++) {
    await tab.evaluate((n) => (window as unknown as { setFrame(n: number): void }).setFrame(n), f);
    const result = (await cdp.send('HeadlessExperimental.beginFrame' as never, { frameTimeTicks: (ticks += interval), interval, screenshot: { format, ...(format === 'jpeg' ? { quality: 80 } : {}), optimizeForSpeed: true } } as never)) as { screenshotData?: string };
    if (!result.screenshotData) throw new Error(`frame ${f}: no picture (nothing changed on screen)`);
  }
  const ms = (performance.now() - started) / frames;
  await tab.close();
  return ms;
}

const browsers = {
  screenshot: await puppeteer.launch({ executablePath, headless: true, args: common }),
  beginFrame: await puppeteer.launch({ executablePath, headless: true, args: [...common, '--enable-begin-frame-control', '--deterministic-mode', '--run-all-compositor-stages-before-draw', '--disable-new-content-rendering-timeout', '--disable-threaded-animation', '--disable-threaded-scrolling', '--disable-checker-imaging'] }),
};
const results: Record<string, number[]> = {};
try {
  for (let run = 0; run < runs; run++) {
    for (const format of ['jpeg', 'png'] as const) {
      (results[`screenshot ${format}`] ??= []).push(await screenshots(browsers.screenshot, format));
      (results[`beginFrame ${format}`] ??= []).push(await beginFrames(browsers.beginFrame, format));
    }
  }
} finally {
  await Promise.all(Object.values(browsers).map((b) => b.close()));
  rmSync(work, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
printTable(['capture', 'ms a frame (median)', 'runs'], Object.entries(results).map(([name, xs]) => [name, median(xs).toFixed(1), xs.map((x) => x.toFixed(1)).join(' / ')]));

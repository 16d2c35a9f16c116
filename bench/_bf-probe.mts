import puppeteer from 'puppeteer-core';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
const browser = await puppeteer.launch({ executablePath: '/usr/lib/chromium/chromium-headless-shell', headless: true, args: ['--no-sandbox', '--disable-gpu', '--run-all-compositor-stages-before-draw'] });
const root = await browser.target().createCDPSession();
const { targetId } = await root.send('Target.createTarget', { url: 'about:blank', enableBeginFrameControl: true, width: 320, height: 180 } as never);
const target = await browser.waitForTarget((t) => (t as any)._targetId === targetId);
const tab = (await target.page())!;
const cdp = await tab.createCDPSession();
await cdp.send('HeadlessExperimental.enable' as never);
const bf = (o: object) => cdp.send('HeadlessExperimental.beginFrame' as never, { ...o } as never) as Promise<any>;
const when = process.argv[2];
if (when === 'before') await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
const nav = tab.goto('data:text/html,<body style="margin:0"><div style="width:50px;height:50px;background:red"></div></body>');
let loaded = false; void nav.then(() => loaded = true);
while (!loaded) await bf({ noDisplayUpdates: true });
if (when === 'after') await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
for (let i = 0; i < 2; i++) {
  const r = await bf({ screenshot: { format: 'png' } });
  const buf = Buffer.from(r.screenshotData, 'base64');
  writeFileSync('/tmp/bf/s.png', buf);
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', '/tmp/bf/s.png', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'], { maxBuffer: 1e9 });
  const w = buf.readUInt32BE(16);
  const px = (x: number, y: number) => Array.from(raw.subarray((y * w + x) * 4, (y * w + x) * 4 + 4));
  console.log(when, i, 'colortype', buf[25], 'in', px(10, 10), 'out', px(200, 100));
}
const shot = await cdp.send('Page.captureScreenshot', { format: 'png' }).catch((e) => ({ data: null, e: String(e) })) as any;
console.log('captureScreenshot', shot.data ? 'ok' : shot.e);
await browser.close();

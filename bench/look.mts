// `npm run bench:look`: what each heavy operation of the look (colour grade, LUT, blurs, masks,
// mattes, blend modes, effects) costs on a 1080p30 clip. Every row renders the same full-frame
// 1920x1080 clip (10 s by default, `-- --seconds N` to change) to H.264 through the service's own
// renderer (the built RemotionRenderer: bundle, warm browser, flags and media server of a worker),
// with the one operation applied; the first row has none. Prints wall time, fps, CPU time of the
// whole process tree, and their ratios to that first row (CPU time is the fairer measure on a
// shared machine). `-- --only REGEX` runs the reference and the matching rows.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { printTable, treeCpuSeconds } from './bench-service.mts';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '..');
const { loadConfig } = require(path.join(root, 'dist/src/config/app-config.js'));
const { RemotionRenderer } = require(path.join(root, 'dist/src/renders/engine/remotion-renderer.js'));
const { MetricsService } = require(path.join(root, 'dist/src/metrics/metrics.service.js'));
const { planOutput } = require(path.join(root, 'dist/src/renders/engine/output-formats.js'));
const { probeMedia } = require(path.join(root, 'dist/src/infra/media/probe.js'));
const { resolveRequest, validateRenderRequest } = require(path.join(root, 'dist/composition/src/schema/index.js'));

const argument = (name: string) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
};
const seconds = Number(argument('seconds') ?? 10);
const only = argument('only');
const work = mkdtempSync(path.join(tmpdir(), 'bench-look-'));
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);

const clip = path.join(work, 'clip.mp4');
ffmpeg('-f', 'lavfi', '-i', `testsrc2=size=1920x1080:rate=30:duration=${seconds}`, '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p',
  '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', clip);
const photo = path.join(work, 'photo.png');
ffmpeg('-f', 'lavfi', '-i', 'gradients=size=1920x1080:c0=0x1e3c72:c1=0xf5af19:nb_colors=2:seed=3', '-frames:v', '1', photo);
const lut = path.join(work, 'look.cube');
const size = 33;
const lines = [`LUT_3D_SIZE ${size}`];
for (let b = 0; b < size; b += 1) for (let g = 0; g < size; g += 1) for (let r = 0; r < size; r += 1) {
  const [R, G, B] = [r, g, b].map((v) => v / (size - 1));
  lines.push([Math.min(1, R * 1.08 + 0.02), G * 0.98, Math.max(0, B * 0.9 - 0.01)].map((v) => v.toFixed(6)).join(' '));
}
writeFileSync(lut, `${lines.join('\n')}\n`);

// The renderer counts what it draws; the queue gauges (read from the database at a scrape) are never read here.
const renderer = new RemotionRenderer(loadConfig(), new MetricsService({ query: async () => [] }));
await renderer.warmUp();
const mounted = renderer.mediaServer.mount([
  { file: clip, contentType: 'video/mp4' },
  { file: photo, contentType: 'image/png' },
  { file: lut, contentType: 'text/plain' },
]);
const CLIP = 'https://bench.local/clip.mp4';
const PHOTO = 'https://bench.local/photo.png';
const LUT = 'https://bench.local/look.cube';
const sources = { [CLIP]: mounted.urls[0], [PHOTO]: mounted.urls[1], [LUT]: mounted.urls[2] };
const media = { [CLIP]: await probeMedia(clip), [PHOTO]: await probeMedia(photo) };

const video = (look: object = {}) => ({ type: 'video', source_url: CLIP, out_point: seconds, ...look });
const scene = (...elements: object[]) => ({ width: 1920, height: 1080, duration: seconds, frame_rate: 30, elements });
const effect = (type: string) => scene(video({ effects: [{ type }] }));

const cases: [string, object][] = [
  ['no look (reference)', scene(video())],
  ['colour grade: brightness, contrast, saturation', scene(video({ brightness: 10, contrast: 20, saturation: 30 }))],
  ['colour grade: all 13 colour fields', scene(video({ brightness: 5, contrast: 10, saturation: 10, exposure: 5, temperature: 20, tint: -5, vibrance: 20, highlights: -20, shadows: 20, hue_rotate: 10, sharpness: 30, vignette: 30, color_overlay: '#ff000020' }))],
  ['LUT 33³', scene(video({ lut_url: LUT }))],
  ['noise 30 (new every frame)', scene(video({ noise: 30 }))],
  ['blur 10 px', scene(video({ blur: 10 }))],
  ['crop + border_radius + border + shadow', scene(video({ width: '90%', height: '90%', crop_left: 100, border_radius: 40, border_width: 8, border_color: '#ffffff', shadow_color: '#000000', shadow_blur: 30, shadow_x: 10, shadow_y: 10 }))],
  ['backdrop_blur 20 over the clip', scene(video(), { type: 'image', source_url: PHOTO, width: '50%', height: '50%', backdrop_blur: 20 })],
  ['blend_mode multiply over an image', scene({ type: 'image', source_url: PHOTO }, video({ blend_mode: 'multiply' }))],
  ['mask ellipse, feather 40', scene(video({ mask_shape: 'ellipse', mask: { feather: 40 } }))],
  ['mask_keyframes (scale, animated)', scene(video({ mask_shape: 'circle', mask_keyframes: [{ time: 0, scale: '20%' }, { time: seconds, scale: '120%', easing: 'ease_in_out' }] }))],
  ['matte: luma from an image', scene({ type: 'image', id: 'm', source_url: PHOTO }, video({ matte: { source: 'm', mode: 'luma' } }))],
  ...['blur', 'grayscale', 'pixelate', 'vignette', 'film_grain', 'glitch', 'chromatic_aberration', 'vhs', 'glow', 'shake'].map((type): [string, object] => [`effect ${type}`, effect(type)]),
];

const rows: [string, number, number][] = [];
for (const [label, body] of cases) {
  if (only && !new RegExp(only).test(label) && rows.length > 0) continue;
  const parsed = validateRenderRequest(body);
  if (!parsed.ok) throw new Error(`${label}: ${JSON.stringify(parsed.errors)}`);
  const request = parsed.value;
  const started = performance.now();
  const cpuBefore = treeCpuSeconds(process.pid);
  await renderer.render({
    props: { request, media, sources },
    resolved: resolveRequest(request, media),
    plan: planOutput('mp4', false),
    outputPath: path.join(work, 'out.mp4'),
    signal: new AbortController().signal,
    onProgress: () => undefined,
  });
  rows.push([label, (performance.now() - started) / 1000, treeCpuSeconds(process.pid) - cpuBefore]);
  console.error(`${label}: ${rows.at(-1)![1].toFixed(1)} s, ${rows.at(-1)![2].toFixed(1)} CPU s`);
}
mounted.unmount();
await renderer.onModuleDestroy();
rmSync(work, { recursive: true, force: true });

const [, referenceWall, referenceCpu] = rows[0];
const header = ['operation (1080p30, full-frame clip)', 'wall s', 'fps', '× wall', 'CPU s', '× CPU'];
const table = rows.map(([label, wall, cpu]) => [
  label, wall.toFixed(1), ((seconds * 30) / wall).toFixed(1), (wall / referenceWall).toFixed(2), cpu.toFixed(1), (cpu / referenceCpu).toFixed(2),
]);
console.log(`${seconds} s clip, ${seconds * 30} frames`);
printTable(header, table);
process.exit(0);

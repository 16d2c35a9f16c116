// `npm run bench:render`: renders a fixed set of compositions through the built service (API +
// warm worker in one process, real PostgreSQL, Debian Chromium) and prints wall time, frames per
// second and peak memory (summed RSS of this process and its children), next to two baselines:
// the machine's own ffmpeg with a hand-written filter graph, and a plain Remotion renderMedia() call
// with <OffthreadVideo>. Set DATABASE_URL to use a running PostgreSQL; otherwise the embedded one.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { printTable, serveFiles, standardScene, startBenchService, treeRssBytes, writeStandardSceneMedia } from './bench-service.mts';

const work = mkdtempSync(path.join(tmpdir(), 'bench-render-'));
// Fixtures: a 10 s 1080p clip with a tone (BT.709-tagged), and a logo.
const clip = path.join(work, 'clip.mp4');
const logo = path.join(work, 'logo.png');
writeStandardSceneMedia(work);

const files = await serveFiles(work);
const filesUrl = files.url;

async function measure<T>(pid: () => number, run: () => Promise<T>): Promise<{ seconds: number; peakBytes: number; value: T }> {
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssBytes(pid()))), 100);
  const started = performance.now();
  try {
    const value = await run();
    return { seconds: (performance.now() - started) / 1000, peakBytes: peak, value };
  } finally {
    clearInterval(sampler);
  }
}

// The service, as `npm start` runs it (api + worker in one process).
const service = await startBenchService({ name: 'render', dataDir: path.join(work, 'data'), embeddedPgPort: '54359' });
const { config } = service;

async function renderThroughService(request: object): Promise<{ frames: number; output: { size_bytes: number } }> {
  const job = await service.render(request);
  return { frames: Math.round(job.output.duration * ((request as { frame_rate?: number }).frame_rate ?? 30)), output: job.output };
}

const scene = (width: number, height: number) => standardScene(filesUrl, width, height);

const rows: [string, number, number | null, number][] = [];
const self = () => process.pid;

// Warm-up: the first job of a worker opens the browser and loads the bundle.
await renderThroughService({ width: 64, height: 64, output_format: 'png', elements: [] });

for (const [label, request] of [
  ['service: 1080p30 10 s mp4 (text, image, shape, video)', scene(1920, 1080)],
  ['service: 720p30 10 s mp4 (same)', scene(1280, 720)],
  ['service: 1080p30 5 s webm with alpha', { ...scene(1920, 1080), duration: 5, output_format: 'webm', alpha: true, background_gradient: undefined, background_color: '#00000000' }],
  ['service: 1080p png still (warm worker)', { ...scene(1920, 1080), output_format: 'png', duration: undefined }],
] as const) {
  const result = await measure(self, () => renderThroughService(request));
  rows.push([label, result.seconds, result.value.frames > 1 ? result.value.frames / result.seconds : null, result.peakBytes]);
}
await service.close();

// Baseline 1: the machine's ffmpeg with a comparable hand-written filter graph (x264 medium, CRF 18).
const font = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
const graph = [
  'gradients=s=1920x1080:c0=0x1d4ed8:c1=0x9333ea:x0=0:y0=540:x1=1920:y1=540:d=10:r=30[bg]',
  '[bg]drawbox=x=1152:y=432:w=384:h=216:color=0xef4444:t=fill[b1]',
  '[0:v]scale=960:540[clip]',
  '[b1][clip]overlay=x=192:y=270[b2]',
  `[b2][1:v]overlay=x='100+t*140':y=60[b3]`,
  `[b3]drawtext=fontfile=${font}:text='Render service benchmark':fontsize=72:fontcolor=white:x=(w-tw)/2:y=900:alpha='min(1,t)'[v]`,
].join(';');
let ffmpegPid = 0;
const ffmpegRun = await measure(() => ffmpegPid, () => new Promise<void>((resolve, reject) => {
  const child = spawn('ffmpeg', ['-v', 'error', '-y', '-i', clip, '-loop', '1', '-i', logo, '-filter_complex', graph, '-map', '[v]', '-map', '0:a',
    '-t', '10', '-c:v', 'libx264', '-preset', 'medium', '-crf', '18', '-pix_fmt', 'yuv420p', '-c:a', 'aac', path.join(work, 'ffmpeg.mp4')]);
  ffmpegPid = child.pid!;
  child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
}));
rows.push(['floor: ffmpeg filter graph, 1080p30 10 s H.264', ffmpegRun.seconds, 300 / ffmpegRun.seconds, ffmpegRun.peakBytes]);

// Baseline 2: plain renderMedia() with <OffthreadVideo>, as a user would write it.
let baselinePid = 0;
const baseline = await measure(() => baselinePid, () => new Promise<number>((resolve, reject) => {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'baseline/render-baseline.mts'), `${filesUrl}/clip.mp4`, `${filesUrl}/logo.png`, path.join(work, 'baseline.mp4'), config.render.cacheDir, config.render.browserExecutable], { stdio: ['ignore', 'pipe', 'inherit'] });
  baselinePid = child.pid!;
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!).seconds) : reject(new Error(`baseline exited ${code}`))));
}));
rows.push(['baseline: plain renderMedia + <OffthreadVideo>, 1080p30 10 s', baseline.value, 300 / baseline.value, baseline.peakBytes]);

files.close();
rmSync(work, { recursive: true, force: true });

const header = ['case', 'wall s', 'fps', 'peak memory MB'];
const lines = rows.map(([label, seconds, fps, peak]) => [label, seconds.toFixed(1), fps === null ? '–' : fps.toFixed(1), (peak / 1024 / 1024).toFixed(0)]);
printTable(header, lines);
process.exit(0);

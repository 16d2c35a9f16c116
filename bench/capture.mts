// `npm run bench:capture`: what the JPEG quality of the browser's frame capture (RENDER_JPEG_QUALITY)
// costs. The built service (API + warm worker, real PostgreSQL, Debian Chromium) renders two scenes
// whose every frame is captured by the browser — 10 s of text-heavy 1080p30 animation and the
// standard 1080p30 scene of bench/composite.mts with its clip drawn by the page — at each quality of
// BENCH_CAPTURE_QUALITIES (default 90,100), the qualities one after the other for each scene, the
// whole set BENCH_CAPTURE_RUNS times (default 2). Prints wall and CPU seconds of the whole process
// tree, the output's size, and each run's ratio to the first quality's run just before it.
// Set DATABASE_URL to use a running PostgreSQL; otherwise the embedded one.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { printTable, serveFiles, standardScene, startBenchService, treeCpuSeconds, writeStandardSceneMedia } from './bench-service.mts';

const qualities = (process.env.BENCH_CAPTURE_QUALITIES ?? '90,100').split(',').map(Number);
const runs = Math.max(1, Number(process.env.BENCH_CAPTURE_RUNS ?? 2));

const work = mkdtempSync(path.join(tmpdir(), 'bench-capture-'));
writeStandardSceneMedia(work);
const files = await serveFiles(work);
const service = await startBenchService({ name: 'capture', dataDir: path.join(work, 'data'), embeddedPgPort: '54362' });
const { config } = service;
// Every frame through the browser: the clip is drawn by the page, no frame is held.
config.render.compositeMedia = false;

async function render(request: object): Promise<{ wall: number; cpu: number; megabytes: number }> {
  const cpuBefore = treeCpuSeconds(process.pid);
  const started = performance.now();
  const job = await service.render(request);
  return { wall: (performance.now() - started) / 1000, cpu: treeCpuSeconds(process.pid) - cpuBefore, megabytes: job.output.size_bytes / 1048576 };
}

const presets = ['fade_letters', 'word_pop', 'typewriter', 'rise_words'];
const scenes: [string, object][] = [
  ['text-heavy animation 10 s 1080p30', {
    width: 1920, height: 1080, frame_rate: 30, duration: 10, background_gradient: 'linear-gradient(90deg, #1d4ed8, #9333ea)',
    elements: Array.from({ length: 20 }, (_, i) => ({
      type: 'text', text: `Animated line ${i + 1} moving all the time`, x: `${10 + (i % 4) * 25}%`, y: `${8 + Math.floor(i / 4) * 18}%`, font_size: 40,
      motion: [{ type: 'wiggle', loop: true }], ...(i % 2 ? { animation_preset: presets[i % presets.length] } : {}),
    })),
  }],
  ['standard scene 10 s 1080p30, clip drawn by the page', standardScene(files.url)],
];

// Warm-up: the first job opens the browser and loads the bundle; the clip is copied in once.
await render({ width: 64, height: 64, output_format: 'png', elements: [] });
await render({ ...scenes[1][1], width: 320, height: 180, duration: 1 });

const rows: string[][] = [];
for (let run = 1; run <= runs; run++) {
  for (const [label, request] of scenes) {
    let first: { wall: number; cpu: number } | null = null;
    for (const quality of qualities) {
      config.render.jpegQuality = quality;
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
      const measured = await render(request);
      first ??= measured;
      rows.push([`${label}, JPEG ${quality} (run ${run}, load ${load})`, measured.wall.toFixed(1), measured.cpu.toFixed(1), measured.megabytes.toFixed(1),
        `${(measured.wall / first.wall).toFixed(3)} / ${(measured.cpu / first.cpu).toFixed(3)}`]);
      console.error(`done: ${rows.at(-1)!.join(' | ')}`);
    }
  }
}
await service.close();
files.close();
rmSync(work, { recursive: true, force: true });
printTable(['case', 'wall s', 'CPU s', 'output MB', `wall / CPU vs JPEG ${qualities[0]}`], rows);
process.exit(0);

// `npm run bench:capture`: what the JPEG quality of the browser's frame capture (RENDER_JPEG_QUALITY)
// costs. The built service (API + warm worker, real PostgreSQL, Debian Chromium) renders two scenes
// whose every frame is captured by the browser — 10 s of text-heavy 1080p30 animation and the
// standard 1080p30 scene of bench/composite.mts with its clip drawn by the page — at each quality of
// BENCH_CAPTURE_QUALITIES (default 90,100), the qualities one after the other for each scene, the
// whole set BENCH_CAPTURE_RUNS times (default 2). Prints wall and CPU seconds of the whole process
// tree, the output's size, and each run's ratio to the first quality's run just before it.
// Set DATABASE_URL to use a running PostgreSQL; otherwise the embedded one.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { printTable, serveFiles, startBenchService, treeCpuSeconds } from './bench-service.mts';

const qualities = (process.env.BENCH_CAPTURE_QUALITIES ?? '90,100').split(',').map(Number);
const runs = Math.max(1, Number(process.env.BENCH_CAPTURE_RUNS ?? 2));

const work = mkdtempSync(path.join(tmpdir(), 'bench-capture-'));
const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30:duration=10', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=10',
  '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709',
  '-c:a', 'aac', '-shortest', path.join(work, 'clip.mp4'));
ffmpeg('-f', 'lavfi', '-i', 'color=c=orange:s=200x200', '-frames:v', '1', path.join(work, 'logo.png'));
const files = await serveFiles(work);
const service = await startBenchService({ name: 'capture', dataDir: path.join(work, 'data'), embeddedPgPort: '54362' });
const { call, config } = service;
// Every frame through the browser: the clip is drawn by the page, no frame is held.
config.render.compositeMedia = false;

async function render(request: object): Promise<{ wall: number; cpu: number; megabytes: number }> {
  const cpuBefore = treeCpuSeconds(process.pid);
  const started = performance.now();
  const submitted = await call('POST', '/v1/renders', request);
  if (submitted.status !== 202) throw new Error(JSON.stringify(submitted.body));
  for (;;) {
    const job = (await call('GET', `/v1/renders/${submitted.body.id}`)).body;
    if (job.status === 'completed') {
      return { wall: (performance.now() - started) / 1000, cpu: treeCpuSeconds(process.pid) - cpuBefore, megabytes: job.output.size_bytes / 1048576 };
    }
    if (job.status === 'failed' || job.status === 'cancelled') throw new Error(JSON.stringify(job.error));
    await new Promise((r) => setTimeout(r, 100));
  }
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
  ['standard scene 10 s 1080p30, clip drawn by the page', {
    width: 1920, height: 1080, duration: 10, frame_rate: 30, background_gradient: 'linear-gradient(90deg, #1d4ed8, #9333ea)',
    elements: [
      { type: 'shape', shape: 'rectangle', x: '70%', y: '50%', width: '20%', height: '20%', fill_color: '#ef4444' },
      { type: 'video', source_url: `${files.url}/clip.mp4`, x: '35%', y: '50%', width: '50%', height: '50%', out_point: 10 },
      { type: 'image', source_url: `${files.url}/logo.png`, x: '10%', y: '15%', width: '10%', height: '18%' },
      { type: 'text', text: 'Render service benchmark', x: '50%', y: '85%', width: '80%', height: '12%', font_size: 72, fill_color: '#ffffff', fade_in_duration: 1 },
    ],
  }],
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

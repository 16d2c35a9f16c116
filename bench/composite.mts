// `npm run bench:composite`: the standard 1080p30 10 s scene (gradient, shape, video clip, image,
// fading title; bench/render.mts's first case) through the service twice — video clips drawn by the
// browser, and by ffmpeg with the browser drawing only the layers around them
// (RENDER_COMPOSITE_MEDIA) — next to the hand-written ffmpeg filter graph of bench/render.mts.
// Prints wall and CPU seconds (this process and its children) and each path's ratio to that graph.
// Set DATABASE_URL to use a running PostgreSQL; otherwise the embedded one. BENCH_COMPOSITE_RUNS=N
// renders the composite case N times, each followed by the floor graph (on a shared machine the
// pairs' ratios are steadier than any one time); BENCH_COMPOSITE_ONLY=1 leaves out the browser path.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { printTable, serveFiles, standardScene, startBenchService, treeCpuSeconds, writeStandardSceneMedia } from './bench-service.mts';

const work = mkdtempSync(path.join(tmpdir(), 'bench-composite-'));
const clip = path.join(work, 'clip.mp4');
const logo = path.join(work, 'logo.png');
writeStandardSceneMedia(work);
const files = await serveFiles(work);
const filesUrl = files.url;

/** Wall and CPU seconds of `run`; children that ended are in this process's cutime/cstime. */
async function measure(run: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpuBefore = treeCpuSeconds(process.pid);
  const started = performance.now();
  await run();
  return { wall: (performance.now() - started) / 1000, cpu: treeCpuSeconds(process.pid) - cpuBefore };
}

const service = await startBenchService({ name: 'composite', dataDir: path.join(work, 'data'), embeddedPgPort: '54361' });
const { call, config } = service;

async function renderThroughService(request: object): Promise<string> {
  const submitted = await call('POST', '/v1/renders', request);
  if (submitted.status !== 202) throw new Error(JSON.stringify(submitted.body));
  for (;;) {
    const job = (await call('GET', `/v1/renders/${submitted.body.id}`)).body;
    if (job.status === 'completed') return job.id;
    if (job.status === 'failed' || job.status === 'cancelled') throw new Error(JSON.stringify(job.error));
    await new Promise((r) => setTimeout(r, 100));
  }
}

const scene = standardScene(filesUrl);

// Warm-up: the first job of a worker opens the browser and loads the bundle.
await renderThroughService({ width: 64, height: 64, output_format: 'png', elements: [] });
const db = new pg.Client({ connectionString: service.databaseUrl });
await db.connect();
// The floor: bench/render.mts's hand-written filter graph of the same scene (x264 medium, CRF 18).
const font = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
const graph = [
  'gradients=s=1920x1080:c0=0x1d4ed8:c1=0x9333ea:x0=0:y0=540:x1=1920:y1=540:d=10:r=30[bg]',
  '[bg]drawbox=x=1152:y=432:w=384:h=216:color=0xef4444:t=fill[b1]',
  '[0:v]scale=960:540[clip]',
  '[b1][clip]overlay=x=192:y=270[b2]',
  `[b2][1:v]overlay=x='100+t*140':y=60[b3]`,
  `[b3]drawtext=fontfile=${font}:text='Render service benchmark':fontsize=72:fontcolor=white:x=(w-tw)/2:y=900:alpha='min(1,t)'[v]`,
].join(';');
const measureFloor = () => measure(() => new Promise<void>((resolve, reject) => {
  const child = spawn('ffmpeg', ['-v', 'error', '-y', '-i', clip, '-loop', '1', '-i', logo, '-filter_complex', graph, '-map', '[v]', '-map', '0:a',
    '-t', '10', '-c:v', 'libx264', '-preset', 'medium', '-crf', '18', '-pix_fmt', 'yuv420p', '-c:a', 'aac', path.join(work, 'ffmpeg.mp4')]);
  child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`))));
}));

const rows: { label: string; measured: { wall: number; cpu: number }; floor?: { wall: number; cpu: number } }[] = [];
const runs = Math.max(1, Number(process.env.BENCH_COMPOSITE_RUNS ?? 1));
const cases = [
  ...(process.env.BENCH_COMPOSITE_ONLY ? [] : [['service, clip drawn by the browser', false, 1] as const]),
  ['service, clip composited by ffmpeg (RENDER_COMPOSITE_MEDIA)', true, runs] as const,
];
for (const [label, composite, times] of cases) {
  for (let run = 0; run < times; run++) {
    // The renderer reads the setting per render; the benchmark flips it between the two.
    config.render.compositeMedia = composite;
    let id = '';
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    const measured = await measure(async () => (id = await renderThroughService(scene)));
    const { diagnostics } = (await db.query('SELECT diagnostics FROM jobs WHERE id = $1', [id])).rows[0];
    const stages = diagnostics.stage_seconds ? ` (draw ${diagnostics.stage_seconds.draw} s, sound ${diagnostics.stage_seconds.audio} s, encode ${diagnostics.stage_seconds.encode} s)` : '';
    rows.push({ label: `${label}: ${diagnostics.render_path}, ${diagnostics.frames_drawn} frames drawn${stages}, load ${load}`, measured, floor: composite ? await measureFloor() : undefined });
  }
}
await db.end();
await service.close();
const floors = rows.flatMap((row) => (row.floor ? [row.floor] : []));
for (const floor of floors) rows.push({ label: 'floor: ffmpeg filter graph', measured: floor });
files.close();
rmSync(work, { recursive: true, force: true });

// Each composite run against the floor run after it; the browser path and the floors against the floors' median.
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const typical = { wall: median(floors.map((floor) => floor.wall)), cpu: median(floors.map((floor) => floor.cpu)) };
const header = ['case (1080p30 10 s H.264)', 'wall s', 'CPU s', 'wall / floor', 'CPU / floor'];
const lines = rows.map(({ label, measured: m, floor }) => {
  const against = floor ?? typical;
  return [label, m.wall.toFixed(1), m.cpu.toFixed(1), (m.wall / against.wall).toFixed(2), (m.cpu / against.cpu).toFixed(2)];
});
printTable(header, lines);
const composites = rows.filter((row) => row.floor);
if (composites.length > 1) {
  console.log(`median composite / floor: wall ${median(composites.map((row) => row.measured.wall / row.floor!.wall)).toFixed(2)}, CPU ${median(composites.map((row) => row.measured.cpu / row.floor!.cpu)).toFixed(2)}`);
}
process.exit(0);

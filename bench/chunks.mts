// `npm run bench:chunks`: chunked renders (issue 16). The built service (API + worker in one
// process, real PostgreSQL, Debian Chromium) renders one 60 s 1080p30 timeline that moves on every
// frame (so every frame goes through the browser) with a tone, three ways: whole
// (RENDER_CHUNK_FRAMES=0), in 4 chunks taken by that one worker, whole on the same chunk grid (4
// segments in turn, each with a fresh encoder: what a split render equals), and in 4 chunks with a second
// worker process (`node dist/src/main.js worker`, same database and DATA_DIR) taking chunks too.
// Then the whole render and the two processes again with each process tree held to a core of its
// own (taskset): what one-core instances do, where a process cannot borrow the other's core.
// Prints wall time (submit → completed), CPU seconds of the whole process tree (both Node
// processes, Chromium, ffmpeg), each chunk's seconds and the join's, and ratios to the whole render
// of the same group. Set DATABASE_URL to use a running PostgreSQL; otherwise the embedded one.
// The whole render and the 4 chunks by one worker run BENCH_CHUNKS_RUNS times (default 3), in
// turn, and the CPU target is read off the median of the pairs' ratios: on 2 vCPUs a render's CPU
// seconds move by ±5 % from run to run with what the other core does, as much as the chunks cost.
// BENCH_CHUNKS_SECONDS shortens the timeline for a quick look (default 60); BENCH_CHUNKS_PINNED=false
// leaves out the one-core cases. Last, the same chunks drawn by two worker containers of the image
// (bench/chunks-containers.mts; BENCH_CHUNKS_CONTAINERS=false leaves them out).
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { printTable, processTree, root, serveFiles, startBenchService, treeCpuSeconds } from './bench-service.mts';
import { renderWithContainers } from './chunks-containers.mts';

const seconds = Number(process.env.BENCH_CHUNKS_SECONDS ?? 60);
const pinnedCases = process.env.BENCH_CHUNKS_PINNED !== 'false';
const pairRuns = Math.max(1, Number(process.env.BENCH_CHUNKS_RUNS ?? 3));
const chunkCount = 4;
const totalFrames = seconds * 30;
const chunkFrames = Math.ceil(totalFrames / chunkCount);

const work = mkdtempSync(path.join(tmpdir(), 'bench-chunks-'));
execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`, path.join(work, 'tone.wav')]);
const files = await serveFiles(work);
const filesUrl = files.url;
const dataDir = path.join(work, 'data');
const service = await startBenchService({ name: 'chunks', dataDir, embeddedPgPort: '54359' });
const { call, config } = service;
const db = new pg.Client({ connectionString: service.databaseUrl });
await db.connect();

interface Diagnostics { render_path: string; drawing_tabs?: number; chunks?: number; chunk_seconds?: number[]; join_seconds?: number }

async function renderThroughService(request: object): Promise<Diagnostics> {
  const submitted = await call('POST', '/v1/renders', request);
  if (submitted.status !== 202) throw new Error(JSON.stringify(submitted.body));
  for (;;) {
    const job = (await call('GET', `/v1/renders/${submitted.body.id}`)).body;
    if (job.status === 'completed') return (await db.query('SELECT diagnostics FROM jobs WHERE id = $1', [job.id])).rows[0].diagnostics;
    if (job.status === 'failed' || job.status === 'cancelled') throw new Error(JSON.stringify(job.error));
    await new Promise((r) => setTimeout(r, 200));
  }
}

// reuse: false, or every case after the first would be answered with the first one's file.
const request = (duration: number, width = 1920, height = 1080) => ({
  reuse: false, width, height, frame_rate: 30, duration, background_gradient: 'linear-gradient(90deg, #1d4ed8, #9333ea)',
  custom_animations: { element: [{ name: 'glide', keyframes: [{ offset: 0, x: 0 }, { offset: 1, x: width - 200 }] }] },
  elements: [
    { type: 'shape', fill_color: '#ffcc00', x: 0, y: '40%', width: 200, height: 200, motion: [{ custom: 'glide', time: 0, duration, easing: 'linear' }] },
    { type: 'text', text: 'Chunked render benchmark', x: '50%', y: '80%', font_size: 72, fill_color: '#ffffff', motion: [{ type: 'wiggle', loop: true }] },
    { type: 'audio', source_url: `${filesUrl}/tone.wav` },
  ],
});

// Warm-up: the first job of a worker opens the browser and loads the bundle.
await renderThroughService(request(1, 320, 180));

let helper: ChildProcess | null = null;
async function startSecondWorker(): Promise<void> {
  const helperPort = 19500 + Math.floor(Math.random() * 500);
  helper = spawn(process.execPath, [path.join(root, 'dist', 'src', 'main.js'), 'worker'], {
    env: { ...process.env, ALLOW_PRIVATE_NETWORK: 'true', LOG_LEVEL: 'error', DATA_DIR: dataDir, HOST: '127.0.0.1', DATABASE_URL: service.databaseUrl, PORT: String(helperPort), RENDER_CHUNK_FRAMES: String(chunkFrames) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    const ready = await fetch(`http://127.0.0.1:${helperPort}/v1/ready`).then((r) => r.status === 200).catch(() => false);
    if (ready) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the second worker did not become ready');
}

/**
 * Holds a process tree (every thread of each process) to one core; processes it starts later
 * (Chromium's new tabs, ffmpeg) inherit it. Node's availableParallelism() then reports 1, so the
 * worker draws with one tab, as on a one-core instance.
 */
function pinTree(pid: number, core: number): void {
  for (const current of processTree(pid)) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', String(core), String(current)], { stdio: 'ignore' });
    } catch {
      // gone meanwhile
    }
  }
}

async function stopSecondWorker(): Promise<void> {
  const exited = new Promise((resolve) => helper!.once('exit', resolve));
  helper!.kill('SIGTERM');
  await exited;
  helper = null;
}

const load = loadavg()[0];
interface Case { label: string; frames: number; second: boolean; pinned: boolean; group: string; segmented?: boolean }
const whole = { frames: 0, second: false, pinned: false, group: 'shared' };
const oneWorker = { frames: chunkFrames, second: false, pinned: false, group: 'shared' };
const cases: Case[] = [
  ...Array.from({ length: pairRuns }, (_, run) => [
    { ...whole, label: `whole (RENDER_CHUNK_FRAMES=0)${pairRuns > 1 ? `, run ${run + 1}` : ''}` },
    { ...oneWorker, label: `${chunkCount} chunks, 1 worker process${pairRuns > 1 ? `, run ${run + 1}` : ''}` },
  ]).flat(),
  // The same grid drawn whole, a segment at a time (one worker live: what the chunks must equal).
  { ...oneWorker, label: `whole on the grid: ${chunkCount} segments, 1 worker process`, segmented: true },
  { label: `${chunkCount} chunks, 2 worker processes`, frames: chunkFrames, second: true, pinned: false, group: 'shared' },
  ...(pinnedCases
    ? [
        { label: 'whole, one core', frames: 0, second: false, pinned: true, group: 'pinned' },
        { label: `${chunkCount} chunks, 2 worker processes, one core each`, frames: chunkFrames, second: true, pinned: true, group: 'pinned' },
      ]
    : []),
];
const rows: string[][] = [];
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
// Each chunked case is compared with the whole render(s) of its group measured so far: the one
// just before it for a pair, the median of them for the others.
const wholeRuns = new Map<string, { wall: number; cpu: number }[]>();
const pairRatios: { wall: number; cpu: number }[] = [];
for (const { label, frames, second, pinned, group, segmented } of cases) {
  config.render.chunkFrames = frames;
  config.render.chunkSplit = frames === 0 || segmented ? 'never' : 'always'; // as RENDER_CHUNK_FRAMES would set it
  // A case without the second worker runs without it: it would take the whole render's job too.
  if (!second && helper) await stopSecondWorker();
  if (second && !helper) await startSecondWorker();
  if (pinned) {
    pinTree(process.pid, 0);
    if (helper?.pid) pinTree(helper.pid, 1);
  }
  const cpuBefore = treeCpuSeconds(process.pid);
  const started = performance.now();
  const diagnostics = await renderThroughService(request(seconds));
  const wall = (performance.now() - started) / 1000;
  const cpu = treeCpuSeconds(process.pid) - cpuBefore;
  const wholes = wholeRuns.get(group) ?? [];
  if (frames === 0) wholeRuns.set(group, [...wholes, { wall, cpu }]);
  const isPair = frames !== 0 && !second && !pinned && !segmented;
  const baseline = frames === 0
    ? { wall, cpu }
    : isPair ? wholes.at(-1)! : { wall: median(wholes.map((w) => w.wall)), cpu: median(wholes.map((w) => w.cpu)) };
  const ratio = { wall: wall / baseline.wall, cpu: cpu / baseline.cpu };
  if (isPair) pairRatios.push(ratio);
  rows.push([
    label, wall.toFixed(1), cpu.toFixed(1), diagnostics.render_path, String(diagnostics.drawing_tabs ?? '–'),
    diagnostics.chunk_seconds ? diagnostics.chunk_seconds.map((s) => s.toFixed(1)).join(' / ') : '–',
    diagnostics.join_seconds !== undefined ? diagnostics.join_seconds.toFixed(1) : '–',
    `${ratio.wall.toFixed(2)} / ${ratio.cpu.toFixed(2)}`,
  ]);
  console.error(`done: ${rows.at(-1)!.join(' | ')}`); // long runs: each row as soon as it is measured
}
if (helper) await stopSecondWorker();
const containers = await renderWithContainers({ server: service.databaseUrl, request: request(seconds), warmup: request(1, 320, 180), chunkFrames });
const containersLabel = `${chunkCount} chunks, 2 worker containers`;
if ('skipped' in containers) {
  rows.push([`${containersLabel}: skipped (${containers.skipped})`, '', '', '', '', '', '', '']);
} else {
  const wholes = wholeRuns.get('shared')!;
  const { wall, cpu, diagnostics } = containers;
  rows.push([
    `${containersLabel}, ${containers.limit} (chunks per worker: ${containers.chunksPerWorker.join(' + ')})`,
    wall.toFixed(1), cpu.toFixed(1), diagnostics.render_path, String(diagnostics.drawing_tabs ?? '–'),
    diagnostics.chunk_seconds ? diagnostics.chunk_seconds.map((s) => s.toFixed(1)).join(' / ') : '–',
    diagnostics.join_seconds !== undefined ? diagnostics.join_seconds.toFixed(1) : '–',
    `${(wall / median(wholes.map((w) => w.wall))).toFixed(2)} / ${(cpu / median(wholes.map((w) => w.cpu))).toFixed(2)}`,
  ]);
}
console.error(`done: ${rows.at(-1)!.join(' | ')}`);
if (pairRuns > 1) {
  rows.push([
    `${chunkCount} chunks, 1 worker process: median of ${pairRuns} pairs`, '', '', '', '', '', '',
    `${median(pairRatios.map((r) => r.wall)).toFixed(2)} / ${median(pairRatios.map((r) => r.cpu)).toFixed(2)}`,
  ]);
}
await db.end();
await service.close();
files.close();
rmSync(work, { recursive: true, force: true });

const header = ['case', 'wall s', 'CPU s', 'path', 'tabs (whole)', 'chunk s (each)', 'sound + join + mux s', 'wall / CPU vs whole (its pair\'s, else the median)'];
console.log(`${seconds} s 1080p30 (${totalFrames} frames, chunks of ${chunkFrames}); load average at start: ${load.toFixed(1)} (${new Date().toISOString()})`);
printTable(header, rows);
process.exit(0);

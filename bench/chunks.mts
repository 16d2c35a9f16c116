// `npm run bench:chunks`: chunked renders (issue 16). The built service (API + worker in one
// process, real PostgreSQL, Debian Chromium) renders one 60 s 1080p30 timeline that moves on every
// frame (so every frame goes through the browser) with a tone, three ways: whole
// (RENDER_CHUNK_FRAMES=0), in 4 chunks taken by that one worker, and in 4 chunks with a second
// worker process (`node dist/src/main.js worker`, same database and DATA_DIR) taking chunks too.
// Prints wall time (submit → completed), CPU seconds of the whole process tree (both Node
// processes, Chromium, ffmpeg), each chunk's seconds and the join's, and ratios to the whole render.
// Set DATABASE_URL to use a running PostgreSQL; otherwise the embedded one. BENCH_CHUNKS_SECONDS
// shortens the timeline for a quick look (default 60).
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '..');
const { createApp } = require(path.join(root, 'dist/src/bootstrap.js'));
const { loadConfig } = require(path.join(root, 'dist/src/config/app-config.js'));

const seconds = Number(process.env.BENCH_CHUNKS_SECONDS ?? 60);
const chunkCount = 4;
const totalFrames = seconds * 30;
const chunkFrames = Math.ceil(totalFrames / chunkCount);

const work = mkdtempSync(path.join(tmpdir(), 'bench-chunks-'));
execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`, path.join(work, 'tone.wav')]);
const files = createServer((req, res) => {
  try {
    const body = readFileSync(path.join(work, path.basename(req.url ?? '')));
    res.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': body.length }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
const filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;

/** CPU seconds (user + system, own and reaped children) of a process and its live descendants. */
function treeCpuSeconds(pid: number): number {
  const children = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      children.set(Number(fields[1]), [...(children.get(Number(fields[1])) ?? []), Number(entry)]);
      cpu.set(Number(entry), Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]));
    } catch {
      // the process ended meanwhile
    }
  }
  let ticks = 0;
  const stack = [pid];
  while (stack.length) {
    const current = stack.pop()!;
    ticks += cpu.get(current) ?? 0;
    stack.push(...(children.get(current) ?? []));
  }
  return ticks / 100;
}

// A fresh database on the given server (dropped at the end), so runs never meet other data.
let databaseUrl: string | undefined;
if (process.env.DATABASE_URL) {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `bench_chunks_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
}
const port = 19000 + Math.floor(Math.random() * 500);
const dataDir = path.join(work, 'data');
const env = { ALLOW_PRIVATE_NETWORK: 'true', LOG_LEVEL: 'error', EMBEDDED_PG_PORT: '54359', DATA_DIR: dataDir, HOST: '127.0.0.1' };
const config = loadConfig({ ...process.env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...env, PORT: String(port) });
const service = await createApp(config, 'all');
await service.app.listen(port, '127.0.0.1');
const api = `http://127.0.0.1:${port}`;
const call = async (method: string, route: string, body?: unknown, key?: string) => {
  const res = await fetch(api + route, { method, headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json() };
};
const email = 'bench@example.com';
const signup = await call('POST', '/v1/signup', { workspace_name: 'bench', email });
const mailDir = path.join(config.dataDir, 'mail');
const code = /verification code is (\d{6})/.exec(readFileSync(path.join(mailDir, readdirSync(mailDir)[0]), 'utf8'))![1];
const key: string = signup.body.api_key.key;
await call('POST', '/v1/signup/verify', { email, code }, key);
const db = new pg.Client({ connectionString: service.databaseUrl });
await db.connect();

interface Diagnostics { render_path: string; chunks?: number; chunk_seconds?: number[]; join_seconds?: number }

async function renderThroughService(request: object): Promise<Diagnostics> {
  const submitted = await call('POST', '/v1/renders', request, key);
  if (submitted.status !== 202) throw new Error(JSON.stringify(submitted.body));
  for (;;) {
    const job = (await call('GET', `/v1/renders/${submitted.body.id}`, undefined, key)).body;
    if (job.status === 'completed') return (await db.query('SELECT diagnostics FROM jobs WHERE id = $1', [job.id])).rows[0].diagnostics;
    if (job.status === 'failed' || job.status === 'cancelled') throw new Error(JSON.stringify(job.error));
    await new Promise((r) => setTimeout(r, 200));
  }
}

const request = (duration: number, width = 1920, height = 1080) => ({
  width, height, frame_rate: 30, duration, background_gradient: 'linear-gradient(90deg, #1d4ed8, #9333ea)',
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
  const helperPort = port + 500;
  helper = spawn(process.execPath, [path.join(root, 'dist', 'src', 'main.js'), 'worker'], {
    env: { ...process.env, ...env, DATABASE_URL: service.databaseUrl, PORT: String(helperPort), RENDER_CHUNK_FRAMES: String(chunkFrames) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    const ready = await fetch(`http://127.0.0.1:${helperPort}/v1/ready`).then((r) => r.status === 200).catch(() => false);
    if (ready) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the second worker did not become ready');
}

const load = loadavg()[0];
const cases: [string, number, boolean][] = [
  ['whole (RENDER_CHUNK_FRAMES=0)', 0, false],
  [`${chunkCount} chunks, 1 worker process`, chunkFrames, false],
  [`${chunkCount} chunks, 2 worker processes`, chunkFrames, true],
];
const rows: string[][] = [];
let baseline: { wall: number; cpu: number } | null = null;
for (const [label, frames, second] of cases) {
  config.render.chunkFrames = frames;
  if (second) await startSecondWorker();
  const cpuBefore = treeCpuSeconds(process.pid);
  const started = performance.now();
  const diagnostics = await renderThroughService(request(seconds));
  const wall = (performance.now() - started) / 1000;
  const cpu = treeCpuSeconds(process.pid) - cpuBefore;
  baseline ??= { wall, cpu };
  rows.push([
    label, wall.toFixed(1), cpu.toFixed(1), diagnostics.render_path,
    diagnostics.chunk_seconds ? diagnostics.chunk_seconds.map((s) => s.toFixed(1)).join(' / ') : '–',
    diagnostics.join_seconds !== undefined ? diagnostics.join_seconds.toFixed(1) : '–',
    `${(wall / baseline.wall).toFixed(2)} / ${(cpu / baseline.cpu).toFixed(2)}`,
  ]);
  console.error(`done: ${rows.at(-1)!.join(' | ')}`); // long runs: each row as soon as it is measured
}
helper?.kill('SIGTERM');
await db.end();
await service.close();
if (databaseUrl) {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`);
  await admin.end();
}
files.close();
rmSync(work, { recursive: true, force: true });

const header = ['case', 'wall s', 'CPU s', 'path', 'chunk s (each)', 'sound + join + mux s', 'wall / CPU vs whole'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((l) => l[i].length)));
const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(`${seconds} s 1080p30 (${totalFrames} frames, chunks of ${chunkFrames}); load average at start: ${load.toFixed(1)} (${new Date().toISOString()})`);
console.log(fmt(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const line of rows) console.log(fmt(line));
process.exit(0);

// `npm run bench:short`: what short renders cost, the kind a burst, a batch or the test suite is
// made of, where the fixed cost of a render (tabs opened, the bundle loaded) outweighs its frames.
// The built service (API + worker in one process, real PostgreSQL, Debian Chromium) renders each
// case SHORT_REPEATS times (default 3) after one warm-up render, submitted one at a time and polled
// every 20 ms. Prints, per case, the median wall time (submit → completed), the median CPU seconds
// of the whole process tree (Node, Chromium, ffmpeg), the path and the drawing tabs. With
// SHORT_BASELINE_DIST (another build's dist folder) each sitting runs the baseline and this build
// alternately, each in a child process of its own; SHORT_SITTINGS (default 2) sittings. SHORT_CASES
// keeps the cases whose names start with one of its comma-separated prefixes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';

interface Sample { case: string; wall: number; cpu: number; path: string; tabs: number }

const spinning = (width: number, height: number, duration: number) => ({
  width, height, duration, frame_rate: 30, background_color: '#0f172a',
  elements: [{ type: 'shape', shape: 'rectangle', x: '50%', y: '50%', width: '30%', height: '30%', fill_color: '#f97316', motion: [{ type: 'spin', duration, easing: 'linear' }] }],
});
const glideThenStill = (width: number, height: number) => ({
  width, height, duration: 2, frame_rate: 30, background_color: '#0f172a',
  elements: [
    { type: 'shape', shape: 'rectangle', x: '20%', y: '50%', width: '10%', height: '40%', fill_color: '#22c55e', motion: [{ type: 'slide', direction: 'left', duration: 1, easing: 'linear' }] },
    { type: 'text', text: 'Short render', x: '50%', y: '85%', font_size: Math.round(height / 10), fill_color: '#ffffff' },
  ],
});
const ALL_CASES: [string, object][] = [
  ['320x180, 1 s, all moving', spinning(320, 180, 1)],
  ['320x180, 2 s, moving for 1 s', glideThenStill(320, 180)],
  ['320x180, 5 s, all moving', spinning(320, 180, 5)],
  ['720p, 1 s, all moving', spinning(1280, 720, 1)],
  ['720p, 2 s, all moving', spinning(1280, 720, 2)],
  ['1080p, 1 s, all moving', spinning(1920, 1080, 1)],
  ['1080p, 4 s, all moving', spinning(1920, 1080, 4)],
];
// SHORT_CASES: only the cases whose name starts with one of these (comma-separated).
const only = (process.env.SHORT_CASES ?? '').split(',').filter(Boolean);
const CASES = ALL_CASES.filter(([name]) => only.length === 0 || only.some((prefix) => name.startsWith(prefix)));

if (process.argv[2] === '--child') {
  const { startBenchService, treeCpuSeconds } = await import('./bench-service.mts');
  const pg = (await import('pg')).default;
  const repeats = Number(process.env.SHORT_REPEATS ?? 3);
  const work = mkdtempSync(path.join(tmpdir(), 'bench-short-'));
  // Reuse off: every repeat renders.
  const service = await startBenchService({ name: 'short', dataDir: path.join(work, 'data'), embeddedPgPort: '54362', env: { RENDER_REUSE: 'false' } });
  const db = new pg.Client({ connectionString: service.databaseUrl });
  await db.connect();
  const samples: Sample[] = [];
  try {
    await service.render(CASES[0][1], 20);
    for (let round = 0; round < repeats; round++) {
      for (const [name, request] of CASES) {
        const cpu = treeCpuSeconds(process.pid);
        const started = performance.now();
        const job = await service.render(request, 20);
        const wall = (performance.now() - started) / 1000;
        const { diagnostics } = (await db.query('SELECT diagnostics FROM jobs WHERE id = $1', [job.id])).rows[0];
        samples.push({ case: name, wall, cpu: treeCpuSeconds(process.pid) - cpu, path: diagnostics.render_path, tabs: diagnostics.drawing_tabs ?? 1 });
      }
    }
  } finally {
    await db.end();
    await service.close();
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`SAMPLES ${JSON.stringify(samples)}`);
  process.exit(0);
}

const baseline = process.env.SHORT_BASELINE_DIST;
const builds: [string, string | undefined][] = baseline ? [['baseline', path.resolve(baseline)], ['this build', undefined]] : [['this build', undefined]];
const sittings = Number(process.env.SHORT_SITTINGS ?? (baseline ? 2 : 1));
const results = new Map<string, Sample[]>();
const loads: number[] = [];
for (let sitting = 0; sitting < sittings; sitting++) {
  for (const [label, dist] of sitting % 2 === 0 ? builds : [...builds].reverse()) {
    loads.push(loadavg()[0]);
    const child = spawnSync(process.execPath, [import.meta.filename, '--child'], { env: { ...process.env, ...(dist ? { BENCH_DIST: dist } : {}) }, encoding: 'utf8', maxBuffer: 1 << 26 });
    const line = child.stdout.split('\n').find((text) => text.startsWith('SAMPLES '));
    if (!line) throw new Error(`${label}: ${child.stderr.slice(-2000)}`);
    results.set(label, [...(results.get(label) ?? []), ...JSON.parse(line.slice(8))]);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values: number[]) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;
const { printTable } = await import('./bench-service.mts');
const rows: string[][] = [];
for (const [name] of CASES) {
  for (const [label] of builds) {
    const mine = (results.get(label) ?? []).filter((sample) => sample.case === name);
    rows.push([name, label, median(mine.map((s) => s.wall)).toFixed(2), range(mine.map((s) => s.wall)), median(mine.map((s) => s.cpu)).toFixed(2), [...new Set(mine.map((s) => `${s.path} ×${s.tabs}`))].join(', ')]);
  }
}
printTable(['case', 'build', 'wall s (median)', 'wall s (range)', 'CPU s (median)', 'path × tabs'], rows);
console.log(`\n${sittings} sitting(s) × ${process.env.SHORT_REPEATS ?? 3} renders per case and build; load average at each start: ${loads.map((load) => load.toFixed(1)).join(', ')}`);

// `npm run bench:still`: png stills of a 1080p scene (gradient, shape, picture, text) through the
// built service (API + warm worker in one process, real PostgreSQL, Debian Chromium), submitted
// one after another over HTTP as a client would. Prints the median and p95 of submit → completed
// (the client polls GET /v1/renders/:id every 25 ms), and the median of each stage: the pipeline's
// own seconds (jobs.diagnostics.pipeline_seconds), `finish` (completed_at − started_at − the
// pipeline's stages: recording the outcome and cleanup) and `notice` (what is left of the client's
// wall time: the HTTP submit, the completed row reaching the client). Runs the set once with the
// warm still page off ("before": RENDER_WARM_STILLS=false, Remotion's renderStill per job) and
// once as shipped ("after"). Set DATABASE_URL to use a running PostgreSQL; otherwise the embedded
// one. `node bench/still.mts 20` sets the number of stills per set (default 15).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { printTable, serveFiles, startBenchService } from './bench-service.mts';

const count = Number(process.argv[2] ?? 15);
const work = mkdtempSync(path.join(tmpdir(), 'bench-still-'));
execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=1920x1080', '-frames:v', '1', '-q:v', '2', path.join(work, 'photo.jpg')]);
const files = await serveFiles(work);
const filesUrl = files.url;
const service = await startBenchService({ name: 'still', dataDir: path.join(work, 'data'), embeddedPgPort: '54357' });
const { call, config } = service;
const db = new pg.Client({ connectionString: service.databaseUrl });
await db.connect();

type Stages = Record<string, number>;
async function still(index: number): Promise<{ wall: number; stages: Stages; path: string }> {
  const request = {
    width: 1920, height: 1080, output_format: 'png',
    background_gradient: 'linear-gradient(90deg, #1d4ed8, #9333ea)',
    elements: [
      { type: 'shape', x: '70%', y: '50%', width: '20%', height: '20%', fill_color: '#ef4444' },
      { type: 'image', source_url: `${filesUrl}/photo.jpg`, x: '30%', y: '50%', width: '40%', height: '40%' },
      // A different title each time: every still is a new request for the page.
      { type: 'text', text: `Still number ${index + 1}`, x: '50%', y: '85%', font_size: 72, font_family: 'Montserrat', fill_color: '#ffffff' },
    ],
  };
  const started = performance.now();
  const submitted = await call('POST', '/v1/renders', request);
  if (submitted.status !== 202) throw new Error(JSON.stringify(submitted.body));
  for (;;) {
    const job = (await call('GET', `/v1/renders/${submitted.body.id}`)).body;
    if (job.status === 'completed') {
      const wall = (performance.now() - started) / 1000;
      const { rows } = await db.query('SELECT diagnostics, EXTRACT(EPOCH FROM completed_at - started_at)::float AS run FROM jobs WHERE id = $1', [job.id]);
      const pipeline = rows[0].diagnostics.pipeline_seconds as Stages;
      const inPipeline = pipeline.inputs + pipeline.prepare + pipeline.draw + pipeline.upload;
      const finish = rows[0].run - inPipeline;
      const stages = { ...pipeline, finish, notice: wall - pipeline.queue - inPipeline - finish };
      return { wall, stages, path: rows[0].diagnostics.still_path ?? rows[0].diagnostics.render_path };
    }
    if (job.status === 'failed' || job.status === 'cancelled') throw new Error(JSON.stringify(job.error));
    await new Promise((r) => setTimeout(r, 25));
  }
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

// Warm-up: the first job opens the browser and loads the bundle; the picture is copied into storage.
await still(-1);
const load = loadavg()[0];
const stageNames = ['queue', 'inputs', 'prepare', 'draw', 'upload', 'finish', 'notice'];
const rows: string[][] = [];
const sets = 'warmStills' in config.render ? [false, true] : [undefined];
for (const warm of sets) {
  if (warm !== undefined) config.render.warmStills = warm;
  await still(-1); // the first still of a set may open its page
  const runs = [];
  for (let i = 0; i < count; i++) runs.push(await still(i));
  const walls = runs.map((r) => r.wall);
  rows.push([
    warm === undefined ? 'png still 1080p' : `png still 1080p — ${warm ? 'after (warm page)' : 'before (renderStill)'}`,
    runs[0].path,
    quantile(walls, 0.5).toFixed(3), quantile(walls, 0.95).toFixed(3),
    ...stageNames.map((name) => quantile(runs.map((r) => r.stages[name]), 0.5).toFixed(3)),
  ]);
  console.error(`done: ${rows.at(-1)!.join(' | ')}`);
}
await db.end();
await service.close();
files.close();
rmSync(work, { recursive: true, force: true });

const header = ['case', 'path', 'median s', 'p95 s', ...stageNames.map((name) => `${name} s`)];
console.log(`${count} stills per set; load average at start: ${load.toFixed(1)} (${new Date().toISOString()}); stages are medians`);
printTable(header, rows);
process.exit(0);

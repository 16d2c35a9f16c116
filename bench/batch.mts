// `npm run bench:batch`: a batch of short 720p renders (issue 36). The built service (API + worker
// in one process, real PostgreSQL, Debian Chromium) renders one project once per row, every row a
// different name and colour (so nothing is reused), submitted as one POST /v1/projects/{id}/batches;
// the client polls GET /v1/batches/{id} every 250 ms. Prints the wall time (submit → batch
// completed), renders per minute, the median and p95 of a row's own render seconds (started →
// completed) and of its wait in the queue (created → started), and then the same rows submitted
// again: every row reused from the first batch, no render. BATCH_ROWS sets the rows (default 100),
// BATCH_SECONDS each render's length (default 2); RENDER_CONCURRENCY is read as the service reads
// it. Set DATABASE_URL to use a running PostgreSQL; otherwise the embedded one.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { printTable, startBenchService } from './bench-service.mts';

const rows = Number(process.env.BATCH_ROWS ?? 100);
const seconds = Number(process.env.BATCH_SECONDS ?? 2);
const work = mkdtempSync(path.join(tmpdir(), 'bench-batch-'));
// Reuse on, as shipped: the repeat run shows what an unchanged batch costs.
const service = await startBenchService({ name: 'batch', dataDir: path.join(work, 'data'), embeddedPgPort: '54361', env: { RENDER_REUSE: 'true' } });
const { call, config } = service;
const db = new pg.Client({ connectionString: service.databaseUrl });
await db.connect();

const template = {
  width: 1280,
  height: 720,
  frame_rate: 30,
  duration: seconds,
  background_color: '{{bg}}',
  elements: [
    { type: 'text', text: 'Hello {{name}}', x: '50%', y: '45%', font_size: 80, fill_color: '#ffffff', motion: [{ type: 'fade', time: 0, duration: 0.5 }] },
    { type: 'shape', fill_color: '#ffffff', x: '50%', y: '70%', width: 400, height: 12, motion: [{ type: 'slide', time: 0.2, duration: 1 }] },
  ],
};
const project = await call('POST', '/v1/projects', { name: 'Bench batch', render_request: template, variables: {} });
if (project.status !== 201) throw new Error(JSON.stringify(project.body));
const batchRows = Array.from({ length: rows }, (_, i) => ({ name: `Row ${i + 1}`, bg: `#${((i * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(-6)}` }));

// Warm-up: the first job of a worker opens the browser and loads the bundle.
await service.render({ width: 320, height: 180, duration: 1 });

interface Run { wall: number; completed: number; failed: number; reused: number; render: number[]; wait: number[] }

async function runBatch(): Promise<Run> {
  const started = performance.now();
  const made = await call('POST', `/v1/projects/${project.body.id}/batches`, { rows: batchRows, output_filename: 'bench-{{row}}' });
  if (made.status !== 202) throw new Error(JSON.stringify(made.body));
  let batch = made.body;
  while (!batch.completed_at) {
    await new Promise((r) => setTimeout(r, 250));
    batch = (await call('GET', `/v1/batches/${made.body.id}`)).body;
  }
  const wall = (performance.now() - started) / 1000;
  const timings: { render: number; wait: number; reused: boolean }[] = (
    await db.query(
      `SELECT EXTRACT(EPOCH FROM completed_at - started_at)::float8 AS render, EXTRACT(EPOCH FROM started_at - created_at)::float8 AS wait,
              (output->>'reused_from') IS NOT NULL AS reused
       FROM jobs WHERE batch_id = $1 AND status = 'completed'`,
      [made.body.id],
    )
  ).rows;
  const rendered = timings.filter((t) => !t.reused);
  return {
    wall,
    completed: batch.counts.completed,
    failed: batch.counts.failed,
    reused: timings.length - rendered.length,
    render: rendered.map((t) => t.render),
    wait: rendered.map((t) => t.wait),
  };
}

const quantile = (values: number[], q: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const s = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(2));

const first = await runBatch();
const again = await runBatch();
await db.end();
await service.close();
rmSync(work, { recursive: true, force: true });

console.log(`\n${rows} rows of ${seconds} s 1280x720@30 (RENDER_CONCURRENCY ${config.render.concurrency}, ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)} at the end)\n`);
printTable(
  ['run', 'rows', 'completed', 'failed', 'reused', 'wall s', 'renders/min', 'render s (median)', 'render s (p95)', 'queue wait s (median)'],
  [first, again].map((run, i) => [
    i === 0 ? 'first batch' : 'same rows again',
    String(rows),
    String(run.completed),
    String(run.failed),
    String(run.reused),
    s(run.wall),
    s((run.completed / run.wall) * 60),
    s(quantile(run.render, 0.5)),
    s(quantile(run.render, 0.95)),
    s(quantile(run.wait, 0.5)),
  ]),
);

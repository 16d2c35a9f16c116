// `npm run bench:preview`: POST /v1/preview against the built service (API + warm worker in one
// process, real PostgreSQL). Dry runs: latency over HTTP as a client sees it (median and p95 of
// many requests, after a warm-up). Preview jobs: submit → `completed` wall time of a 1080p
// composition drawn as a frame, a contact sheet and a clip. With DATABASE_URL set, a fresh
// database is made on that server and dropped afterwards; otherwise the embedded PostgreSQL runs.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freshDatabase } from './bench-service.mts';

const require = createRequire(import.meta.url);
const root = path.resolve(import.meta.dirname, '..');
const { createApp } = require(path.join(root, 'dist/src/bootstrap.js'));
const { loadConfig } = require(path.join(root, 'dist/src/config/app-config.js'));

const work = mkdtempSync(path.join(tmpdir(), 'bench-preview-'));

const database = await freshDatabase('preview');

const port = 19000 + Math.floor(Math.random() * 1000);
const config = loadConfig({
  ...process.env,
  ...(database.url ? { DATABASE_URL: database.url } : {}),
  DATA_DIR: path.join(work, 'data'),
  PORT: String(port),
  HOST: '127.0.0.1',
  TRUST_PROXY: 'true',
  LOG_LEVEL: 'error',
  EMBEDDED_PG_PORT: '54361',
});
const service = await createApp(config, 'all');
await service.app.listen(port, '127.0.0.1');
const api = `http://127.0.0.1:${port}`;
let requestCount = 0;
const call = async (method: string, route: string, body?: unknown, key?: string) => {
  // A client address per request: the bench measures latency, not the per-IP rate limit.
  requestCount += 1;
  const headers = {
    'content-type': 'application/json',
    'x-forwarded-for': `198.18.${Math.floor(requestCount / 250) % 250}.${(requestCount % 250) + 1}`,
    ...(key ? { authorization: `Bearer ${key}` } : {}),
  };
  const res = await fetch(api + route, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json() };
};
const email = 'bench@example.com';
const signup = await call('POST', '/v1/signup', { workspace_name: 'bench', email });
const mailDir = path.join(config.dataDir, 'mail');
const code = /verification code is (\d{6})/.exec(readFileSync(path.join(mailDir, readdirSync(mailDir)[0]), 'utf8'))![1];
const key: string = signup.body.api_key.key;
const verified = await call('POST', '/v1/signup/verify', { email, code }, key);
if (verified.status !== 200) throw new Error(`verify answered ${verified.status}`);

/** `count` elements of every visual kind, animated, on three tracks, with external images (never fetched by a dry run). */
function composition(count: number, width = 1920, height = 1080, duration = 10) {
  const elements = Array.from({ length: count }, (_, i) => {
    const common = { id: `e${i}`, track: (i % 3) + 1, duration: (duration * 3) / count, x: `${(i * 7) % 100}%`, y: `${(i * 13) % 100}%` };
    switch (i % 3) {
      case 0:
        return { ...common, type: 'shape', width: '20%', height: '20%', fill_color: '#ef4444', motion: [{ type: 'slide', direction: 'left' }] };
      case 1:
        return { ...common, type: 'text', text: `Caption number ${i}`, font_family: 'Montserrat', font_size: 48, animation_preset: 'word_pop' };
      default:
        return { ...common, type: 'image', source_url: `https://images.example.com/${i}.jpg`, width: '30%', height: '30%' };
    }
  });
  const transitions = [{ type: 'cross_dissolve', from_id: 'e0', to_id: 'e3', duration: 0.3 }];
  return { width, height, frame_rate: 30, duration, background_color: '#1d4ed8', elements, transitions };
}

async function latencies(body: object, runs: number): Promise<number[]> {
  for (let i = 0; i < 20; i++) await call('POST', '/v1/preview', body, key); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await call('POST', '/v1/preview', body, key);
    times.push(performance.now() - started);
    // A refused request would measure the validator's early exit, not the whole dry run.
    if (res.status !== 200 || res.body.submit_error !== null || res.body.timeline.elements.length !== (body as { elements: unknown[] }).elements.length) {
      throw new Error(`dry run answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    }
  }
  return times.sort((a, b) => a - b);
}

const rows: { case: string; n: string; median: string; p95: string }[] = [];
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
for (const [label, elements] of [
  ['dry_run, 50 elements', 50],
  ['dry_run, 200 elements', 200],
] as const) {
  const times = await latencies({ ...composition(elements), preview: { mode: 'dry_run' } }, 200);
  rows.push({ case: label, n: String(times.length), median: `${quantile(times, 0.5).toFixed(1)} ms`, p95: `${quantile(times, 0.95).toFixed(1)} ms` });
}

async function job(label: string, previewOptions: object): Promise<void> {
  const started = performance.now();
  const submitted = await call('POST', '/v1/preview', { ...composition(12), elements: composition(12).elements.filter((e) => e.type !== 'image'), preview: previewOptions }, key);
  if (submitted.status !== 202) throw new Error(`${label}: ${submitted.status} ${JSON.stringify(submitted.body).slice(0, 300)}`);
  for (;;) {
    const job = await call('GET', `/v1/renders/${submitted.body.id}`, undefined, key);
    if (job.body.status === 'completed') break;
    if (['failed', 'cancelled'].includes(job.body.status)) throw new Error(`${label}: ${JSON.stringify(job.body.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  rows.push({ case: label, n: '1', median: `${((performance.now() - started) / 1000).toFixed(2)} s`, p95: '–' });
}

// The first job also waits for the worker's warm-up (bundle, browser); it is not measured.
await job('warm-up (not a result)', { mode: 'frame', time: 0 });
rows.pop();
await job('frame, 1080p at scale 0.5 (submit → completed)', { mode: 'frame', time: 5, scale: 0.5 });
await job('contact_sheet, 12 tiles of 1080p at 0.25', { mode: 'contact_sheet', count: 12 });
await job('clip, 5 s of 1080p30 at 0.5 and 15 fps', { mode: 'clip', start: 2, end: 7 });

await service.close();
await database.drop();
rmSync(work, { recursive: true, force: true });

const widths = { case: Math.max(4, ...rows.map((r) => r.case.length)), n: 3, median: 9, p95: 8 };
const line = (r: { case: string; n: string; median: string; p95: string }) =>
  `| ${r.case.padEnd(widths.case)} | ${r.n.padStart(widths.n)} | ${r.median.padStart(widths.median)} | ${r.p95.padStart(widths.p95)} |`;
console.log(line({ case: 'case', n: 'n', median: 'median', p95: 'p95' }));
console.log(`|${'-'.repeat(widths.case + 2)}|${'-'.repeat(widths.n + 2)}|${'-'.repeat(widths.median + 2)}|${'-'.repeat(widths.p95 + 2)}|`);
for (const row of rows) console.log(line(row));
process.exit(0);

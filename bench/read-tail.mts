// `npm run bench:read-tail`: the latency tail of `GET /v1/renders/{id}` at an even 500 requests a
// second (open loop: each request is timed from when it was due, so a stall counts for every request
// it held up) against the built service (`node dist/src/main.js all`, a process of its own) while
// its worker renders beside it. Prints p50/p99/max per 5 s window and overall, and the service's
// own event-loop delay and GC pauses from /metrics. READ_TAIL_SECONDS (default 30), READ_TAIL_RATE
// (default 500), READ_TAIL_ROLE (`all`, or `split`: an api and a worker process), READ_TAIL_WORKER
// (`busy`: renders beside the reads, the default; `idle`: none, and the reads begin once the one
// render they read has finished), READ_TAIL_PROBE=1 (bench/read-tail-probe.mjs in the service: per
// second of the first 15, its request time, pool waits and connections, statements, loop delay, GC).
// BENCH_SECONDS (as READ_TAIL_SECONDS), READ_TAIL_CPU_PROF=DIR (the service writes a V8 CPU profile
// there on exit), READ_TAIL_NODE_FLAGS (more node flags for the service), READ_TAIL_DIST (another build's dist folder, for paired runs against a baseline).
// In `all` the worker is a child process of the service (WORKER_PROCESS=fork, record 0129; set
// WORKER_PROCESS=inline for both in one process): the event-loop and CPU figures are then the API process's.
// Set DATABASE_URL to use a running PostgreSQL (a scratch database is created on it and dropped
// afterwards).
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const SECONDS = Number(process.env.BENCH_SECONDS ?? process.env.READ_TAIL_SECONDS ?? 30);
const RATE = Number(process.env.READ_TAIL_RATE ?? 500);
const SPLIT = process.env.READ_TAIL_ROLE === 'split';
const IDLE = process.env.READ_TAIL_WORKER === 'idle';
const PROBE = process.env.READ_TAIL_PROBE === '1';
const CPU_PROF = process.env.READ_TAIL_CPU_PROF;
const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-read-tail-'));
const port = 19000 + Math.floor(Math.random() * 1000);
const api = `http://127.0.0.1:${port}`;
const metricsToken = randomBytes(16).toString('hex');
const probeFile = path.join(dataDir, 'probe.jsonl');

let scratch: { server: string; name: string } | null = null;
let databaseUrl = '';
if (process.env.DATABASE_URL) {
  const name = `bench_read_tail_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  scratch = { server: process.env.DATABASE_URL, name };
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
}

const start = (role: string, listen: number): ChildProcess =>
  spawn(
    process.execPath,
    [
      ...(PROBE ? ['--import', path.join(root, 'bench/read-tail-probe.mjs')] : []),
      ...(process.env.READ_TAIL_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
      ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF)}`] : []),
      path.resolve(root, process.env.READ_TAIL_DIST ?? 'dist', 'src/main.js'),
      role,
    ],
    {
    cwd: root,
    env: {
      ...process.env,
      READ_TAIL_PROBE_FILE: `${probeFile}.${role}`,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: String(listen),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: api,
      EMBEDDED_PG_PORT: '54371',
      METRICS_TOKEN: metricsToken,
      LOG_LEVEL: 'warn',
      // Every read is a distinct client here; the per-IP limit is not what is measured.
      TRUST_PROXY: 'true',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
const services = SPLIT ? [start('api', port), start('worker', port + 1)] : [start('all', port)];

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
function get(route: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${api}${route}`, { agent, headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': '198.51.100.7' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function call(method: string, route: string, body?: unknown, key?: string) {
  const res = await fetch(api + route, {
    method,
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.8', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '-');

async function serverMetrics(): Promise<Record<string, number>> {
  const text = await fetch(`${api}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } }).then((r) => r.text(), () => '');
  const pick = (name: string) => Number(new RegExp(`^\\S*${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    loopP99: pick('nodejs_eventloop_lag_p99_seconds') * 1000,
    loopMax: pick('nodejs_eventloop_lag_max_seconds') * 1000,
    gcSeconds: pick('nodejs_gc_duration_seconds_sum'),
    cpuSeconds: pick('process_cpu_seconds_total'),
  };
}

try {
  for (let waited = Date.now(); ; ) {
    if (await fetch(`${api}/v1/ready`).then((r) => r.ok, () => false)) break;
    if (Date.now() - waited > 120_000) throw new Error('the service was not ready within 120 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const email = 'bench-read-tail@example.com';
  const signup = await call('POST', '/v1/signup', { workspace_name: 'bench', email });
  const mailDir = path.join(dataDir, 'mail');
  const code = /verification code is (\d{6})/.exec(readFileSync(path.join(mailDir, readdirSync(mailDir)[0]), 'utf8'))![1];
  const key: string = signup.body.api_key.key;
  await call('POST', '/v1/signup/verify', { email, code }, key);
  // Distinct each time (RENDER_REUSE would otherwise answer a repeat from the first one's output).
  const small = () => ({ width: 320, height: 180, duration: 2, frame_rate: 30, background_color: '#223344', elements: [{ type: 'text', text: `tail ${randomBytes(4).toString('hex')}`, font_size: 40, fill_color: '#ffffff' }] });
  const target = (await call('POST', '/v1/renders', small(), key)).body.id as string;
  if (IDLE) {
    while (!['completed', 'failed'].includes((await call('GET', `/v1/renders/${target}`, undefined, key)).body.status)) await new Promise((r) => setTimeout(r, 250));
  }

  // The worker beside the reads: a small render whenever the last one ended.
  let running = !IDLE;
  let rendered = 0;
  const worker = (async () => {
    while (running) {
      const id = (await call('POST', '/v1/renders', small(), key)).body.id;
      if (!id) break;
      for (;;) {
        const job = (await call('GET', `/v1/renders/${id}`, undefined, key)).body;
        if (!running || ['completed', 'failed', 'cancelled'].includes(job.status)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      rendered++;
    }
  })();

  const before = await serverMetrics();
  const latencies: { due: number; took: number }[] = [];
  let errors = 0;
  const began = performance.now();
  const beganAt = Date.now();
  const total = SECONDS * RATE;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = began + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      get(`/v1/renders/${target}`, key).then(
        (status) => {
          if (status !== 200) errors++;
          latencies.push({ due: due - began, took: performance.now() - due });
        },
        () => void errors++,
      ),
    );
  }
  await Promise.all(pending);
  const after = await serverMetrics();
  running = false;
  await worker;

  const rows: string[][] = [['window', 'requests', 'p50 ms', 'p99 ms', 'max ms']];
  for (let from = 0; from < SECONDS * 1000; from += 5000) {
    const window = latencies.filter((l) => l.due >= from && l.due < from + 5000).map((l) => l.took).sort((a, b) => a - b);
    rows.push([`${from / 1000}-${from / 1000 + 5} s`, String(window.length), ms(quantile(window, 0.5)), ms(quantile(window, 0.99)), ms(window[window.length - 1])]);
  }
  const all = latencies.map((l) => l.took).sort((a, b) => a - b);
  rows.push(['all', String(all.length), ms(quantile(all, 0.5)), ms(quantile(all, 0.99)), ms(all[all.length - 1])]);
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  console.log(`\nGET /v1/renders/{id} at ${RATE}/s for ${SECONDS} s, ${SPLIT ? 'api and worker processes' : 'one process (all)'}, ${IDLE ? 'worker idle' : `${rendered} renders beside it`}, ${errors} errors`);
  for (const row of rows) console.log(row.map((cell, c) => cell.padStart(widths[c])).join('  '));
  console.log(
    `service: event-loop delay p99 ${ms(after.loopP99)} ms, max ${ms(after.loopMax)} ms (since start); GC ${ms((after.gcSeconds - before.gcSeconds) * 1000)} ms during the run`,
  );
  // CPU time per request depends far less on how busy the machine is than latency does (with the
  // worker idle it is the request path's own cost; busy, it includes the worker's share).
  console.log(`service: CPU ${ms(((after.cpuSeconds - before.cpuSeconds) * 1000) / latencies.length)} ms per request (process CPU during the run / requests)`);
  if (PROBE) printProbe(beganAt);
} finally {
  for (const service of services) service.kill('SIGTERM');
  await Promise.all(services.map((s) => new Promise((r) => (s.exitCode !== null ? r(null) : s.once('exit', r)))));
  agent.destroy();
  if (scratch) {
    const admin = new Client({ connectionString: scratch.server });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${scratch.name} WITH (FORCE)`);
    await admin.end();
  }
  rmSync(dataDir, { recursive: true, force: true });
}

/** The probe's seconds around the start of the reads (s = seconds since the first was due). */
function printProbe(beganAt: number): void {
  for (const role of SPLIT ? ['api', 'worker'] : ['all']) {
    let lines: Record<string, number | null>[];
    try {
      lines = readFileSync(`${probeFile}.${role}`, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    } catch {
      continue;
    }
    const columns = ['s', 'requests', 'http_p99', 'http_max', 'acquire_p99', 'acquire_max', 'connections_opened', 'connections', 'waiting_max', 'query_p99', 'query_max', 'loop_p99', 'loop_max', 'gc_max', 'gc_major_max', 'gc_sum', 'cpu_ms', 'statements'];
    const rows = [columns];
    for (const line of lines) {
      const s = Math.round(((line.at as number) - beganAt) / 1000);
      if (s < -2 || s > Math.max(15, SECONDS)) continue;
      rows.push(columns.map((c) => (c === 's' ? String(s) : String(line[c] ?? '-'))));
    }
    const widths = columns.map((_, c) => Math.max(...rows.map((r) => r[c].length)));
    console.log(`\nprobe (${role}), per second; ms`);
    for (const row of rows) console.log(row.map((cell, c) => cell.padStart(widths[c])).join(' '));
  }
}

// `npm run bench:upload`: streams a 1 GiB upload through the local storage driver's signed PUT
// route of the built service (`node dist/src/main.js api`, a process of its own) and samples that
// process's resident memory from /proc while the bytes flow, to show the upload is streamed to
// disk, never held in memory. Set DATABASE_URL to use a running PostgreSQL (a scratch database is
// created on it and dropped afterwards); otherwise the service starts its embedded one.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const UPLOAD_BYTES = 1024 ** 3;
const CHUNK = Buffer.alloc(1024 * 1024, 0x5a);
const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-upload-'));
const port = 19000 + Math.floor(Math.random() * 1000);
const api = `http://127.0.0.1:${port}`;

let scratchDatabase: { server: string; name: string } | null = null;
let databaseUrl: string | undefined;
if (process.env.DATABASE_URL) {
  const name = `bench_upload_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  scratchDatabase = { server: process.env.DATABASE_URL, name };
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
}

const service = spawn(process.execPath, [path.join(root, 'dist/src/main.js'), 'api'], {
  env: {
    ...process.env,
    DATABASE_URL: databaseUrl ?? '',
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: api,
    EMBEDDED_PG_PORT: '54369',
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const pid = service.pid!;

/** Resident memory of the service process itself (not the embedded PostgreSQL it may have started). */
function rss(field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
}
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

async function call(method: string, route: string, body?: unknown, key?: string) {
  const res = await fetch(api + route, {
    method,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

try {
  for (let started = Date.now(); ; ) {
    if (await fetch(`${api}/v1/health`).then((r) => r.ok, () => false)) break;
    if (Date.now() - started > 60_000) throw new Error('the service did not start within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const email = 'bench-upload@example.com';
  const signup = await call('POST', '/v1/signup', { workspace_name: 'bench', email });
  const mailDir = path.join(dataDir, 'mail');
  const code = /verification code is (\d{6})/.exec(readFileSync(path.join(mailDir, readdirSync(mailDir)[0]), 'utf8'))![1];
  const key: string = signup.body.api_key.key;
  // The key signup returns works once verified with that same key (a repeat signup cannot take it over).
  const verified = await call('POST', '/v1/signup/verify', { email, code }, key);
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}`);
  const slot = await call('POST', '/v1/uploads', { content_type: 'video/mp4', filename: 'bench.mp4' }, key);
  if (slot.status !== 201) throw new Error(JSON.stringify(slot.body));

  const idle = rss('VmRSS');
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rss('VmRSS'))), 50);
  const started = performance.now();
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(slot.body.upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4', 'content-length': UPLOAD_BYTES } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    let sent = 0;
    const pump = () => {
      while (sent < UPLOAD_BYTES) {
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (answer.status !== 200) throw new Error(`upload answered ${answer.status}: ${answer.body}`);

  const asset = await call('GET', `/v1/workspace/assets/${slot.body.asset_id}`, undefined, key);
  const stored = statSync(path.join(dataDir, 'storage', signup.body.workspace.id, 'assets', `${slot.body.asset_id}.mp4`)).size;
  console.log(`uploaded ${mib(UPLOAD_BYTES)} in ${seconds.toFixed(1)} s (${(UPLOAD_BYTES / 1024 / 1024 / seconds).toFixed(0)} MiB/s); stored ${stored} bytes; bytes_uploaded ${asset.body.bytes_uploaded}`);
  console.log(`service RSS: ${mib(idle)} before, peak ${mib(peak)} during the upload (+${mib(peak - idle)}); VmHWM since start ${mib(rss('VmHWM'))}`);
} finally {
  if (service.exitCode === null) {
    const exited = new Promise((resolve) => service.once('exit', resolve));
    service.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
  if (scratchDatabase) {
    const admin = new Client({ connectionString: scratchDatabase.server });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${scratchDatabase.name} WITH (FORCE)`);
    await admin.end();
  }
}

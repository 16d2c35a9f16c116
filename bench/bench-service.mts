// What the benches share: the built service started in this process (API + warm worker), a signed-up
// and verified workspace to call it with, a loopback file server for their media, the CPU seconds
// of a process tree from /proc, the standard scene and its media, and the printed table. A bench imports it and keeps only its cases.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';

const require = createRequire(import.meta.url);
export const root = path.resolve(import.meta.dirname, '..');
// BENCH_DIST: another build's dist folder (a baseline's), for paired runs.
const dist = path.resolve(root, process.env.BENCH_DIST ?? 'dist');
const { createApp } = require(path.join(dist, 'src/bootstrap.js'));
const { loadConfig } = require(path.join(dist, 'src/config/app-config.js'));

type Config = ReturnType<typeof loadConfig>;
// The answers of many routes, read field by field by each bench.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export interface BenchService {
  /** The loaded configuration: a bench may flip render settings between its cases. */
  config: Config;
  /** The database the service uses (the fresh one, or the embedded one). */
  databaseUrl: string;
  key: string;
  /** A route called with the workspace's key; the answer's JSON as it came. */
  call(method: string, route: string, body?: unknown): Promise<{ status: number; body: Json }>;
  /** Submits a render and polls it every `pollMs` until it ends; throws unless it completed. */
  render(request: object, pollMs?: number): Promise<Json>;
  close(): Promise<void>;
}

/**
 * A fresh database on the server of `server` (default DATABASE_URL; dropped by `drop`), so runs
 * never meet other data; without one, undefined: the service starts its embedded PostgreSQL.
 */
export async function freshDatabase(name: string, server = process.env.DATABASE_URL): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  if (!server) return { url: undefined, drop: async () => undefined };
  const database = `bench_${name}_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    await client.query(sql);
    await client.end();
  };
  await admin(`CREATE DATABASE ${database}`);
  const url = new URL(server);
  url.pathname = `/${database}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`) };
}

/**
 * Starts the built service in this process on a random loopback port, with its data in
 * `dataDir`, signs up and verifies a workspace. `embeddedPgPort` keeps benches that may run at
 * once apart when no DATABASE_URL is given.
 */
export async function startBenchService(options: { name: string; dataDir: string; embeddedPgPort: string; env?: Record<string, string> }): Promise<BenchService> {
  const database = await freshDatabase(options.name);
  const port = 18000 + Math.floor(Math.random() * 1000);
  const config = loadConfig({
    ...process.env,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    DATA_DIR: options.dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: 'error',
    EMBEDDED_PG_PORT: options.embeddedPgPort,
    ...options.env,
  });
  const service = await createApp(config, 'all');
  await service.app.listen(port, '127.0.0.1');
  const { key, call } = await signUp(`http://127.0.0.1:${port}`, path.join(config.dataDir, 'mail'));
  return {
    config,
    databaseUrl: service.databaseUrl,
    key,
    call,
    async render(request, pollMs = 100) {
      const submitted = await call('POST', '/v1/renders', request);
      if (submitted.status !== 202) throw new Error(JSON.stringify(submitted.body));
      for (;;) {
        const job = (await call('GET', `/v1/renders/${submitted.body.id}`)).body;
        if (job.status === 'completed') return job;
        if (job.status === 'failed' || job.status === 'cancelled') throw new Error(JSON.stringify(job.error));
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    async close() {
      await service.close();
      await database.drop();
    },
  };
}

/**
 * Signs up and verifies a workspace on the service at `api` (its file mailer writing to
 * `mailDir`); returns its key and a caller of its routes.
 */
export async function signUp(api: string, mailDir: string): Promise<{ key: string; call: BenchService['call'] }> {
  // The benches block this process's event loop (execFileSync: PSNR, probes) while the server's
  // keep-alive timer runs out, so a pooled connection can be closed under the next request:
  // each request gets a connection of its own.
  const caller = (key?: string) => async (method: string, route: string, body?: unknown) => {
    const res = await fetch(api + route, {
      method,
      headers: { 'content-type': 'application/json', connection: 'close', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  const email = 'bench@example.com';
  const signup = await caller()('POST', '/v1/signup', { workspace_name: 'bench', email });
  const code = /verification code is (\d{6})/.exec(readFileSync(path.join(mailDir, readdirSync(mailDir)[0]), 'utf8'))![1];
  const key = signup.body.api_key.key as string;
  const call = caller(key);
  await call('POST', '/v1/signup/verify', { email, code });
  return { key, call };
}

/**
 * The standard scene's media in `dir`: clip.mp4 (10 s of 1080p30 `testsrc2` with a 440 Hz tone,
 * BT.709) and logo.png (an orange square).
 */
export function writeStandardSceneMedia(dir: string): void {
  const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-v', 'error', '-y', ...args]);
  ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=1920x1080:rate=30:duration=10', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=10',
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709',
    '-c:a', 'aac', '-shortest', path.join(dir, 'clip.mp4'));
  ffmpeg('-f', 'lavfi', '-i', 'color=c=orange:s=200x200', '-frames:v', '1', path.join(dir, 'logo.png'));
}

/**
 * The standard scene (10 s at 30 fps: gradient, shape, the clip at half size, logo, a title fading
 * in over 1 s), media from `filesUrl` (writeStandardSceneMedia's files served).
 */
export function standardScene(filesUrl: string, width = 1920, height = 1080) {
  return {
    width, height, duration: 10, frame_rate: 30,
    background_gradient: 'linear-gradient(90deg, #1d4ed8, #9333ea)',
    elements: [
      { type: 'shape', shape: 'rectangle', x: '70%', y: '50%', width: '20%', height: '20%', fill_color: '#ef4444' },
      { type: 'video', source_url: `${filesUrl}/clip.mp4`, x: '35%', y: '50%', width: '50%', height: '50%', out_point: 10 },
      { type: 'image', source_url: `${filesUrl}/logo.png`, x: '10%', y: '15%', width: '10%', height: '18%' },
      { type: 'text', text: 'Render service benchmark', x: '50%', y: '85%', width: '80%', height: '12%', font_size: Math.round(height / 15), fill_color: '#ffffff', fade_in_duration: 1 },
    ],
  };
}

const CONTENT_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.mp4': 'video/mp4', '.wav': 'audio/wav', '.mp3': 'audio/mpeg' };

/** Serves the files of `dir` by name on a loopback port, as a public media host would. */
export async function serveFiles(dir: string): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    const file = path.join(dir, path.basename(req.url ?? ''));
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'Content-Type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': body.length }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** A process and all its live descendants, read from /proc. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // the process ended meanwhile
    }
  }
  const tree: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const current = stack.pop()!;
    tree.push(current);
    stack.push(...(children.get(current) ?? []));
  }
  return tree;
}

/** CPU seconds (user + system, own and reaped children) of a process and its live descendants. */
export function treeCpuSeconds(pid: number): number {
  let ticks = 0;
  for (const current of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${current}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // gone
    }
  }
  return ticks / 100;
}

/** RSS (bytes) of one process; 0 once it is gone. */
export function rssBytes(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Summed RSS (bytes) of a process and all its descendants. */
export function treeRssBytes(pid: number): number {
  return processTree(pid).reduce((sum, current) => sum + rssBytes(current), 0);
}

/** A Markdown table, columns padded to their widest cell. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => (cell ?? '').padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

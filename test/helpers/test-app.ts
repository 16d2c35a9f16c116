import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { createApp, RunningApp } from '../../src/bootstrap';
import { loadConfig, Role } from '../../src/config/app-config';
import { observeResponses } from './openapi-contract';
import { freePort } from './ports';

export { freePort };

export interface TestApp {
  url: string;
  http: ReturnType<typeof request>;
  dataDir: string;
  databaseUrl: string;
  running: RunningApp;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Share another app's database (two API processes on one database). */
  databaseUrl?: string;
  /** Default `all`; tests that render nothing pass `api`, which opens no browser. */
  role?: Role;
  /** Share another app's DATA_DIR (two processes on one disk); left for its owner to remove. */
  dataDir?: string;
}

function serverUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is set by test/setup/global-setup.ts');
  return url;
}

/**
 * A fresh database on the test server, dropped by dropDatabase(). By default a copy of a template
 * that already holds the migrations and pg-boss's schema (made once per run of the suite, by
 * whichever test file asks first), so an app starts without migrating; `empty` gives a bare one.
 */
export async function createDatabase(options: { empty?: boolean } = {}): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const template = options.empty ? null : await migratedTemplate();
  const admin = new Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return databaseUrlFor(name);
}

function databaseUrlFor(name: string): string {
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The template's name follows the migrations and the pg-boss version, so a changed schema makes a
 * new one; an advisory lock makes test files running side by side build it once.
 */
async function migratedTemplate(): Promise<string> {
  const migrations = readdirSync(path.join(__dirname, '../../src/migrations')).sort().join(',');
  const bossVersion = (JSON.parse(readFileSync(require.resolve('pg-boss/package.json'), 'utf8')) as { version: string }).version;
  const hash = createHash('sha256').update(`${migrations}|${bossVersion}`).digest('hex').slice(0, 12);
  const name = `t_template_${hash}`;
  const admin = new Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(7305)');
    // Templates of other schemas are left alone: another checkout's suite may be copying them.
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rows.length > 0) return name;
    const building = `t_building_${hash}`;
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${building}`);
    // The real app migrates it and creates pg-boss's schema, exactly as on a first start.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-test-template-'));
    const config = loadConfig({ DATABASE_URL: databaseUrlFor(building), DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    const running = await createApp(config, 'api');
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock(7305)').catch(() => undefined);
    await admin.end();
  }
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new Client({ connectionString: serverUrl() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** Boots the real application (same createApp as main.ts) on a loopback port. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ownsDatabase = !options.databaseUrl;
  const databaseUrl = options.databaseUrl ?? (await createDatabase());
  const ownsDataDir = !options.dataDir;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'vrs-test-data-'));
  // The port is chosen first so that URLs the service signs (PUBLIC_BASE_URL) point at it.
  const port = await freePort();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // Files render the same request again on purpose (warm vs cold, whole vs chunks); the files
    // that test reuse turn it on.
    RENDER_REUSE: 'false',
    // Two test files share two cores with their browsers and encoders: a pool wait or a statement
    // slowed by that is not what a test checks (test/database-stall.e2e-spec.ts sets the defaults back).
    DATABASE_CONNECT_TIMEOUT_MS: '20000',
    DATABASE_QUERY_TIMEOUT_MS: '30000',
    ...options.env,
  });
  const running = await createApp(config, options.role ?? 'all');
  // Every response this app writes is held to the committed OpenAPI document (test/setup/contract-check.ts).
  observeResponses(running.app.getHttpServer(), { servesApi: options.role !== 'worker' });
  await running.app.listen(port, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    http: request(url),
    dataDir,
    databaseUrl,
    running,
    close: async () => {
      await running.close();
      if (ownsDatabase) await dropDatabase(databaseUrl);
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The newest message the file mailer wrote for `email` (the embedded default of the mail module). */
export function latestMailFromFiles(dataDir: string, email: string): string {
  const folder = path.join(dataDir, 'mail');
  const files = readdirSync(folder)
    .filter((f) => f.endsWith(`${email.toLowerCase()}.eml`))
    .sort();
  if (files.length === 0) throw new Error(`no mail for ${email}`);
  return readFileSync(path.join(folder, files[files.length - 1]), 'utf8');
}

/** The OTP in the newest message for `email`. */
export function latestCodeFromFiles(dataDir: string, email: string): string {
  const body = latestMailFromFiles(dataDir, email);
  const match = /verification code is (\d{6})/.exec(body);
  if (!match) throw new Error('no code in mail');
  return match[1];
}

let counter = 0;
/** A distinct client address per call, for routes whose per-IP limits a test would otherwise hit. */
export function nextIp(): string {
  counter += 1;
  return `198.51.100.${counter % 250}`;
}

/** Signs up and verifies through the public API; returns the working key. */
export async function signupVerified(app: Pick<TestApp, 'http' | 'dataDir'>, email = `dev${randomBytes(4).toString('hex')}@example.com`) {
  const ip = nextIp();
  const res = await app.http
    .post('/v1/signup')
    .set('X-Forwarded-For', ip)
    .send({ workspace_name: 'Test workspace', email });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${JSON.stringify(res.body)}`);
  const code = latestCodeFromFiles(app.dataDir, email);
  const verified = await app.http
    .post('/v1/signup/verify')
    .set('X-Forwarded-For', ip)
    .set(bearer(res.body.api_key.key))
    .send({ email, code });
  if (verified.status !== 200) throw new Error(`verify failed: ${verified.status} ${JSON.stringify(verified.body)}`);
  return { key: res.body.api_key.key as string, keyId: res.body.api_key.id as string, workspaceId: res.body.workspace.id as string, email };
}

export function bearer(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}

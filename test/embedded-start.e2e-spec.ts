import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { createApp, RunningApp } from '../src/bootstrap';
import { loadConfig } from '../src/config/app-config';
import { ROOT_PLACEMENT_DIR } from '../src/infra/database/postgres-placement';
import { observeResponses } from './helpers/openapi-contract';
import {
  checkoutIn,
  clusterOf,
  freePort,
  isAlive,
  postmasterPid,
  removeDataDir,
  ServiceProcess,
  startService,
  waitUntilReady,
} from './helpers/service-process';

const asRoot = process.getuid?.() === 0;

/**
 * The zero-configuration start: no DATABASE_URL, so the service initialises and runs its own
 * PostgreSQL for DATA_DIR, keeps the data across restarts, and a second process reuses it.
 */
describe('start with no configuration (embedded PostgreSQL)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-embedded-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'error', HOST: '127.0.0.1', PORT: '0' });
  const started: RunningApp[] = [];

  async function boot() {
    const running = await createApp(config, 'api');
    started.push(running);
    observeResponses(running.app.getHttpServer());
    await running.app.listen(0, '127.0.0.1');
    return { running, http: request(running.app.getHttpServer()) };
  }

  afterAll(async () => {
    for (const running of started.reverse()) await running.close().catch(() => undefined);
    await removeDataDir(dataDir);
  });

  it('initialises a cluster on a port it remembers, keeps data across a restart, and shares it with a second process', async () => {
    const first = await boot();
    // No EMBEDDED_PG_PORT: a free port, remembered in DATA_DIR.
    const port = Number(readFileSync(path.join(dataDir, '.postgres-port'), 'utf8'));
    expect(first.running.databaseUrl).toBe(`postgres://postgres:${encodeURIComponent(readFileSync(path.join(dataDir, '.postgres-password'), 'utf8'))}@127.0.0.1:${port}/app`);
    await first.http.get('/v1/ready').expect(200);
    const signup = await first.http.post('/v1/signup').send({ workspace_name: 'Local', email: 'local@example.com' }).expect(201);

    // A second process (e.g. `npm start -- worker` beside `npm start -- api`) reuses the server.
    const second = await boot();
    expect(second.running.databaseUrl).toBe(first.running.databaseUrl);
    const gated = await second.http.get('/v1/workspace').set('Authorization', `Bearer ${signup.body.api_key.key}`);
    expect(gated.body.error.code).toBe('email_not_verified');
    await second.running.close();
    started.pop();
    await first.http.get('/v1/ready').expect(200); // closing the second left the server running

    await first.running.close();
    started.pop();
    expect(postmasterPid(clusterOf(dataDir)!)).toBeNull(); // the last one out stopped it
    const restarted = await boot();
    expect(restarted.running.databaseUrl).toBe(first.running.databaseUrl); // the same port again
    const again = await restarted.http.get('/v1/workspace').set('Authorization', `Bearer ${signup.body.api_key.key}`);
    expect(again.status).toBe(403); // the workspace survived the restart
  });
});

/**
 * The built service as an operator runs it: as root from a clone under a private (0700) folder
 * with DATA_DIR inside it, two instances side by side, failures that say what to change, and
 * Ctrl-C. As root the embedded PostgreSQL runs as the `postgres` user, who cannot enter that folder.
 */
describe('the built service started from a private folder (node dist/src/main.js)', () => {
  const privateDir = mkdtempSync(path.join(tmpdir(), 'vrs-private-'));
  const checkout = checkoutIn(privateDir);
  const dataDirs = ['data-a', 'data-b', 'data-c'].map((name) => path.join(privateDir, name));
  const services: ServiceProcess[] = [];

  async function start(dataDir: string, env: Record<string, string> = {}, role = 'api'): Promise<ServiceProcess> {
    const service = startService(checkout, { DATA_DIR: dataDir, PORT: String(await freePort()), ...env }, role);
    services.push(service);
    return service;
  }

  afterAll(async () => {
    for (const service of services) {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
      await service.exited;
    }
    for (const dataDir of dataDirs) await removeDataDir(dataDir);
    rmSync(privateDir, { recursive: true, force: true });
  });

  it('starts two instances side by side, each with its own PostgreSQL, and sends a browser from / to the playground', async () => {
    expect(statSync(privateDir).mode & 0o777).toBe(0o700);
    // b runs api and worker (`all`): its queue workers and browser runner are stopped by Ctrl-C below.
    const [a, b] = await Promise.all([start(dataDirs[0]), start(dataDirs[1], {}, 'all')]);
    await Promise.all([waitUntilReady(a), waitUntilReady(b)]);

    const ports = dataDirs.slice(0, 2).map((dir) => Number(readFileSync(path.join(dir, '.postgres-port'), 'utf8')));
    expect(ports[0]).not.toBe(ports[1]);
    if (asRoot) {
      // Out of the postgres user's reach: the clusters were placed where it can enter, and nobody's permissions changed.
      for (const dir of dataDirs.slice(0, 2)) expect(clusterOf(dir)!.startsWith(`${ROOT_PLACEMENT_DIR}/clusters/`)).toBe(true);
      expect(statSync(privateDir).mode & 0o777).toBe(0o700);
    }

    const home = await fetch(`${a.url}/`, { redirect: 'manual' });
    expect(home.status).toBe(302);
    expect(home.headers.get('location')).toBe('/playground');
    expect(a.output()).toContain(`Playground: http://localhost:${a.port}/playground`);
  });

  it('says what failed and what to change when it cannot start, and leaves the running instance alone', async () => {
    const [a] = services;
    const pgPort = readFileSync(path.join(dataDirs[0], '.postgres-port'), 'utf8').trim();
    // The HTTP port is taken (by instance a, whose DATA_DIR and server this one shares).
    const portTaken = await start(dataDirs[0], { PORT: String(a.port) });
    // EMBEDDED_PG_PORT names a port another program (instance a's PostgreSQL) listens on.
    const pgPortTaken = await start(dataDirs[2], { EMBEDDED_PG_PORT: pgPort });
    expect(await Promise.all([portTaken.exited, pgPortTaken.exited])).toEqual([1, 1]);
    expect(portTaken.output()).toContain(`Start-up failed: Port ${a.port} on 127.0.0.1 is already in use. Stop what listens there, or set PORT to a free port.`);
    expect(pgPortTaken.output()).toContain(`Start-up failed: EMBEDDED_PG_PORT ${pgPort} is in use by another program. Set EMBEDDED_PG_PORT to a free port`);
    for (const failed of [portTaken, pgPortTaken]) expect(failed.output()).not.toContain('undefined');
    expect((await fetch(`${a.url}/v1/ready`)).status).toBe(200);
  });

  it('takes over the server a killed instance left running, and stops cleanly on Ctrl-C', async () => {
    const [a, b] = services;
    a.child.kill('SIGKILL');
    await a.exited;
    const orphan = postmasterPid(clusterOf(dataDirs[0])!);
    expect(orphan !== null && isAlive(orphan)).toBe(true);

    const again = await start(dataDirs[0]);
    await waitUntilReady(again);
    expect(again.output()).toContain('Reusing the embedded PostgreSQL already running');

    // Ctrl-C reaches the whole process group; PostgreSQL, in its own session, is stopped by the service after its connections close.
    for (const service of [again, b]) service.interrupt();
    expect(await Promise.all([again.exited, b.exited])).toEqual([0, 0]);
    for (const service of [again, b]) expect(service.output()).not.toMatch(/\bERROR\b/);
    for (const dir of dataDirs.slice(0, 2)) expect(postmasterPid(clusterOf(dir)!)).toBeNull(); // shut down: no pid file
  });
});

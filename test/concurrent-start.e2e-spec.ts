import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { PROJECT_ROOT } from '../src/config/paths';
import { MIGRATIONS } from '../src/data-source-options';
import { freePort, ServiceProcess, startService, waitUntilReady } from './helpers/service-process';
import { createDatabase, dropDatabase } from './helpers/test-app';

/**
 * Several api instances (replicas of one Deployment, say) starting at the same moment on a fresh
 * database: one migrates while the others wait on its lock, and every one of them starts.
 */
describe('several instances starting at once on a fresh database', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-concurrent-'));
  const services: ServiceProcess[] = [];
  let databaseUrl: string;

  afterAll(async () => {
    for (const service of services) if (service.child.exitCode === null) service.interrupt();
    await Promise.all(services.map((service) => service.exited));
    if (databaseUrl) await dropDatabase(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('migrates once and all of them become ready', async () => {
    databaseUrl = await createDatabase({ empty: true });
    const ports = [await freePort(), await freePort(), await freePort()];
    for (const [index, port] of ports.entries()) {
      services.push(startService(PROJECT_ROOT, { DATABASE_URL: databaseUrl, DATA_DIR: path.join(dataDir, `api-${index}`), PORT: String(port) }, 'api'));
    }
    await Promise.all(services.map((service) => waitUntilReady(service)));

    const outputs = services.map((service) => service.output());
    expect(outputs.filter((text) => /Applied \d+ migration\(s\)/.test(text))).toHaveLength(1);
    for (const text of outputs) expect(text).not.toMatch(/ERROR|already exists|duplicate key/);
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ name: string }>('SELECT name FROM migrations ORDER BY id');
      expect(rows.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
    } finally {
      await db.end();
    }

    for (const service of services) service.interrupt();
    expect(await Promise.all(services.map((service) => service.exited))).toEqual([0, 0, 0]);
  });
});

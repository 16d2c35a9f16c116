import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import request from 'supertest';
import { createApp, RunningApp } from '../src/bootstrap';
import { loadConfig } from '../src/config/app-config';
import { observeResponses } from './helpers/openapi-contract';

/**
 * The zero-configuration start: no DATABASE_URL, so the service initialises and runs its own
 * PostgreSQL under DATA_DIR, keeps the data across restarts, and a second process reuses it.
 */
describe('start with no configuration (embedded PostgreSQL)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-embedded-'));
  const config = loadConfig({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: '54349', LOG_LEVEL: 'error', HOST: '127.0.0.1', PORT: '0' });
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
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('initialises a cluster, keeps data across a restart, and shares it with a second process', async () => {
    const first = await boot();
    expect(first.running.databaseUrl).toMatch(/^postgres:\/\/postgres:.+@127\.0\.0\.1:54349\/app$/);
    await first.http.get('/v1/ready').expect(200);
    const signup = await first.http.post('/v1/signup').send({ workspace_name: 'Local', email: 'local@example.com' }).expect(201);

    // A second process (e.g. `npm start -- worker` beside `npm start -- api`) reuses the server.
    const second = await boot();
    const gated = await second.http.get('/v1/workspace').set('Authorization', `Bearer ${signup.body.api_key.key}`);
    expect(gated.body.error.code).toBe('email_not_verified');
    await second.running.close();
    started.pop();
    await first.http.get('/v1/ready').expect(200); // closing the second left the server running

    await first.running.close();
    started.pop();
    const restarted = await boot();
    const again = await restarted.http.get('/v1/workspace').set('Authorization', `Bearer ${signup.body.api_key.key}`);
    expect(again.status).toBe(403); // the workspace survived the restart
  });
});

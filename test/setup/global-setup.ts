import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startEmbeddedPostgres } from '../../src/infra/database/embedded-postgres';

/**
 * Tests run against a real PostgreSQL: DATABASE_URL when set (CI and this machine), otherwise the
 * service's own embedded server in a temporary folder, so the suite also runs on a bare machine.
 * Each test file then creates its own database on that server (test/helpers/test-app.ts).
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) return;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vrs-test-pg-'));
  const db = await startEmbeddedPostgres(dataDir, null);
  process.env.DATABASE_URL = db.url;
  (globalThis as { __embeddedPg?: { db: typeof db; dataDir: string } }).__embeddedPg = { db, dataDir };
}

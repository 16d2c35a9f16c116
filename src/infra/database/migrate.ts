import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../data-source-options';

/** Held while one instance migrates; instances starting beside it wait, then find nothing left to do. */
const MIGRATION_LOCK = 'video-render-service:migrations';

/**
 * Runs the pending migrations, one instance at a time. TypeORM's own `migrationsRun` takes no lock:
 * several instances starting on a fresh database would all create the same tables and all but one
 * fail. The lock is PostgreSQL's (a session advisory lock), so it holds across machines.
 */
export async function runMigrationsOnce(databaseUrl: string): Promise<void> {
  // Two connections: one holds the lock, the other is the one TypeORM migrates on.
  const dataSource = new DataSource({ ...dataSourceOptions(databaseUrl), migrationsRun: false, extra: { max: 2 } });
  await dataSource.initialize();
  const lock = dataSource.createQueryRunner();
  try {
    await lock.connect();
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', [MIGRATION_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'all' });
    if (applied.length > 0) new Logger('Migrations').log(`Applied ${applied.length} migration(s), the last ${applied[applied.length - 1].name}`);
  } finally {
    await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.release();
    await dataSource.destroy();
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a job may cost and where it waits: the quota seconds it holds while unfinished, the run time
 * its size allows, and its queue entry (so a cancel removes it from the queue at once).
 */
export class JobCosts1763787600000 implements MigrationInterface {
  name = 'JobCosts1763787600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs ADD COLUMN reserved_seconds double precision NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE jobs ADD COLUMN run_limit_seconds integer`);
    await q.query(`ALTER TABLE jobs ADD COLUMN queue_name text`);
    await q.query(`ALTER TABLE jobs ADD COLUMN queue_entry_id uuid`);
    await q.query(`CREATE INDEX jobs_unfinished_idx ON jobs (workspace_id, kind) WHERE status IN ('ingesting', 'queued', 'processing')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX jobs_unfinished_idx`);
    await q.query(`ALTER TABLE jobs DROP COLUMN queue_entry_id, DROP COLUMN queue_name, DROP COLUMN run_limit_seconds, DROP COLUMN reserved_seconds`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Identical rows of one batch render once: a row whose request equals an earlier row's waits for
 * that row (`reuse_of`, no queue entry) and ends with its outcome (docs/decisions/0130).
 */
export class BatchRowReuse1764252000000 implements MigrationInterface {
  name = 'BatchRowReuse1764252000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs ADD COLUMN reuse_of text`);
    await q.query(`CREATE INDEX jobs_reuse_of ON jobs (reuse_of) WHERE reuse_of IS NOT NULL`);
    // Retention finds every job sharing one stored file.
    await q.query(`CREATE INDEX jobs_output_key ON jobs (output_key) WHERE output_key IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX jobs_output_key`);
    await q.query(`DROP INDEX jobs_reuse_of`);
    await q.query(`ALTER TABLE jobs DROP COLUMN reuse_of`);
  }
}

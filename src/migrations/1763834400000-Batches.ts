import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Batches of project renders (one job per row) and reuse of identical renders: a job names its
 * batch and row, and keeps a hash of its canonical resolved request to find an earlier identical one.
 */
export class Batches1763834400000 implements MigrationInterface {
  name = 'Batches1763834400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE batches (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        project_id text NOT NULL,
        project_version integer NOT NULL,
        row_count integer NOT NULL,
        output_filename text,
        metadata jsonb NOT NULL DEFAULT '{}',
        webhook_url text,
        cancelled_at timestamptz,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX batches_workspace_id ON batches (workspace_id, id DESC)`);
    await q.query(`ALTER TABLE jobs ADD COLUMN batch_id text, ADD COLUMN batch_row integer, ADD COLUMN request_hash text`);
    await q.query(`CREATE INDEX jobs_batch ON jobs (batch_id, batch_row) WHERE batch_id IS NOT NULL`);
    await q.query(`CREATE INDEX jobs_reusable ON jobs (workspace_id, request_hash) WHERE request_hash IS NOT NULL AND status = 'completed'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX jobs_reusable`);
    await q.query(`DROP INDEX jobs_batch`);
    await q.query(`ALTER TABLE jobs DROP COLUMN batch_id, DROP COLUMN batch_row, DROP COLUMN request_hash`);
    await q.query(`DROP TABLE batches`);
  }
}

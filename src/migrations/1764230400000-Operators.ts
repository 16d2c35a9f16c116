import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an operator changes: a workspace's suspension, and the audit trail of every admin API
 * change (kept when the workspace is deleted, so no foreign key). Retention sweeps find expired
 * outputs and assets by their dates.
 */
export class Operators1764230400000 implements MigrationInterface {
  name = 'Operators1764230400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workspaces ADD COLUMN suspended_at timestamptz`);
    await q.query(`
      CREATE TABLE admin_audit (
        id text PRIMARY KEY,
        action text NOT NULL,
        workspace_id text,
        actor text NOT NULL,
        request_id text,
        before jsonb,
        after jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX admin_audit_workspace_idx ON admin_audit (workspace_id, created_at)`);
    await q.query(`CREATE INDEX jobs_stored_output_idx ON jobs (completed_at) WHERE output_key IS NOT NULL`);
    await q.query(`CREATE INDEX assets_created_idx ON assets (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX assets_created_idx`);
    await q.query(`DROP INDEX jobs_stored_output_idx`);
    await q.query(`DROP TABLE admin_audit`);
    await q.query(`ALTER TABLE workspaces DROP COLUMN suspended_at`);
  }
}

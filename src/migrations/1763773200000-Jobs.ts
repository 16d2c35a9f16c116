import { MigrationInterface, QueryRunner } from 'typeorm';

export class Jobs1763773200000 implements MigrationInterface {
  name = 'Jobs1763773200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE jobs (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('render', 'task')),
        task_type text,
        status text NOT NULL CHECK (status IN ('ingesting', 'queued', 'processing', 'completed', 'failed', 'cancelled')),
        is_preview boolean NOT NULL DEFAULT false,
        progress_percent integer NOT NULL DEFAULT 0 CHECK (progress_percent BETWEEN 0 AND 100),
        progress_stage text,
        request jsonb NOT NULL,
        output jsonb,
        result jsonb,
        error jsonb,
        metadata jsonb NOT NULL DEFAULT '{}',
        webhook_url text,
        project_id text,
        output_key text,
        output_seconds double precision,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        completed_at timestamptz
      )`);
    await q.query(`CREATE INDEX jobs_list_idx ON jobs (workspace_id, kind, id DESC)`);
    await q.query(`CREATE INDEX jobs_status_idx ON jobs (workspace_id, kind, status, id DESC)`);
    await q.query(
      `CREATE INDEX jobs_usage_idx ON jobs (workspace_id, completed_at) WHERE status = 'completed' AND NOT is_preview`,
    );
    await q.query(`
      CREATE TABLE idempotency_keys (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        scope text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        response_body jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, scope, key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE jobs`);
  }
}

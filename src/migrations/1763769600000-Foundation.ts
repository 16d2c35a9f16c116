import { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1763769600000 implements MigrationInterface {
  name = 'Foundation1763769600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspaces (
        id text PRIMARY KEY,
        name text NOT NULL,
        email text,
        email_verified_at timestamptz,
        oidc_issuer text,
        oidc_subject text,
        plan text NOT NULL DEFAULT 'free',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX workspaces_email_key ON workspaces (email) WHERE email IS NOT NULL`);
    await q.query(
      `CREATE UNIQUE INDEX workspaces_oidc_key ON workspaces (oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name text NOT NULL,
        prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id, id DESC)`);
    await q.query(`
      CREATE TABLE signup_codes (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        code_hash text NOT NULL,
        expires_at timestamptz NOT NULL,
        failed_attempts integer NOT NULL DEFAULT 0,
        consumed_at timestamptz,
        invalidated_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX signup_codes_workspace_idx ON signup_codes (workspace_id, created_at DESC)`);
    // Fixed-window counters shared by every API process (docs/decisions.md, Rate limits: never in one process's memory).
    await q.query(`
      CREATE UNLOGGED TABLE rate_limit_buckets (
        scope text NOT NULL,
        subject text NOT NULL,
        window_start timestamptz NOT NULL,
        hits integer NOT NULL,
        PRIMARY KEY (scope, subject, window_start)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limit_buckets`);
    await q.query(`DROP TABLE signup_codes`);
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE workspaces`);
  }
}

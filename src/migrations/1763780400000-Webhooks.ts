import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1763780400000 implements MigrationInterface {
  name = 'Webhooks1763780400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_signing_secrets (
        workspace_id text PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        rotated_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE webhooks (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhooks_workspace_idx ON webhooks (workspace_id, id DESC)`);
    await q.query(`
      CREATE TABLE events (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        type text NOT NULL,
        data json NOT NULL,
        job_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX events_workspace_idx ON events (workspace_id)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        event_id text NOT NULL REFERENCES events(id) ON DELETE CASCADE,
        webhook_id text REFERENCES webhooks(id) ON DELETE CASCADE,
        url text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        response_status integer,
        response_excerpt text,
        error text,
        next_attempt_at timestamptz,
        last_attempt_at timestamptz,
        attempt_token text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC) WHERE webhook_id IS NOT NULL`);
    await q.query(`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id)`);
    await q.query(`CREATE INDEX webhook_deliveries_workspace_idx ON webhook_deliveries (workspace_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE events`);
    await q.query(`DROP TABLE webhooks`);
    await q.query(`DROP TABLE webhook_signing_secrets`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

export class Media1763776800000 implements MigrationInterface {
  name = 'Media1763776800000';

  async up(q: QueryRunner): Promise<void> {
    // Whether renders copy external files into storage before rendering when a request omits
    // ingest_external (docs/architecture.md, "Media intake", says why it defaults to true).
    await q.query(`ALTER TABLE workspaces ADD COLUMN ingest_external boolean NOT NULL DEFAULT true`);
    await q.query(`
      CREATE TABLE assets (
        id text PRIMARY KEY,
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('video', 'audio', 'image')),
        status text NOT NULL CHECK (status IN ('reserved', 'probing', 'ingesting', 'present', 'unreadable')),
        ingested_from text,
        storage_key text NOT NULL UNIQUE,
        content_type text NOT NULL,
        name text NOT NULL,
        size_bytes bigint,
        duration double precision,
        width integer,
        height integer,
        video_codec text,
        audio_codec text,
        probe_error text,
        ingest_lease_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One stored copy per external URL per workspace; uploads (NULL) never conflict.
    await q.query(`CREATE UNIQUE INDEX assets_ingested_from_key ON assets (workspace_id, ingested_from)`);
    await q.query(`CREATE INDEX assets_list_idx ON assets (workspace_id, kind, id DESC)`);
    await q.query(`CREATE INDEX assets_workspace_idx ON assets (workspace_id, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE assets`);
    await q.query(`ALTER TABLE workspaces DROP COLUMN ingest_external`);
  }
}

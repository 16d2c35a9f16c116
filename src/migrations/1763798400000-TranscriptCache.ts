import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Transcripts of render sources (captions from speech), once per source URL per workspace and
 * engine: a second render of the same footage reuses the words instead of recognising them again.
 */
export class TranscriptCache1763798400000 implements MigrationInterface {
  name = 'TranscriptCache1763798400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE transcript_cache (
        workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        source_url text NOT NULL,
        engine text NOT NULL,
        transcript jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, source_url, engine)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE transcript_cache`);
  }
}

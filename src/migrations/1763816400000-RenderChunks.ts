import { MigrationInterface, QueryRunner } from 'typeorm';

/** The chunks of a render split across workers: one row per frame range, its state and its stored file. */
export class RenderChunks1763816400000 implements MigrationInterface {
  name = 'RenderChunks1763816400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE render_chunks (
        job_id text NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        index integer NOT NULL,
        first_frame integer NOT NULL,
        last_frame integer NOT NULL,
        state text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        output_key text,
        error jsonb,
        render_seconds double precision,
        heartbeat_at timestamptz,
        started_at timestamptz,
        finished_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (job_id, index),
        CHECK (state IN ('pending', 'processing', 'done', 'failed', 'cancelled'))
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE render_chunks`);
  }
}

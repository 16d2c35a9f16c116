import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Worker processes alive now (each beats on its row), so a render is split only when another
 * worker can take chunks; and which worker drew each chunk.
 */
export class Workers1764316800000 implements MigrationInterface {
  name = 'Workers1764316800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workers (
        id text PRIMARY KEY,
        hostname text NOT NULL,
        pid integer NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`ALTER TABLE render_chunks ADD COLUMN worker_id text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE render_chunks DROP COLUMN worker_id`);
    await q.query(`DROP TABLE workers`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** What a preview job draws (frame, clip or contact sheet); null on full renders and tasks. */
export class Previews1763791200000 implements MigrationInterface {
  name = 'Previews1763791200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs ADD COLUMN preview jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs DROP COLUMN preview`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** How a job was carried out (for renders: the render path, frames drawn against frames output). */
export class JobDiagnostics1763805600000 implements MigrationInterface {
  name = 'JobDiagnostics1763805600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs ADD COLUMN diagnostics jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE jobs DROP COLUMN diagnostics`);
  }
}

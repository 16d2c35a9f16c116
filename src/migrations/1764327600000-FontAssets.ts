import { MigrationInterface, QueryRunner } from 'typeorm';

/** Uploaded font files are assets of kind `font`; the family named inside the file is kept beside them. */
export class FontAssets1764327600000 implements MigrationInterface {
  name = 'FontAssets1764327600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE assets DROP CONSTRAINT assets_kind_check`);
    await q.query(`ALTER TABLE assets ADD CONSTRAINT assets_kind_check CHECK (kind IN ('video', 'audio', 'image', 'font'))`);
    await q.query(`ALTER TABLE assets ADD COLUMN font_family text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM assets WHERE kind = 'font'`);
    await q.query(`ALTER TABLE assets DROP COLUMN font_family`);
    await q.query(`ALTER TABLE assets DROP CONSTRAINT assets_kind_check`);
    await q.query(`ALTER TABLE assets ADD CONSTRAINT assets_kind_check CHECK (kind IN ('video', 'audio', 'image'))`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** Why an asset is `unreadable`: null is the probe's `codec_unsupported`; `source_too_large` when its bytes landed above the upload limit. */
export class AssetErrorCode1764324000000 implements MigrationInterface {
  name = 'AssetErrorCode1764324000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE assets ADD COLUMN error_code text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE assets DROP COLUMN error_code`);
  }
}

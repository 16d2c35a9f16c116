import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Font files kept in storage (Google Fonts families, custom files by content hash), with their size
 * and last use, so the cache can be held under FONT_CACHE_MAX_BYTES least recently used first.
 */
export class FontCache1764320400000 implements MigrationInterface {
  name = 'FontCache1764320400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE font_cache (
        key text PRIMARY KEY,
        family text NOT NULL,
        bytes bigint NOT NULL,
        last_used_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX font_cache_last_used_idx ON font_cache (last_used_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE font_cache`);
  }
}

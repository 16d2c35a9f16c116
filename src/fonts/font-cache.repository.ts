import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** A font kept in storage: `catalogue/<id>` (a whole family's folder) or `custom/<sha256>.<ext>`. */
export interface FontCacheEntry {
  key: string;
  family: string;
  bytes: number;
}

/**
 * The `font_cache` table: what is kept in storage, its size and last use. Eviction candidates are
 * the least recently used first, never a catalogue family that a job still to draw (ingesting,
 * queued or processing) names in a `font_family`.
 */
@Injectable()
export class FontCacheRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async touch(entry: FontCacheEntry): Promise<void> {
    await this.db.query(
      `INSERT INTO font_cache (key, family, bytes, last_used_at) VALUES ($1, $2, $3, clock_timestamp())
       ON CONFLICT (key) DO UPDATE SET bytes = EXCLUDED.bytes, last_used_at = clock_timestamp()`,
      [entry.key, entry.family, entry.bytes],
    );
  }

  async totalBytes(): Promise<number> {
    const [row] = await this.db.query(`SELECT COALESCE(SUM(bytes), 0)::bigint AS total FROM font_cache`);
    return Number(row.total);
  }

  /** Entries that may go, oldest use first. */
  async evictable(limit: number): Promise<FontCacheEntry[]> {
    const rows: { key: string; family: string; bytes: string }[] = await this.db.query(
      `SELECT f.key, f.family, f.bytes FROM font_cache f
       WHERE NOT (f.key LIKE 'catalogue/%' AND EXISTS (
         SELECT 1 FROM jobs j WHERE j.status IN ('ingesting', 'queued', 'processing')
           AND jsonb_path_exists(j.request, '$.elements[*] ? (@.font_family == $f)', jsonb_build_object('f', f.family))))
       ORDER BY f.last_used_at ASC LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({ key: row.key, family: row.family, bytes: Number(row.bytes) }));
  }

  async remove(key: string): Promise<void> {
    await this.db.query(`DELETE FROM font_cache WHERE key = $1`, [key]);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The `rate_limit_buckets` table: fixed-window counters keyed by scope, hashed subject and window start. */
@Injectable()
export class RateLimitRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Counts one hit in the window and returns the window's hits so far. */
  async hit(scope: string, subjectDigest: string, windowStart: Date): Promise<number> {
    const rows: { hits: number }[] = await this.db.query(
      `INSERT INTO rate_limit_buckets (scope, subject, window_start, hits) VALUES ($1, $2, $3, 1)
       ON CONFLICT (scope, subject, window_start) DO UPDATE SET hits = rate_limit_buckets.hits + 1
       RETURNING hits`,
      [scope, subjectDigest, windowStart],
    );
    return rows[0].hits;
  }

  async deleteWindowsBefore(before: Date): Promise<void> {
    await this.db.query(`DELETE FROM rate_limit_buckets WHERE window_start < $1`, [before]);
  }
}

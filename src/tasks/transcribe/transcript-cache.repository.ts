import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Transcript } from './transcript';

export interface TranscriptKey {
  workspaceId: string;
  /** As written in the request. */
  sourceUrl: string;
  engine: string;
}

/** The `transcript_cache` table: one transcript per workspace, source URL and engine. */
@Injectable()
export class TranscriptCacheRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async find(key: TranscriptKey): Promise<Transcript | null> {
    const rows: { transcript: Transcript }[] = await this.db.query(
      `SELECT transcript FROM transcript_cache WHERE workspace_id = $1 AND source_url = $2 AND engine = $3`,
      [key.workspaceId, key.sourceUrl, key.engine],
    );
    return rows[0]?.transcript ?? null;
  }

  async save(key: TranscriptKey, transcript: Transcript): Promise<void> {
    await this.db.query(
      `INSERT INTO transcript_cache (workspace_id, source_url, engine, transcript) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, source_url, engine) DO UPDATE SET transcript = EXCLUDED.transcript, created_at = now()`,
      [key.workspaceId, key.sourceUrl, key.engine, JSON.stringify(transcript)],
    );
  }

  /**
   * Runs `work` holding the session advisory lock of this key on a connection of its own, so
   * concurrent renders of one source recognise it once (a transaction would hold a connection
   * and a snapshot through the whole recognition).
   */
  async whileLocked<T>(key: TranscriptKey, work: () => Promise<T>): Promise<T> {
    const lockKey = `transcript:${key.workspaceId}:${key.engine}:${key.sourceUrl}`;
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey]);
      return await work();
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey]).catch(() => undefined);
      await runner.release();
    }
  }
}

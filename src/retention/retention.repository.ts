import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Unfinished jobs of the row's workspace whose request names `$ref` (an asset id, a URL or a storage key). */
const REFERENCED = (workspace: string, ref: string) => `EXISTS (
  SELECT 1 FROM jobs u WHERE u.workspace_id = ${workspace} AND u.status IN ('ingesting', 'queued', 'processing')
    AND strpos(u.request::text, ${ref}) > 0)`;

export interface ExpiredOutput {
  id: string;
  workspace_id: string;
  output_key: string;
}

export interface ExpiredAsset {
  id: string;
  storage_key: string;
  ingested_from: string | null;
}

/**
 * The retention sweep's SQL. Each release (marking an output expired, deleting an asset row) checks
 * in the same statement that no queued or running job of the workspace names the file, so a file
 * a job still needs is kept until a later sweep.
 */
@Injectable()
export class RetentionRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Runs `work` holding the session advisory lock `name` on one connection, or returns null at once
   * when another session (on this or another instance) holds it.
   */
  async withSessionLock<T>(name: string, work: () => Promise<T>): Promise<T | null> {
    const session = this.db.createQueryRunner();
    await session.connect();
    try {
      const [{ locked }]: { locked: boolean }[] = await session.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [name]);
      if (!locked) return null;
      try {
        return await work();
      } finally {
        await session.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
      }
    } finally {
      await session.release();
    }
  }

  /** Completed renders whose stored output is older than `days`, after `afterId` (keyset pages). */
  async expiredOutputs(days: number, afterId: string, limit: number): Promise<ExpiredOutput[]> {
    return this.db.query(
      `SELECT id, workspace_id, output_key FROM jobs
       WHERE kind = 'render' AND status = 'completed' AND output_key IS NOT NULL
         AND completed_at < now() - make_interval(days => $1) AND id > $2
       ORDER BY id LIMIT $3`,
      [days, afterId, limit],
    );
  }

  /**
   * Expires one stored file and every render sharing it (a reused render hands out the earlier
   * render's file): the file lives as long as its youngest render, so nothing is marked while a
   * sharer is younger than `days` ('young'), nor while a queued or running job names it ('in_use').
   * Every sharer is locked first, so a submit reusing the file (RenderReuseService.findEarlier holds its
   * row FOR SHARE until it commits) either commits before the check, which then sees the new
   * render, or waits and finds the file expired. Returns the renders marked.
   */
  async expireSharedOutput(workspaceId: string, outputKey: string, days: number): Promise<{ expired: number; kept?: 'young' | 'in_use' }> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT id FROM jobs WHERE output_key = $1 FOR UPDATE`, [outputKey]);
      // A new statement, so a new snapshot: renders that reused the file while the lock was awaited count.
      const [{ young }]: { young: number }[] = await tx.query(
        `SELECT count(*)::int AS young FROM jobs WHERE output_key = $1 AND completed_at >= now() - make_interval(days => $2)`,
        [outputKey, days],
      );
      if (young > 0) return { expired: 0, kept: 'young' as const };
      const [rows]: [unknown[], number] = await tx.query(
        `UPDATE jobs j SET output = COALESCE(j.output, '{}'::jsonb) || jsonb_build_object('url', NULL, 'expired_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
                output_key = NULL, updated_at = now()
         WHERE j.output_key = $2 AND NOT ${REFERENCED('$1', '$2')}
         RETURNING j.id`,
        [workspaceId, outputKey],
      );
      return rows.length > 0 ? { expired: rows.length } : { expired: 0, kept: 'in_use' as const };
    });
  }

  /** Stored assets older than `days`, after `afterId`; slots and copies in progress are left to their own sweeps. */
  async expiredAssets(days: number, afterId: string, limit: number): Promise<ExpiredAsset[]> {
    return this.db.query(
      `SELECT id, storage_key, ingested_from FROM assets
       WHERE status IN ('present', 'unreadable') AND created_at < now() - make_interval(days => $1) AND id > $2
       ORDER BY id LIMIT $3`,
      [days, afterId, limit],
    );
  }

  /** Deletes the asset's row unless a queued or running job names it (by id, or by the URL it is a copy of). */
  async deleteAsset(asset: ExpiredAsset): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.db.query(
      `DELETE FROM assets a WHERE a.id = $1
         AND NOT ${REFERENCED('a.workspace_id', 'a.id')}
         AND NOT (a.ingested_from IS NOT NULL AND ${REFERENCED('a.workspace_id', 'a.ingested_from')})
       RETURNING a.id`,
      [asset.id],
    );
    return rows.length > 0;
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { UsagePeriod } from '../workspaces/usage-period';

/** What a monthly allowance counts: render output, or transcribed audio. */
export type Allowance = 'render' | 'transcribe';

export interface CountedSecondsQuery {
  allowance: Allowance;
  workspaceId: string;
  period: UsagePeriod;
  /** A job left out of the count (the one being confirmed). */
  exceptJobId?: string;
  /** Of the unfinished jobs, count only those a worker has taken. */
  startedOnly?: boolean;
}

/**
 * The quota's reads of `jobs` and `transcript_cache`: the seconds a month has spent and holds, and
 * the per-workspace lock under which a submit reserves or a worker confirms them.
 */
@Injectable()
export class QuotaRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Two checks of one workspace's allowance cannot interleave: the second waits for the first's commit. */
  async lock(tx: EntityManager, allowance: Allowance, workspaceId: string): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`quota:${allowance}:${workspaceId}`]);
  }

  /** Completed seconds in the period plus what unfinished jobs hold. */
  async countedSeconds(query: CountedSecondsQuery, manager: EntityManager = this.db.manager): Promise<number> {
    const { allowance, workspaceId, period, exceptJobId = '', startedOnly = false } = query;
    const held = startedOnly ? `('processing')` : allowance === 'render' ? `('ingesting', 'queued', 'processing')` : `('queued', 'processing')`;
    const [row]: { seconds: number }[] = await manager.query(
      allowance === 'render'
        ? `SELECT COALESCE(SUM(CASE WHEN status = 'completed' THEN output_seconds ELSE reserved_seconds END), 0)::float8 AS seconds
           FROM jobs WHERE workspace_id = $1 AND kind = 'render' AND NOT is_preview AND id <> $4 AND (
             (status = 'completed' AND completed_at >= $2 AND completed_at < $3) OR status IN ${held})`
        : // Transcribe tasks, plus the speech renders recognised for captions (transcript_cache).
          `SELECT (SELECT COALESCE(SUM(reserved_seconds), 0)::float8
             FROM jobs WHERE workspace_id = $1 AND kind = 'task' AND task_type = 'transcribe' AND id <> $4 AND (
               (status = 'completed' AND completed_at >= $2 AND completed_at < $3) OR status IN ${held}))
           + (SELECT COALESCE(SUM((transcript->>'duration')::float8), 0)::float8
             FROM transcript_cache WHERE workspace_id = $1 AND created_at >= $2 AND created_at < $3) AS seconds`,
      [workspaceId, period.start, period.end, exceptJobId],
    );
    return row.seconds ?? 0;
  }
}

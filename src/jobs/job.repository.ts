import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsWhere, LessThan, MoreThan } from 'typeorm';
import { rowsAffected } from '../common/rows-affected';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Job, JobError, JobKind, JobOutput, JobStatus, ProgressStage } from './job.entity';

/** The fields a submit chooses; the rest start at their defaults. */
export type NewJob = Pick<Job, 'id' | 'workspaceId' | 'kind' | 'taskType' | 'status' | 'isPreview' | 'request' | 'metadata' | 'webhookUrl' | 'projectId' | 'queueName'> &
  Partial<Pick<Job, 'projectVersion' | 'batchId' | 'batchRow' | 'requestHash'>> &
  Partial<Pick<Job, 'reservedSeconds' | 'runLimitSeconds' | 'preview'>> &
  // A reused render is created completed, with the earlier render's output.
  Partial<Pick<Job, 'output' | 'outputKey' | 'outputSeconds' | 'progressPercent' | 'startedAt' | 'completedAt'>>;

/** What a finished job stores: an artifact (renders) or a result (tasks). */
export interface JobCompletion {
  output?: Omit<JobOutput, 'url'>;
  outputKey?: string;
  outputSeconds?: number;
  result?: object;
  /** How the work was carried out, kept on the row for operators and benchmarks. */
  diagnostics?: object;
}

/** Statuses a job can still leave; `completed`, `failed` and `cancelled` are final. */
const UNFINISHED: JobStatus[] = ['ingesting', 'queued', 'processing'];

/**
 * The `jobs` table: every read and every status change of a job goes through here. Each
 * transition is one UPDATE guarded by the statuses it may start from, so two processes racing
 * (a cancel and a worker finishing, two workers after a lease takeover) cannot both win; the
 * methods say whether theirs took effect.
 *
 *   ingesting ─release─▶ queued ─markProcessing─▶ processing ─complete─▶ completed
 *       │                  │                         │  └────fail──────▶ failed
 *       └──failIngest──────┴────────cancel───────────┴────────────────▶ cancelled
 */
/** The channel a job's end is notified on (payload: the job id); JobWakeups listens. */
export const JOB_FINISHED_CHANNEL = 'job_finished';

@Injectable()
export class JobRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(tx: EntityManager, job: NewJob): Promise<Job> {
    // jsonb columns typed as records trip TypeORM's deep-partial typing; the entity is complete.
    await tx.insert(Job, tx.create(Job, job) as QueryDeepPartialEntity<Job>);
    return tx.findOneByOrFail(Job, { id: job.id });
  }

  findById(id: string, manager: EntityManager = this.db.manager): Promise<Job | null> {
    return manager.findOneBy(Job, { id });
  }

  /** A job of one workspace (another workspace's id finds nothing). */
  findInWorkspace(workspaceId: string, kind: JobKind, id: string): Promise<Job | null> {
    return this.db.getRepository(Job).findOneBy({ id, workspaceId, kind });
  }

  /** Newest first, `limit + 1` rows (the page builder cuts the extra one). */
  list(workspaceId: string, kind: JobKind, filters: FindOptionsWhere<Job>, limit: number, before?: string): Promise<Job[]> {
    return this.db.getRepository(Job).find({
      where: { ...filters, workspaceId, kind, ...(before ? { id: LessThan(before) } : {}) },
      order: { id: 'DESC' },
      take: limit + 1,
    });
  }

  /**
   * A batch's renders in row order (their ids were made in row order), after id `after`;
   * with `page`, `limit + 1` rows (the page builder cuts the extra one).
   */
  listBatchRows(batchId: string, status?: JobStatus, page?: { limit: number; after?: string }): Promise<Job[]> {
    return this.db.getRepository(Job).find({
      where: { batchId, ...(status ? { status } : {}), ...(page?.after ? { id: MoreThan(page.after) } : {}) },
      order: { id: 'ASC' },
      ...(page ? { take: page.limit + 1 } : {}),
    });
  }

  /** A batch's renders in these statuses, locked for a change decided in the caller's transaction. */
  lockBatchRows(tx: EntityManager, batchId: string, statuses: JobStatus[]): Promise<Job[]> {
    return tx
      .getRepository(Job)
      .createQueryBuilder('j')
      .setLock('pessimistic_write')
      .where('j.batchId = :batchId AND j.status IN (:...statuses)', { batchId, statuses })
      .orderBy('j.batchRow')
      .getMany();
  }

  /** Locks a workspace's job for a change decided in the caller's transaction. */
  lockInWorkspace(tx: EntityManager, workspaceId: string, kind: JobKind, id: string): Promise<Job | null> {
    return tx
      .getRepository(Job)
      .createQueryBuilder('j')
      .setLock('pessimistic_write')
      .where('j.id = :id AND j.workspaceId = :ws AND j.kind = :kind', { id, ws: workspaceId, kind })
      .getOne();
  }

  /** How many unfinished jobs of this kind the workspace has besides `exceptId` (fair queueing). */
  async countUnfinished(tx: EntityManager, job: Pick<Job, 'workspaceId' | 'kind' | 'isPreview' | 'id'>): Promise<number> {
    const [{ count }]: { count: number }[] = await tx.query(
      `SELECT count(*)::int AS count FROM jobs
       WHERE workspace_id = $1 AND kind = $2 AND is_preview = $3 AND id <> $4 AND status = ANY($5)`,
      [job.workspaceId, job.kind, job.isPreview, job.id, UNFINISHED],
    );
    return count;
  }

  async setQueueEntry(tx: EntityManager, id: string, entryId: string): Promise<void> {
    await tx.update(Job, { id }, { queueEntryId: entryId });
  }

  async setReservedSeconds(tx: EntityManager, id: string, seconds: number): Promise<void> {
    await tx.update(Job, { id }, { reservedSeconds: seconds });
  }

  /** ingesting → queued, once its files are copied. False when it was cancelled meanwhile. */
  async release(tx: EntityManager, id: string): Promise<boolean> {
    return rowsAffected(await tx.query(`UPDATE jobs SET status = 'queued', updated_at = now() WHERE id = $1 AND status = 'ingesting'`, [id]));
  }

  /** ingesting → failed (a copy failed). */
  async failIngest(id: string, error: JobError): Promise<boolean> {
    return rowsAffected(
      await this.db.query(
        `UPDATE jobs SET status = 'failed', error = $2, completed_at = now(), updated_at = now() WHERE id = $1 AND status = 'ingesting'`,
        [id, JSON.stringify(error)],
      ),
    );
  }

  /**
   * queued → processing, or a processing job claimed again after a crash (its lease ran out).
   * Null when the job was cancelled or has ended.
   */
  async markProcessing(id: string): Promise<Job | null> {
    const claimed = rowsAffected(
      await this.db.query(
        `UPDATE jobs SET status = 'processing', started_at = COALESCE(started_at, now()), attempts = attempts + 1,
           progress_percent = 0, progress_stage = 'downloading', updated_at = CASE WHEN status = 'queued' THEN now() ELSE updated_at END
         WHERE id = $1 AND status IN ('queued', 'processing')`,
        [id],
      ),
    );
    return claimed ? this.findById(id) : null;
  }

  /** Handed back to the queue at a shutdown: the claim's attempt is not counted; it stays processing, from 0 %, until claimed again. */
  async handBack(id: string): Promise<void> {
    await this.db.query(`UPDATE jobs SET attempts = GREATEST(attempts - 1, 0), progress_percent = 0 WHERE id = $1 AND status = 'processing'`, [id]);
  }

  /** processing → completed. False when the job was cancelled while finishing. */
  async complete(id: string, done: JobCompletion): Promise<boolean> {
    return this.notifiedIf(id, rowsAffected(
      await this.db.query(
        `UPDATE jobs SET status = 'completed', output = $2, output_key = $3, output_seconds = $4, result = $5,
           diagnostics = $6, progress_percent = 100, progress_stage = NULL, completed_at = now(), updated_at = now()
         WHERE id = $1 AND status = 'processing'`,
        [
          id,
          done.output ? JSON.stringify(done.output) : null,
          done.outputKey ?? null,
          done.outputSeconds ?? null,
          done.result ? JSON.stringify(done.result) : null,
          done.diagnostics ? JSON.stringify(done.diagnostics) : null,
        ],
      ),
    ));
  }

  /** queued or processing → failed; a cancelled job stays cancelled. (`queued`: every claim itself failed.) */
  async fail(id: string, error: JobError): Promise<boolean> {
    return this.notifiedIf(id, rowsAffected(
      await this.db.query(
        `UPDATE jobs SET status = 'failed', error = $2, progress_stage = NULL, completed_at = now(), updated_at = now()
         WHERE id = $1 AND status IN ('queued', 'processing')`,
        [id, JSON.stringify(error)],
      ),
    ));
  }

  /** Tells the API processes' event streams that the job has ended (JobWakeups), when it has. */
  private async notifiedIf(id: string, ended: boolean): Promise<boolean> {
    if (ended) await this.db.query('SELECT pg_notify($1, $2)', [JOB_FINISHED_CHANNEL, id]);
    return ended;
  }

  /** Any unfinished status → cancelled, in the caller's transaction. */
  async cancel(tx: EntityManager, id: string): Promise<boolean> {
    return rowsAffected(
      await tx.query(
        `UPDATE jobs SET status = 'cancelled', progress_stage = NULL, completed_at = now(), updated_at = now()
         WHERE id = $1 AND status = ANY($2)`,
        [id, UNFINISHED],
      ),
    );
  }

  /**
   * The workspace's jobs no worker has started yet (ingesting, queued) → cancelled with `error`,
   * in the caller's transaction; returns them so their queue entries can be taken off too.
   */
  async cancelWaiting(tx: EntityManager, workspaceId: string, error: JobError): Promise<Pick<Job, 'id' | 'queueName' | 'queueEntryId'>[]> {
    const [rows]: [{ id: string; queue_name: string | null; queue_entry_id: string | null }[], number] = await tx.query(
      `UPDATE jobs SET status = 'cancelled', error = $2, progress_stage = NULL, completed_at = now(), updated_at = now()
       WHERE workspace_id = $1 AND status IN ('ingesting', 'queued')
       RETURNING id, queue_name, queue_entry_id`,
      [workspaceId, JSON.stringify(error)],
    );
    return rows.map((row) => ({ id: row.id, queueName: row.queue_name, queueEntryId: row.queue_entry_id }));
  }

  /** Progress of a processing job; false once it is no longer processing (cancelled). */
  async writeProgress(id: string, stage: ProgressStage | null, percent: number): Promise<boolean> {
    return rowsAffected(
      await this.db.query(
        `UPDATE jobs SET progress_stage = $2, progress_percent = GREATEST(progress_percent, $3) WHERE id = $1 AND status = 'processing'`,
        [id, stage, Math.min(99, percent)],
      ),
    );
  }

  async hasStatus(id: string, status: JobStatus): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM jobs WHERE id = $1 AND status = $2`, [id, status]);
    return rows.length > 0;
  }
}

import { Injectable, Optional } from '@nestjs/common';
import { insertRow } from '../infra/database/insert-row';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsWhere, In, LessThan, MoreThan, QueryRunner } from 'typeorm';
import { rowsAffected } from '../common/rows-affected';
import { JobReadCache } from './job-read-cache';
import { Job, JobError, JobKind, JobOutput, JobStatus, ProgressStage } from './job.entity';

/** The fields a submit chooses; the rest start at their defaults. */
export type NewJob = Pick<Job, 'id' | 'workspaceId' | 'kind' | 'taskType' | 'status' | 'isPreview' | 'request' | 'metadata' | 'webhookUrl' | 'projectId' | 'queueName'> &
  Partial<Pick<Job, 'projectVersion' | 'batchId' | 'batchRow' | 'requestHash' | 'reuseOf'>> &
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
/** The channel a job's end is notified on (payload: the job id); JobChangeListener listens, for JobWakeupsService. */
export const JOB_FINISHED_CHANNEL = 'job_finished';

/**
 * After `ended` (a CTE of the one job that just ended, RETURNING *), the rows waiting on it
 * (`reuse_of`: identical rows of its batch) end with it in the same statement: completed with its
 * output (`reused_from`, no render minutes) or failed with its error. Then every ended id is notified.
 */
const FOLLOWERS_COMPLETE = `followers AS (
    UPDATE jobs f SET status = 'completed', output = ended.output || jsonb_build_object('reused_from', ended.id), output_key = ended.output_key,
      output_seconds = 0, reserved_seconds = 0, progress_percent = 100, progress_stage = NULL,
      started_at = now(), completed_at = now(), updated_at = now()
    FROM ended WHERE f.reuse_of = ended.id AND f.status = 'queued' RETURNING f.id)`;
const FOLLOWERS_FAIL = `followers AS (
    UPDATE jobs f SET status = 'failed', progress_stage = NULL, completed_at = now(), updated_at = now(),
      error = jsonb_set(ended.error, '{message}', to_jsonb('Row ' || ended.batch_row || ' of this batch, identical to this one, failed: ' || (ended.error->>'message')))
    FROM ended WHERE f.reuse_of = ended.id AND f.status = 'queued' RETURNING f.id)`;
const NOTIFY_ENDED = `SELECT count(pg_notify('${JOB_FINISHED_CHANNEL}', id))::int AS ended,
    (SELECT count(*) FROM ended)::int AS own FROM (SELECT id FROM ended UNION ALL SELECT id FROM followers) AS everyone`;

/** The channel the `jobs_changed` trigger notifies every updated or deleted job on (payload: its id); JobChangeListener listens. */
export const JOB_CHANGED_CHANNEL = 'job_changed';

const OPEN_WRITE = 'jobReadCacheWrite';

@Injectable()
export class JobRepository {
  private readonly readCache: JobReadCache;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    // Testing modules of repositories alone have none: a cache that never listens keeps nothing.
    @Optional() readCache?: JobReadCache,
  ) {
    this.readCache = readCache ?? new JobReadCache();
    // A transaction that wrote jobs keeps the read cache from keeping anything until it ends.
    const ended = (event: { queryRunner: QueryRunner }) => {
      if (!event.queryRunner.data?.[OPEN_WRITE]) return;
      delete event.queryRunner.data[OPEN_WRITE];
      this.readCache.writeClosed();
    };
    this.db.subscribers.push({ afterTransactionCommit: ended, afterTransactionRollback: ended });
  }

  /**
   * A write of this process to `id` (null: to jobs not named here): cached reads drop it now, not
   * only when the trigger's notification comes back, so this process reads its own writes.
   */
  private changed(id: string | null, manager?: EntityManager): void {
    if (id) this.readCache.invalidate(id);
    else this.readCache.clear();
    const runner = manager?.queryRunner;
    if (runner?.isTransactionActive && !runner.data[OPEN_WRITE]) {
      runner.data[OPEN_WRITE] = true;
      this.readCache.writeOpened();
    }
  }

  async insert(tx: EntityManager, job: NewJob): Promise<Job> {
    return insertRow(tx, Job, job);
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
    this.changed(id, tx);
  }

  async setReservedSeconds(tx: EntityManager, id: string, seconds: number): Promise<void> {
    await tx.update(Job, { id }, { reservedSeconds: seconds });
    this.changed(id, tx);
  }

  /** ingesting → queued, once its files are copied. False when it was cancelled meanwhile. */
  async release(tx: EntityManager, id: string): Promise<boolean> {
    const released = rowsAffected(await tx.query(`UPDATE jobs SET status = 'queued', updated_at = now() WHERE id = $1 AND status = 'ingesting'`, [id]));
    this.changed(id, tx);
    return released;
  }

  /** ingesting → failed (a copy failed), with the rows waiting on it. */
  async failIngest(id: string, error: JobError): Promise<boolean> {
    return this.endedWithFollowers(
      `WITH ended AS (
         UPDATE jobs SET status = 'failed', error = $2, completed_at = now(), updated_at = now() WHERE id = $1 AND status = 'ingesting' RETURNING *),
       ${FOLLOWERS_FAIL}
       ${NOTIFY_ENDED}`,
      [id, JSON.stringify(error)],
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
    this.changed(id);
    return claimed ? this.findById(id) : null;
  }

  /** Handed back to the queue at a shutdown: the claim's attempt is not counted; it stays processing, from 0 %, until claimed again. */
  async handBack(id: string): Promise<void> {
    await this.db.query(`UPDATE jobs SET attempts = GREATEST(attempts - 1, 0), progress_percent = 0 WHERE id = $1 AND status = 'processing'`, [id]);
    this.changed(id);
  }

  /** processing → completed (with the rows waiting on it). False when the job was cancelled while finishing. */
  async complete(id: string, done: JobCompletion): Promise<boolean> {
    return this.endedWithFollowers(
      `WITH ended AS (
         UPDATE jobs SET status = 'completed', output = $2, output_key = $3, output_seconds = $4, result = $5,
           diagnostics = $6, progress_percent = 100, progress_stage = NULL, completed_at = now(), updated_at = now()
         WHERE id = $1 AND status = 'processing' RETURNING *),
       ${FOLLOWERS_COMPLETE}
       ${NOTIFY_ENDED}`,
      [
        id,
        done.output ? JSON.stringify(done.output) : null,
        done.outputKey ?? null,
        done.outputSeconds ?? null,
        done.result ? JSON.stringify(done.result) : null,
        done.diagnostics ? JSON.stringify(done.diagnostics) : null,
      ],
    );
  }

  /** queued or processing → failed (with the rows waiting on it); a cancelled job stays cancelled. (`queued`: every claim itself failed.) */
  async fail(id: string, error: JobError): Promise<boolean> {
    return this.endedWithFollowers(
      `WITH ended AS (
         UPDATE jobs SET status = 'failed', error = $2, progress_stage = NULL, completed_at = now(), updated_at = now()
         WHERE id = $1 AND status IN ('queued', 'processing') RETURNING *),
       ${FOLLOWERS_FAIL}
       ${NOTIFY_ENDED}`,
      [id, JSON.stringify(error)],
    );
  }

  /** The rows waiting on `leaderId` that ended with it (JobRepository.complete and fail). */
  findFollowers(leaderId: string, statuses: JobStatus[]): Promise<Job[]> {
    return this.db.getRepository(Job).find({ where: { reuseOf: leaderId, status: In(statuses) }, order: { id: 'ASC' } });
  }

  /**
   * A leader cancelled on its own: its first waiting row becomes the leader (returned, to be
   * queued with `reservedSeconds`), the others wait on that one. Null when none was waiting.
   */
  async promoteFollower(tx: EntityManager, leaderId: string, reservedSeconds: number): Promise<Job | null> {
    const [rows]: [{ id: string }[], number] = await tx.query(
      `UPDATE jobs SET reuse_of = NULL, reserved_seconds = $2, updated_at = now()
       WHERE id = (SELECT id FROM jobs WHERE reuse_of = $1 AND status = 'queued' ORDER BY id LIMIT 1 FOR UPDATE) RETURNING id`,
      [leaderId, reservedSeconds],
    );
    if (rows.length === 0) return null;
    await tx.query(`UPDATE jobs SET reuse_of = $2 WHERE reuse_of = $1 AND status = 'queued'`, [leaderId, rows[0].id]);
    this.changed(null, tx);
    return tx.findOneByOrFail(Job, { id: rows[0].id });
  }

  private async endedWithFollowers(sql: string, params: unknown[]): Promise<boolean> {
    const [row]: { own: number }[] = await this.db.query(sql, params);
    // The rows that ended with it are not named here.
    this.changed(null);
    return row.own > 0;
  }

  /** Any unfinished status → cancelled, in the caller's transaction. */
  async cancel(tx: EntityManager, id: string): Promise<boolean> {
    const cancelled = rowsAffected(
      await tx.query(
        `UPDATE jobs SET status = 'cancelled', progress_stage = NULL, completed_at = now(), updated_at = now()
         WHERE id = $1 AND status = ANY($2)`,
        [id, UNFINISHED],
      ),
    );
    this.changed(id, tx);
    return cancelled;
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
    this.changed(null, tx);
    return rows.map((row) => ({ id: row.id, queueName: row.queue_name, queueEntryId: row.queue_entry_id }));
  }

  /** Progress of a processing job; false once it is no longer processing (cancelled). */
  async writeProgress(id: string, stage: ProgressStage | null, percent: number): Promise<boolean> {
    const written = rowsAffected(
      await this.db.query(
        `UPDATE jobs SET progress_stage = $2, progress_percent = GREATEST(progress_percent, $3) WHERE id = $1 AND status = 'processing'`,
        [id, stage, Math.min(99, percent)],
      ),
    );
    this.changed(id);
    return written;
  }

  async hasStatus(id: string, status: JobStatus): Promise<boolean> {
    const rows: unknown[] = await this.db.query(`SELECT 1 FROM jobs WHERE id = $1 AND status = $2`, [id, status]);
    return rows.length > 0;
  }

  /** The queue entries of the workspace's queued jobs (to take off their queues before a delete). */
  async queuedEntries(tx: EntityManager, workspaceId: string): Promise<Pick<Job, 'queueName' | 'queueEntryId'>[]> {
    const rows: { queue_name: string; queue_entry_id: string }[] = await tx.query(
      `SELECT queue_name, queue_entry_id FROM jobs WHERE workspace_id = $1 AND status = 'queued' AND queue_entry_id IS NOT NULL`,
      [workspaceId],
    );
    return rows.map((row) => ({ queueName: row.queue_name, queueEntryId: row.queue_entry_id }));
  }

  /**
   * The workspace's newest completed renders with this request hash whose output is still
   * recorded (retention marks an expired output with `expired_at`), at most `limit`.
   */
  findReusable(tx: EntityManager, workspaceId: string, hash: string, limit: number): Promise<Job[]> {
    return tx
      .getRepository(Job)
      .createQueryBuilder('j')
      .where(`j.workspaceId = :workspaceId AND j.requestHash = :hash AND j.status = 'completed'`, { workspaceId, hash })
      .andWhere(`j.outputKey IS NOT NULL AND j.output IS NOT NULL AND j.output->>'expired_at' IS NULL`)
      .orderBy('j.completedAt', 'DESC')
      .limit(limit)
      // Held until the new job commits: a retention sweep of this file waits, then sees the new job (RetentionRepository).
      .setLock('pessimistic_read')
      .getMany();
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { rowsAffected } from '../../common/rows-affected';
import type { JobError } from '../../jobs/job.entity';

export type ChunkState = 'pending' | 'processing' | 'done' | 'failed' | 'cancelled';

export interface RenderChunk {
  jobId: string;
  index: number;
  firstFrame: number;
  lastFrame: number;
  state: ChunkState;
  attempts: number;
  outputKey: string | null;
  error: JobError | null;
  renderSeconds: number | null;
  /** The worker process that last took it (WorkerPresenceService.id). */
  workerId: string | null;
}

const COLUMNS = `job_id AS "jobId", index, first_frame AS "firstFrame", last_frame AS "lastFrame", state, attempts,
  output_key AS "outputKey", error, render_seconds AS "renderSeconds", worker_id AS "workerId"`;

/**
 * The `render_chunks` table: one row per frame range of a split render. Every change is one UPDATE
 * guarded by the states it may start from, so a chunk's duplicate queue entries, a worker taking
 * over a dead one's chunk, and a cancel racing a finish cannot both win.
 *
 *   pending ─claim─▶ processing ─finish─▶ done
 *      ▲ ▲              │ └──fail──▶ failed (no attempt left, or an error no retry can fix)
 *      │ └───release────┘            any unfinished ─cancel─▶ cancelled (the parent ended)
 *      └────────reset (its file was lost)──────── done
 */
@Injectable()
export class RenderChunkRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * The job's chunks for these frame ranges, created unless they exist: a retried parent keeps the
   * chunks already done. Rows of another split (the chunk size changed between attempts) are
   * replaced; their stored files are returned for deletion.
   */
  async plan(tx: EntityManager, jobId: string, ranges: [number, number][]): Promise<{ chunks: RenderChunk[]; staleKeys: string[] }> {
    const existing: RenderChunk[] = await tx.query(`SELECT ${COLUMNS} FROM render_chunks WHERE job_id = $1 ORDER BY index FOR UPDATE`, [jobId]);
    const sameSplit = existing.length === ranges.length && existing.every((chunk, i) => chunk.firstFrame === ranges[i][0] && chunk.lastFrame === ranges[i][1]);
    let staleKeys: string[] = [];
    if (!sameSplit) {
      staleKeys = existing.flatMap((chunk) => (chunk.outputKey ? [chunk.outputKey] : []));
      await tx.query(`DELETE FROM render_chunks WHERE job_id = $1`, [jobId]);
      for (const [index, [first, last]] of ranges.entries()) {
        await tx.query(`INSERT INTO render_chunks (job_id, index, first_frame, last_frame) VALUES ($1, $2, $3, $4)`, [jobId, index, first, last]);
      }
    } else {
      // Chunks a previous attempt left unfinished are queued again; `failed` ones too (a new attempt of the whole job).
      await tx.query(`UPDATE render_chunks SET state = 'pending', error = NULL WHERE job_id = $1 AND state IN ('failed', 'cancelled')`, [jobId]);
    }
    return { chunks: await tx.query(`SELECT ${COLUMNS} FROM render_chunks WHERE job_id = $1 ORDER BY index`, [jobId]), staleKeys };
  }

  async exist(jobId: string): Promise<boolean> {
    return (await this.db.query(`SELECT 1 FROM render_chunks WHERE job_id = $1 LIMIT 1`, [jobId])).length > 0;
  }

  list(jobId: string): Promise<RenderChunk[]> {
    return this.db.query(`SELECT ${COLUMNS} FROM render_chunks WHERE job_id = $1 ORDER BY index`, [jobId]);
  }

  /**
   * pending → processing for this worker; also a chunk left `processing` by a worker that stopped
   * beating for `staleSeconds` (it died; the queue hands its entry to another worker). Null when
   * the chunk is done, ended, or alive in another worker.
   */
  async claim(jobId: string, index: number, staleSeconds: number, workerId: string): Promise<RenderChunk | null> {
    const result: [RenderChunk[], number] = await this.db.query(
      `UPDATE render_chunks SET state = 'processing', attempts = attempts + 1, heartbeat_at = now(), started_at = now(), error = NULL, worker_id = $4
       WHERE job_id = $1 AND index = $2
         AND (state = 'pending' OR (state = 'processing' AND heartbeat_at < now() - make_interval(secs => $3)))
       RETURNING ${COLUMNS}`,
      [jobId, index, staleSeconds, workerId],
    );
    return result[0][0] ?? null; // an UPDATE answers [rows, count]
  }

  /** A running chunk's sign of life; false once it is no longer processing (cancelled). */
  async heartbeat(jobId: string, index: number): Promise<boolean> {
    return rowsAffected(await this.db.query(`UPDATE render_chunks SET heartbeat_at = now() WHERE job_id = $1 AND index = $2 AND state = 'processing'`, [jobId, index]));
  }

  async finish(jobId: string, index: number, outputKey: string, renderSeconds: number): Promise<boolean> {
    return rowsAffected(
      await this.db.query(
        `UPDATE render_chunks SET state = 'done', output_key = $3, render_seconds = $4, finished_at = now() WHERE job_id = $1 AND index = $2 AND state = 'processing'`,
        [jobId, index, outputKey, renderSeconds],
      ),
    );
  }

  /** processing → pending after an error the queue will retry; the error is kept for operators. */
  async release(jobId: string, index: number, error: JobError): Promise<void> {
    await this.db.query(`UPDATE render_chunks SET state = 'pending', error = $3 WHERE job_id = $1 AND index = $2 AND state = 'processing'`, [jobId, index, JSON.stringify(error)]);
  }

  /** Any unfinished state → failed: the parent fails with this error. */
  async fail(jobId: string, index: number, error: JobError): Promise<void> {
    await this.db.query(
      `UPDATE render_chunks SET state = 'failed', error = $3, finished_at = now() WHERE job_id = $1 AND index = $2 AND state IN ('pending', 'processing')`,
      [jobId, index, JSON.stringify(error)],
    );
  }

  /** Every unfinished chunk → cancelled (its worker sees it within a second); returns every stored chunk file. */
  async cancel(jobId: string): Promise<string[]> {
    await this.db.query(`UPDATE render_chunks SET state = 'cancelled', finished_at = now() WHERE job_id = $1 AND state IN ('pending', 'processing')`, [jobId]);
    const rows: { key: string }[] = await this.db.query(`SELECT output_key AS key FROM render_chunks WHERE job_id = $1 AND output_key IS NOT NULL`, [jobId]);
    return rows.map((row) => row.key);
  }

  /** done → pending: its stored file was lost, so it is drawn again. */
  async reset(jobId: string, index: number): Promise<void> {
    await this.db.query(`UPDATE render_chunks SET state = 'pending', output_key = NULL WHERE job_id = $1 AND index = $2 AND state = 'done'`, [jobId, index]);
  }

  /** Once joined, the chunk files are gone; the rows stay as the record of how the job was drawn. */
  async forgetFiles(jobId: string): Promise<void> {
    await this.db.query(`UPDATE render_chunks SET output_key = NULL WHERE job_id = $1`, [jobId]);
  }
}

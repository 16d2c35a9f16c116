import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import { rowsAffected } from '../common/rows-affected';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Batch } from './batch.entity';

export type BatchCounts = Record<'queued' | 'processing' | 'completed' | 'failed' | 'cancelled', number>;

/** The `batches` table, and its rows' states read from `jobs`. */
@Injectable()
export class BatchRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(tx: EntityManager, batch: Pick<Batch, 'id' | 'workspaceId' | 'projectId' | 'projectVersion' | 'rowCount' | 'outputFilename' | 'metadata' | 'webhookUrl'>): Promise<Batch> {
    await tx.insert(Batch, batch as QueryDeepPartialEntity<Batch>);
    return tx.findOneByOrFail(Batch, { id: batch.id });
  }

  findById(id: string, manager: EntityManager = this.db.manager): Promise<Batch | null> {
    return manager.findOneBy(Batch, { id });
  }

  /** Another workspace's id finds nothing. */
  findInWorkspace(workspaceId: string, id: string): Promise<Batch | null> {
    return this.db.getRepository(Batch).findOneBy({ id, workspaceId });
  }

  list(workspaceId: string, limit: number, before?: string): Promise<Batch[]> {
    return this.db.getRepository(Batch).find({
      where: { workspaceId, ...(before ? { id: LessThan(before) } : {}) },
      order: { id: 'DESC' },
      take: limit + 1,
    });
  }

  /** Rows per state, by batch (`ingesting` counts as queued: the row waits for its files). */
  async counts(batchIds: string[], manager: EntityManager = this.db.manager): Promise<Map<string, BatchCounts>> {
    const result = new Map<string, BatchCounts>(batchIds.map((id) => [id, { queued: 0, processing: 0, completed: 0, failed: 0, cancelled: 0 }]));
    if (batchIds.length === 0) return result;
    const rows: { batch_id: string; status: string; count: number }[] = await manager.query(
      `SELECT batch_id, status, count(*)::int AS count FROM jobs WHERE batch_id = ANY($1) GROUP BY batch_id, status`,
      [batchIds],
    );
    for (const row of rows) {
      const counts = result.get(row.batch_id)!;
      const state = row.status === 'ingesting' ? 'queued' : (row.status as keyof BatchCounts);
      counts[state] += row.count;
    }
    return result;
  }

  async markCancelled(tx: EntityManager, id: string): Promise<void> {
    await tx.query(`UPDATE batches SET cancelled_at = COALESCE(cancelled_at, now()), updated_at = now() WHERE id = $1`, [id]);
  }

  /**
   * Marks the batch completed when every row has ended; true only for the one call that did
   * (two rows ending at once cannot both send `batch.completed`).
   */
  async completeIfEnded(id: string): Promise<boolean> {
    return rowsAffected(
      await this.db.query(
        `UPDATE batches SET completed_at = now(), updated_at = now()
         WHERE id = $1 AND completed_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM jobs WHERE batch_id = $1 AND status IN ('ingesting', 'queued', 'processing'))`,
        [id],
      ),
    );
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface QueueStats {
  name: string;
  /** Entries waiting and due now (a delayed retry counts once its time has come). */
  depth: number;
  /** How long the oldest of them has been due; null when none waits. */
  oldest_seconds: number | null;
}

/** Reads pg-boss's own tables for the metrics: what each queue has waiting. */
@Injectable()
export class QueueStatsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  waiting(): Promise<QueueStats[]> {
    return this.db.query(
      `SELECT q.name, count(j.id)::int AS depth, extract(epoch FROM now() - min(j.start_after))::float8 AS oldest_seconds
       FROM pgboss.queue q
       LEFT JOIN pgboss.job j ON j.name = q.name AND j.state IN ('created', 'retry') AND j.start_after <= now()
       GROUP BY q.name`,
    );
  }
}

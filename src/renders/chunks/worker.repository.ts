import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The `workers` table: one row per live worker process, beaten on while it runs. */
@Injectable()
export class WorkerRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Records the process, or refreshes its heartbeat. */
  async beat(id: string, hostname: string, pid: number): Promise<void> {
    await this.db.query(
      `INSERT INTO workers (id, hostname, pid) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
      [id, hostname, pid],
    );
  }

  /** Worker processes that beat within `staleSeconds`; rows older than ten times that are dropped. */
  async liveCount(staleSeconds: number): Promise<number> {
    await this.db.query(`DELETE FROM workers WHERE heartbeat_at < now() - make_interval(secs => $1)`, [staleSeconds * 10]);
    const rows: { count: number }[] = await this.db.query(
      `SELECT count(*)::int AS count FROM workers WHERE heartbeat_at >= now() - make_interval(secs => $1)`,
      [staleSeconds],
    );
    return rows[0].count;
  }

  async remove(id: string): Promise<void> {
    await this.db.query(`DELETE FROM workers WHERE id = $1`, [id]);
  }
}

import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The readiness check's round trip to PostgreSQL, and the pool's warm-up at start. */
@Injectable()
export class DatabaseHealthRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }

  /**
   * Opens the pool's kept connections (`min`) before the process reports ready: opened lazily, they
   * would be opened by the first burst of requests, each waiting for a backend to start under load.
   */
  async warmPool(): Promise<void> {
    const size = (this.db.options.extra as { min?: number } | undefined)?.min ?? 0;
    await Promise.all(Array.from({ length: size }, () => this.db.query('SELECT 1')));
  }
}

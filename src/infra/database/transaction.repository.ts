import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/**
 * Opens transactions for services, which never hold the DataSource: the work receives the
 * transaction's EntityManager and hands it to the repositories' methods, so a change spanning
 * several tables (a job, its idempotency key, its queue entry) commits or rolls back as one.
 */
@Injectable()
export class TransactionRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  run<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }
}

import type { DeepPartial, EntityManager, EntityTarget, FindOptionsWhere } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

/** For repositories: inserts one row in the caller's transaction and reads it back whole (the database's defaults filled in). */
export async function insertRow<T extends { id: string }>(tx: EntityManager, entity: EntityTarget<T>, row: DeepPartial<T> & { id: string }): Promise<T> {
  // jsonb columns typed as records trip TypeORM's deep-partial typing; the entity is complete.
  await tx.insert(entity, tx.create(entity, row) as QueryDeepPartialEntity<T>);
  return tx.findOneByOrFail(entity, { id: row.id } as FindOptionsWhere<T>);
}

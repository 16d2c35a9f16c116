/** Whether an UPDATE or DELETE run through TypeORM's `query()` touched a row (pg answers [rows, rowCount]). */
export function rowsAffected(result: unknown): boolean {
  return Array.isArray(result) && typeof result[1] === 'number' && result[1] > 0;
}

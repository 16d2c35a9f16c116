import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

export interface IdempotencyKey {
  workspaceId: string;
  scope: string;
  key: string;
}

/** The `idempotency_keys` table: one row per (workspace, scope, key), with the answer once given. */
@Injectable()
export class IdempotencyRepository {
  /**
   * Inserts the key's row in the caller's transaction; false when it exists. A concurrent first use
   * waits on the primary key until the other commits, then gets false.
   */
  async claim(tx: EntityManager, key: IdempotencyKey, requestHash: string): Promise<boolean> {
    const inserted: unknown[] = await tx.query(
      `INSERT INTO idempotency_keys (workspace_id, scope, key, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING key`,
      [key.workspaceId, key.scope, key.key, requestHash],
    );
    return inserted.length > 0;
  }

  async find<T>(manager: EntityManager, key: IdempotencyKey): Promise<{ requestHash: string; responseBody: T | null } | null> {
    const [row]: { request_hash: string; response_body: T | null }[] = await manager.query(
      `SELECT request_hash, response_body FROM idempotency_keys WHERE workspace_id = $1 AND scope = $2 AND key = $3`,
      [key.workspaceId, key.scope, key.key],
    );
    return row ? { requestHash: row.request_hash, responseBody: row.response_body } : null;
  }

  async storeResponse(tx: EntityManager, key: IdempotencyKey, body: unknown): Promise<void> {
    await tx.query(`UPDATE idempotency_keys SET response_body = $4 WHERE workspace_id = $1 AND scope = $2 AND key = $3`, [
      key.workspaceId,
      key.scope,
      key.key,
      JSON.stringify(body),
    ]);
  }
}

import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ApiError } from '../errors/api-error';

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export type IdempotentOutcome<T> = { replayed: false; body: T } | { replayed: true; body: T };

/**
 * Idempotent submission. The key row is inserted in the same transaction as the job:
 * a concurrent duplicate blocks on the primary key until the first commits, then finds the row and
 * replays, so exactly one job exists per key. Same key with another body → 409.
 */
@Injectable()
export class IdempotencyService {
  async run<T>(
    tx: EntityManager,
    scope: { workspaceId: string; scope: string; key: string | undefined; payload: unknown },
    create: () => Promise<T>,
  ): Promise<IdempotentOutcome<T>> {
    if (scope.key === undefined) return { replayed: false, body: await create() };
    assertKeyShape(scope.key);
    const hash = requestHash(scope.payload);
    const inserted: unknown[] = await tx.query(
      `INSERT INTO idempotency_keys (workspace_id, scope, key, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING key`,
      [scope.workspaceId, scope.scope, scope.key, hash],
    );
    if (inserted.length === 0) {
      const [existing]: { request_hash: string; response_body: T }[] = await tx.query(
        `SELECT request_hash, response_body FROM idempotency_keys WHERE workspace_id = $1 AND scope = $2 AND key = $3`,
        [scope.workspaceId, scope.scope, scope.key],
      );
      if (existing.request_hash !== hash) {
        throw new ApiError('conflict', 'This Idempotency-Key was already used with a different request body', {
          idempotency_key: scope.key,
        });
      }
      return { replayed: true, body: existing.response_body };
    }
    const body = await create();
    await tx.query(
      `UPDATE idempotency_keys SET response_body = $4 WHERE workspace_id = $1 AND scope = $2 AND key = $3`,
      [scope.workspaceId, scope.scope, scope.key, JSON.stringify(body)],
    );
    return { replayed: false, body };
  }

  /**
   * The earlier answer to this key, read before work that cannot sit inside a transaction (a
   * download): null when the key is new or absent; a 409 when it was used with another body.
   * `run` afterwards still decides races between two first uses.
   */
  async peek<T>(db: EntityManager, scope: { workspaceId: string; scope: string; key: string | undefined; payload: unknown }): Promise<T | null> {
    if (scope.key === undefined) return null;
    assertKeyShape(scope.key);
    const [existing]: { request_hash: string; response_body: T | null }[] = await db.query(
      `SELECT request_hash, response_body FROM idempotency_keys WHERE workspace_id = $1 AND scope = $2 AND key = $3`,
      [scope.workspaceId, scope.scope, scope.key],
    );
    if (!existing) return null;
    if (existing.request_hash !== requestHash(scope.payload)) {
      throw new ApiError('conflict', 'This Idempotency-Key was already used with a different request body', { idempotency_key: scope.key });
    }
    return existing.response_body;
  }
}

function assertKeyShape(key: string): void {
  if (IDEMPOTENCY_KEY_PATTERN.test(key)) return;
  throw ApiError.validation([
    {
      type: 'string_pattern_mismatch',
      loc: ['header', 'idempotency-key'],
      msg: 'Idempotency-Key must be 1-255 printable ASCII characters without spaces',
      pointer: '',
    },
  ]);
}

/** Hash of the body with object keys sorted, so key order does not make two bodies differ. */
export function requestHash(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../errors/api-error';
import { IdempotencyRepository } from './idempotency.repository';

export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export type IdempotentOutcome<T> = { replayed: false; body: T } | { replayed: true; body: T };

/**
 * Idempotent submission. The key row is inserted in the same transaction as the job:
 * a concurrent duplicate blocks on the primary key until the first commits, then finds the row and
 * replays, so exactly one job exists per key. Same key with another body → 409.
 */
@Injectable()
export class IdempotencyService {
  constructor(private readonly keys: IdempotencyRepository) {}

  async run<T>(
    tx: EntityManager,
    scope: { workspaceId: string; scope: string; key: string | undefined; payload: unknown },
    create: () => Promise<T>,
  ): Promise<IdempotentOutcome<T>> {
    if (scope.key === undefined) return { replayed: false, body: await create() };
    assertKeyShape(scope.key);
    const hash = requestHash(scope.payload);
    const key = { workspaceId: scope.workspaceId, scope: scope.scope, key: scope.key };
    if (!(await this.keys.claim(tx, key, hash))) {
      const existing = (await this.keys.find<T>(tx, key))!;
      if (existing.requestHash !== hash) {
        throw new ApiError('conflict', 'This Idempotency-Key was already used with a different request body', {
          idempotency_key: scope.key,
        });
      }
      return { replayed: true, body: existing.responseBody as T };
    }
    const body = await create();
    await this.keys.storeResponse(tx, key, body);
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
    const existing = await this.keys.find<T>(db, { workspaceId: scope.workspaceId, scope: scope.scope, key: scope.key });
    if (!existing) return null;
    if (existing.requestHash !== requestHash(scope.payload)) {
      throw new ApiError('conflict', 'This Idempotency-Key was already used with a different request body', { idempotency_key: scope.key });
    }
    return existing.responseBody;
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

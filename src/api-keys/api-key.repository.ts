import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityMetadata, IsNull, LessThan, QueryRunner } from 'typeorm';
import { Workspace } from '../workspaces/workspace.entity';
import { ApiKey } from './api-key.entity';

export type NewApiKey = Pick<ApiKey, 'id' | 'workspaceId' | 'name' | 'prefix' | 'keyHash' | 'pendingCodeId'>;

/** The `api_keys` table. Keys are stored as SHA-256 digests only. */
@Injectable()
export class ApiKeyRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(key: NewApiKey, manager: EntityManager = this.db.manager): Promise<ApiKey> {
    await manager.insert(ApiKey, manager.create(ApiKey, { ...key, lastUsedAt: null, revokedAt: null }));
    return manager.findOneByOrFail(ApiKey, { id: key.id });
  }

  /** Working keys: neither revoked nor pending (what the plan's cap counts). */
  countWorking(tx: EntityManager, workspaceId: string): Promise<number> {
    return tx.countBy(ApiKey, { workspaceId, revokedAt: IsNull(), pendingCodeId: IsNull() });
  }

  /**
   * The key with this digest when it is live: not revoked and, if pending, its signup code still
   * usable (a pending key expires with its code). The digest is selected for the caller's
   * constant-time comparison.
   */
  findLiveByDigest(digest: string, manager: EntityManager = this.db.manager): Promise<ApiKey | null> {
    return manager
      .getRepository(ApiKey)
      .createQueryBuilder('k')
      .addSelect('k.keyHash')
      .leftJoin('signup_codes', 'c', 'c.id = k.pending_code_id')
      .where('k.keyHash = :digest AND k.revokedAt IS NULL', { digest })
      .andWhere('(k.pending_code_id IS NULL OR (c.consumed_at IS NULL AND c.invalidated_at IS NULL AND c.expires_at > now()))')
      .getOne();
  }

  /** The live key with this digest and its workspace in one round trip: every authenticated request starts here. */
  async findLiveWithWorkspace(digest: string): Promise<{ key: Pick<ApiKey, 'id' | 'keyHash' | 'lastUsedAt' | 'pendingCodeId'>; workspace: Workspace } | null> {
    const { entities, raw } = await this.db
      .getRepository(Workspace)
      .createQueryBuilder('w')
      .innerJoin(ApiKey, 'k', 'k.workspace_id = w.id')
      .leftJoin('signup_codes', 'c', 'c.id = k.pending_code_id')
      .addSelect(['k.id AS key_id', 'k.key_hash AS key_hash', 'k.last_used_at AS key_last_used_at', 'k.pending_code_id AS key_pending_code_id'])
      .where('k.key_hash = :digest AND k.revoked_at IS NULL', { digest })
      .andWhere('(k.pending_code_id IS NULL OR (c.consumed_at IS NULL AND c.invalidated_at IS NULL AND c.expires_at > now()))')
      .getRawAndEntities<{ key_id: string; key_hash: string; key_last_used_at: Date | null; key_pending_code_id: string | null }>();
    const [workspace, row] = [entities[0], raw[0]];
    if (!workspace || !row) return null;
    return {
      workspace,
      key: { id: row.key_id, keyHash: row.key_hash, lastUsedAt: row.key_last_used_at ? new Date(row.key_last_used_at) : null, pendingCodeId: row.key_pending_code_id },
    };
  }

  /**
   * Calls `onChange` when a key or workspace row is inserted, updated or deleted through this data
   * source (not by raw SQL), and again when the transaction that did it ends, so that a lookup read
   * before the commit is not kept (AuthLookupCache).
   */
  watchAuthChanges(onChange: () => void): void {
    const FLAG = 'authRowsChanged';
    const changed = (event: { metadata?: EntityMetadata; queryRunner: QueryRunner }) => {
      if (event.metadata?.target !== ApiKey && event.metadata?.target !== Workspace) return;
      onChange();
      if (event.queryRunner.isTransactionActive) event.queryRunner.data[FLAG] = true;
    };
    const ended = (event: { queryRunner: QueryRunner }) => {
      if (!event.queryRunner.data?.[FLAG]) return;
      delete event.queryRunner.data[FLAG];
      onChange();
    };
    this.db.subscribers.push({
      afterInsert: changed,
      afterUpdate: changed,
      afterRemove: changed,
      afterSoftRemove: changed,
      afterRecover: changed,
      afterTransactionCommit: ended,
      afterTransactionRollback: ended,
    });
  }

  async touchLastUsed(id: string): Promise<void> {
    await this.db.getRepository(ApiKey).update({ id }, { lastUsedAt: new Date() });
  }

  /** The pending key works from now on and every other key of its workspace is revoked. */
  async activateAndRevokeOthers(manager: EntityManager, key: Pick<ApiKey, 'id' | 'workspaceId'>): Promise<void> {
    await manager.update(ApiKey, { id: key.id }, { pendingCodeId: null });
    await manager
      .createQueryBuilder()
      .update(ApiKey)
      .set({ revokedAt: () => 'now()' })
      .where('workspace_id = :ws AND id <> :id AND revoked_at IS NULL', { ws: key.workspaceId, id: key.id })
      .execute();
  }

  /** The workspace's own keys (pending signup keys are not its yet), newest first, below the cursor. */
  listOwned(workspaceId: string, take: number, before?: string): Promise<ApiKey[]> {
    return this.db.getRepository(ApiKey).find({
      where: before ? { workspaceId, pendingCodeId: IsNull(), id: LessThan(before) } : { workspaceId, pendingCodeId: IsNull() },
      order: { id: 'DESC' },
      take,
    });
  }

  findOwned(workspaceId: string, id: string): Promise<ApiKey | null> {
    return this.db.getRepository(ApiKey).findOneBy({ id, workspaceId, pendingCodeId: IsNull() });
  }

  async revoke(id: string): Promise<void> {
    await this.db.getRepository(ApiKey).update({ id }, { revokedAt: new Date() });
  }

  /** Every live key of the workspace, pending ones included. */
  async revokeAll(manager: EntityManager, workspaceId: string): Promise<void> {
    await manager.update(ApiKey, { workspaceId, revokedAt: IsNull() }, { revokedAt: new Date() });
  }
}

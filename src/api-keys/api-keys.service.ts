import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, LessThan } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { newId, randomBase62 } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination/pagination';
import { Workspace } from '../workspaces/workspace.entity';
import { WorkspaceCaps } from '../workspaces/workspace-caps';
import { ApiKey } from './api-key.entity';

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedApiKey {
  id: string;
  name: string;
  prefix: string;
  key: string;
  created_at: string;
}

const PREFIX_LENGTH = 11; // "sk_" + 8 characters
/** last_used_at is refreshed at most this often, so authentication does not write on every call. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function hashKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

@Injectable()
export class ApiKeysService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly caps: WorkspaceCaps,
  ) {}

  /**
   * Creates a key; the plaintext exists only in the return value. With `pendingCodeId` the key is
   * a signup key that works only after verification with that code (activatePending).
   */
  async create(
    workspaceId: string,
    name: string,
    manager: EntityManager = this.db.manager,
    pendingCodeId: string | null = null,
  ): Promise<CreatedApiKey> {
    const plaintext = `sk_${randomBase62(43)}`; // 43 base62 characters ≈ 256 bits
    const key = manager.create(ApiKey, {
      id: newId('key'),
      workspaceId,
      name,
      prefix: plaintext.slice(0, PREFIX_LENGTH),
      keyHash: hashKey(plaintext),
      lastUsedAt: null,
      revokedAt: null,
      pendingCodeId,
    });
    await manager.insert(ApiKey, key);
    const saved = await manager.findOneByOrFail(ApiKey, { id: key.id });
    return { id: saved.id, name: saved.name, prefix: saved.prefix, key: plaintext, created_at: saved.createdAt.toISOString() };
  }

  /** POST /v1/api-keys: a new working key, within the plan's cap on live keys. */
  async createForWorkspace(workspace: Workspace, name: string): Promise<CreatedApiKey> {
    return this.db.transaction(async (tx) => {
      await this.caps.assertBelow(tx, workspace, 'apiKeys', () =>
        tx.countBy(ApiKey, { workspaceId: workspace.id, revokedAt: IsNull(), pendingCodeId: IsNull() }),
      );
      return this.create(workspace.id, name, tx);
    });
  }

  /**
   * Resolves a plaintext key to its workspace. The lookup is by SHA-256 digest (a unique index), so
   * its timing says nothing about the plaintext; the digests are compared again in constant time.
   */
  async authenticate(plaintext: string): Promise<{ workspace: Workspace; keyId: string; pending: boolean } | null> {
    if (!/^sk_[0-9A-Za-z]{20,100}$/.test(plaintext)) return null;
    const digest = hashKey(plaintext);
    // One round trip for the key and its workspace: every authenticated request starts here.
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
    if (!workspace || !row || !timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(digest))) return null;
    if (!row.key_last_used_at || Date.now() - new Date(row.key_last_used_at).getTime() > LAST_USED_RESOLUTION_MS) {
      await this.db.getRepository(ApiKey).update({ id: row.key_id }, { lastUsedAt: new Date() });
    }
    return { workspace, keyId: row.key_id, pending: row.key_pending_code_id !== null };
  }

  /**
   * The live key with this plaintext: not revoked and, if pending, its code still usable (a
   * pending key expires with its code).
   */
  private async findLive(plaintext: string, manager: EntityManager = this.db.manager): Promise<ApiKey | null> {
    if (!/^sk_[0-9A-Za-z]{20,100}$/.test(plaintext)) return null;
    const digest = hashKey(plaintext);
    const row = await manager
      .getRepository(ApiKey)
      .createQueryBuilder('k')
      .addSelect('k.keyHash')
      .leftJoin('signup_codes', 'c', 'c.id = k.pending_code_id')
      .where('k.keyHash = :digest AND k.revokedAt IS NULL', { digest })
      .andWhere('(k.pending_code_id IS NULL OR (c.consumed_at IS NULL AND c.invalidated_at IS NULL AND c.expires_at > now()))')
      .getOne();
    if (!row || !timingSafeEqual(Buffer.from(row.keyHash), Buffer.from(digest))) return null;
    return row;
  }

  /** The pending key with this plaintext issued with the given signup code, if it is still live. */
  async findPending(plaintext: string, codeId: string, manager: EntityManager): Promise<ApiKey | null> {
    const row = await this.findLive(plaintext, manager);
    return row && row.pendingCodeId === codeId ? row : null;
  }

  /** Verification succeeded: the pending key works from now on and every other key is revoked. */
  async activatePending(key: ApiKey, manager: EntityManager): Promise<void> {
    await manager.update(ApiKey, { id: key.id }, { pendingCodeId: null });
    await manager
      .createQueryBuilder()
      .update(ApiKey)
      .set({ revokedAt: () => 'now()' })
      .where('workspace_id = :ws AND id <> :id AND revoked_at IS NULL', { ws: key.workspaceId, id: key.id })
      .execute();
  }

  async list(workspaceId: string, limit: number, cursor?: string): Promise<Page<ApiKeyView>> {
    const before = decodeCursor(cursor, 'key');
    // Pending signup keys are not the workspace's yet: they are not listed and cannot be revoked.
    const rows = await this.db.getRepository(ApiKey).find({
      where: before ? { workspaceId, pendingCodeId: IsNull(), id: LessThan(before) } : { workspaceId, pendingCodeId: IsNull() },
      order: { id: 'DESC' },
      take: limit + 1,
    });
    return toPage(rows, limit, toView);
  }

  /** Idempotent: revoking an already revoked key of the workspace succeeds. */
  async revoke(workspaceId: string, keyId: string): Promise<void> {
    const key = await this.db.getRepository(ApiKey).findOneBy({ id: keyId, workspaceId, pendingCodeId: IsNull() });
    if (!key) throw ApiError.notFound('API key');
    if (!key.revokedAt) await this.db.getRepository(ApiKey).update({ id: key.id }, { revokedAt: new Date() });
  }

  /** Revokes every live key of a workspace, pending ones included (adoption of an unverified workspace). */
  async revokeAll(workspaceId: string, manager: EntityManager): Promise<void> {
    await manager.update(ApiKey, { workspaceId, revokedAt: IsNull() }, { revokedAt: new Date() });
  }
}

export function toView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

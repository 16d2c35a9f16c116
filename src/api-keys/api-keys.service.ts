import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, LessThan } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { newId, randomBase62 } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination/pagination';
import { Workspace } from '../workspaces/workspace.entity';
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
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Creates a key; the plaintext exists only in the return value. */
  async create(workspaceId: string, name: string, manager: EntityManager = this.db.manager): Promise<CreatedApiKey> {
    const plaintext = `sk_${randomBase62(43)}`; // 43 base62 characters ≈ 256 bits
    const key = manager.create(ApiKey, {
      id: newId('key'),
      workspaceId,
      name,
      prefix: plaintext.slice(0, PREFIX_LENGTH),
      keyHash: hashKey(plaintext),
      lastUsedAt: null,
      revokedAt: null,
    });
    await manager.insert(ApiKey, key);
    const saved = await manager.findOneByOrFail(ApiKey, { id: key.id });
    return { id: saved.id, name: saved.name, prefix: saved.prefix, key: plaintext, created_at: saved.createdAt.toISOString() };
  }

  /**
   * Resolves a plaintext key to its workspace. The lookup is by SHA-256 digest (a unique index), so
   * its timing says nothing about the plaintext; the digests are compared again in constant time.
   */
  async authenticate(plaintext: string): Promise<{ workspace: Workspace; keyId: string } | null> {
    if (!/^sk_[0-9A-Za-z]{20,100}$/.test(plaintext)) return null;
    const digest = hashKey(plaintext);
    const row = await this.db
      .getRepository(ApiKey)
      .createQueryBuilder('k')
      .addSelect('k.keyHash')
      .where('k.keyHash = :digest AND k.revokedAt IS NULL', { digest })
      .getOne();
    if (!row || !timingSafeEqual(Buffer.from(row.keyHash), Buffer.from(digest))) return null;
    const workspace = await this.db.getRepository(Workspace).findOneBy({ id: row.workspaceId });
    if (!workspace) return null;
    if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await this.db.getRepository(ApiKey).update({ id: row.id }, { lastUsedAt: new Date() });
    }
    return { workspace, keyId: row.id };
  }

  async list(workspaceId: string, limit: number, cursor?: string): Promise<Page<ApiKeyView>> {
    const before = decodeCursor(cursor, 'key');
    const rows = await this.db.getRepository(ApiKey).find({
      where: before ? { workspaceId, id: LessThan(before) } : { workspaceId },
      order: { id: 'DESC' },
      take: limit + 1,
    });
    return toPage(rows, limit, toView);
  }

  /** Idempotent: revoking an already revoked key of the workspace succeeds. */
  async revoke(workspaceId: string, keyId: string): Promise<void> {
    const key = await this.db.getRepository(ApiKey).findOneBy({ id: keyId, workspaceId });
    if (!key) throw ApiError.notFound('API key');
    if (!key.revokedAt) await this.db.getRepository(ApiKey).update({ id: key.id }, { revokedAt: new Date() });
  }

  /** Revokes every live key of a workspace (signup re-key, adoption of an unverified workspace). */
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

import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../common/errors/api-error';
import { newId, randomBase62 } from '../common/ids';
import { decodeCursor, Page, toPage } from '../common/pagination/pagination';
import { Workspace } from '../workspaces/workspace.entity';
import { WorkspaceCapsService } from '../workspaces/workspace-caps.service';
import { TransactionRepository } from '../infra/database/transaction.repository';
import { WorkspaceRepository } from '../workspaces/workspace.repository';
import { ApiKey } from './api-key.entity';
import { ApiKeyRepository } from './api-key.repository';
import { AuthLookupCache } from './auth-lookup-cache';

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
/** How long another process may go on accepting a key or workspace after it changed (this one forgets at once). */
const AUTH_CACHE_TTL_MS = 2_000;

type Authenticated = { workspace: Workspace; keyId: string; pending: boolean };

export function hashKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

@Injectable()
export class ApiKeysService implements OnModuleInit {
  private readonly lookups = new AuthLookupCache<Authenticated>(AUTH_CACHE_TTL_MS, 10_000);

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly workspaces: WorkspaceRepository,
    private readonly transactions: TransactionRepository,
    private readonly caps: WorkspaceCapsService,
  ) {}

  onModuleInit(): void {
    this.keys.watchAuthChanges(() => this.lookups.invalidate());
  }

  /**
   * Creates a key; the plaintext exists only in the return value. With `pendingCodeId` the key is
   * a signup key that works only after verification with that code (activatePending).
   */
  async create(workspaceId: string, name: string, manager?: EntityManager, pendingCodeId: string | null = null): Promise<CreatedApiKey> {
    const plaintext = `sk_${randomBase62(43)}`; // 43 base62 characters: about 256 bits
    const saved = await this.keys.insert(
      { id: newId('key'), workspaceId, name, prefix: plaintext.slice(0, PREFIX_LENGTH), keyHash: hashKey(plaintext), pendingCodeId },
      manager,
    );
    return { id: saved.id, name: saved.name, prefix: saved.prefix, key: plaintext, created_at: saved.createdAt.toISOString() };
  }

  /** POST /v1/api-keys: a new working key, within the plan's cap on live keys. */
  async createForWorkspace(workspace: Workspace, name: string): Promise<CreatedApiKey> {
    return this.transactions.run(async (tx) => {
      await this.caps.assertBelow(tx, workspace, 'apiKeys', () => this.keys.countWorking(tx, workspace.id));
      return this.create(workspace.id, name, tx);
    });
  }

  /**
   * Resolves a plaintext key to its workspace. The lookup is by SHA-256 digest (a unique index), so
   * its timing says nothing about the plaintext; the digests are compared again in constant time.
   */
  async authenticate(plaintext: string): Promise<Authenticated | null> {
    if (!/^sk_[0-9A-Za-z]{20,100}$/.test(plaintext)) return null;
    const digest = hashKey(plaintext);
    // Pending keys expire with their code, so only working keys are cached.
    const found = await this.lookups.lookup(digest, () => this.lookUp(digest), (value) => !value.pending);
    // A copy per request: the cached workspace is shared by every request with this key.
    return found && { ...found, workspace: Object.assign(new Workspace(), found.workspace) };
  }

  private async lookUp(digest: string): Promise<Authenticated | null> {
    const found = await this.keys.findLiveWithWorkspace(digest);
    if (!found || !timingSafeEqual(Buffer.from(found.key.keyHash), Buffer.from(digest))) return null;
    const { key, workspace } = found;
    if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) await this.keys.touchLastUsed(key.id);
    return { workspace, keyId: key.id, pending: key.pendingCodeId !== null };
  }

  /** The live key with this plaintext (see ApiKeyRepository.findLiveByDigest). */
  private async findLive(plaintext: string, manager?: EntityManager): Promise<ApiKey | null> {
    if (!/^sk_[0-9A-Za-z]{20,100}$/.test(plaintext)) return null;
    const digest = hashKey(plaintext);
    const row = await this.keys.findLiveByDigest(digest, manager);
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
    await this.keys.activateAndRevokeOthers(manager, key);
  }

  async list(workspaceId: string, limit: number, cursor?: string): Promise<Page<ApiKeyView>> {
    const before = decodeCursor(cursor, 'key');
    return toPage(await this.keys.listOwned(workspaceId, limit + 1, before), limit, toView);
  }

  /** Idempotent: revoking an already revoked key of the workspace succeeds. */
  async revoke(workspaceId: string, keyId: string): Promise<void> {
    const key = await this.keys.findOwned(workspaceId, keyId);
    if (!key) throw ApiError.notFound('API key');
    if (!key.revokedAt) await this.keys.revoke(key.id);
  }

  /** Revokes every live key of a workspace, pending ones included (adoption of an unverified workspace). */
  async revokeAll(workspaceId: string, manager: EntityManager): Promise<void> {
    await this.keys.revokeAll(manager, workspaceId);
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

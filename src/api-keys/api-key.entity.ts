import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, TimestampOrNullColumn, WorkspaceIdColumn } from '../infra/database/columns';

@Entity('api_keys')
export class ApiKey {
  @IdColumn()
  id: string;

  @WorkspaceIdColumn()
  workspaceId: string;

  @Column('text')
  name: string;

  /** The first characters of the plaintext, shown in listings so a user can tell keys apart. */
  @Column('text')
  prefix: string;

  /** SHA-256 of the plaintext (hex); the plaintext itself is never stored. */
  @Column('text', { name: 'key_hash', select: false })
  keyHash: string;

  @CreatedAtColumn()
  createdAt: Date;

  @TimestampOrNullColumn('last_used_at')
  lastUsedAt: Date | null;

  @TimestampOrNullColumn('revoked_at')
  revokedAt: Date | null;

  /**
   * Set while the key waits for POST /v1/signup/verify: the signup code it was issued with. A
   * pending key authenticates nothing, and it is dead once that code is used up, replaced or
   * expired.
   */
  @Column('text', { name: 'pending_code_id', nullable: true })
  pendingCodeId: string | null;
}

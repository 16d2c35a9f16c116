import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, TimestampOrNullColumn, WorkspaceIdColumn } from '../infra/database/columns';

/** A one-time email verification code. Only a salted scrypt hash of the 6 digits is stored. */
@Entity('signup_codes')
export class SignupCode {
  @IdColumn()
  id: string;

  @WorkspaceIdColumn()
  workspaceId: string;

  @Column('text', { name: 'code_hash' })
  codeHash: string;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  @Column('integer', { name: 'failed_attempts', default: 0 })
  failedAttempts: number;

  @TimestampOrNullColumn('consumed_at')
  consumedAt: Date | null;

  @TimestampOrNullColumn('invalidated_at')
  invalidatedAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;
}

import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A one-time email verification code. Only a salted scrypt hash of the 6 digits is stored. */
@Entity('signup_codes')
export class SignupCode {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'code_hash' })
  codeHash: string;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt: Date;

  @Column('integer', { name: 'failed_attempts', default: 0 })
  failedAttempts: number;

  @Column('timestamptz', { name: 'consumed_at', nullable: true })
  consumedAt: Date | null;

  @Column('timestamptz', { name: 'invalidated_at', nullable: true })
  invalidatedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

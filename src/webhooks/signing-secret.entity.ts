import { Column, Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, TimestampOrNullColumn } from '../infra/database/columns';

/**
 * The workspace's webhook signing secret (one for all its webhooks). Unlike an API
 * key it is kept as is: every delivery is signed with it. It is never selected by default, never
 * logged, and shown only on registration and rotation.
 */
@Entity('webhook_signing_secrets')
export class SigningSecret {
  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { select: false })
  secret: string;

  @CreatedAtColumn()
  createdAt: Date;

  @TimestampOrNullColumn('rotated_at')
  rotatedAt: Date | null;
}

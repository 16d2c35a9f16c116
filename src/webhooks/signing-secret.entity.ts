import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { name: 'rotated_at', nullable: true })
  rotatedAt: Date | null;
}

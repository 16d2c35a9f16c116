import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { SubscribableEvent } from './webhook-events';

/** A workspace webhook endpoint. The signing secret belongs to the workspace, not to it. */
@Entity('webhooks')
export class Webhook {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text')
  url: string;

  @Column('text', { array: true })
  events: SubscribableEvent[];

  @Column('boolean', { default: true })
  enabled: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, UpdatedAtColumn, WorkspaceIdColumn } from '../infra/database/columns';
import type { SubscribableEvent } from './webhook-events';

/** A workspace webhook endpoint. The signing secret belongs to the workspace, not to it. */
@Entity('webhooks')
export class Webhook {
  @IdColumn()
  id: string;

  @WorkspaceIdColumn()
  workspaceId: string;

  @Column('text')
  url: string;

  @Column('text', { array: true })
  events: SubscribableEvent[];

  @Column('boolean', { default: true })
  enabled: boolean;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}

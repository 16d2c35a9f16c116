import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, TimestampOrNullColumn, UpdatedAtColumn, WorkspaceIdColumn } from '../infra/database/columns';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event on its way to one endpoint: a workspace webhook, or a job's own `webhook_url`. */
@Entity('webhook_deliveries')
export class WebhookDelivery {
  @IdColumn()
  id: string;

  @WorkspaceIdColumn()
  workspaceId: string;

  @Column('text', { name: 'event_id' })
  eventId: string;

  /** Null for a per-request `webhook_url`. */
  @Column('text', { name: 'webhook_id', nullable: true })
  webhookId: string | null;

  /** Where the latest attempt went (a webhook's URL can change between attempts). */
  @Column('text')
  url: string;

  @Column('text')
  status: DeliveryStatus;

  @Column('integer', { default: 0 })
  attempts: number;

  @Column('integer', { name: 'response_status', nullable: true })
  responseStatus: number | null;

  @Column('text', { name: 'response_excerpt', nullable: true })
  responseExcerpt: string | null;

  @Column('text', { nullable: true })
  error: string | null;

  @TimestampOrNullColumn('next_attempt_at')
  nextAttemptAt: Date | null;

  @TimestampOrNullColumn('last_attempt_at')
  lastAttemptAt: Date | null;

  /**
   * Names the one queued attempt that may run. A manual retry replaces it, so an attempt scheduled
   * earlier finds a different token and stands down instead of sending a second time.
   */
  @Column('text', { name: 'attempt_token', nullable: true, select: false })
  attemptToken: string | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}

import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, WorkspaceIdColumn } from '../infra/database/columns';
import type { EventType } from './webhook-events';

/**
 * One event as it was emitted. Its id is the `webhook-id` of every delivery of it, stable across
 * retries, so receivers can drop duplicates; `data` is frozen at emission.
 */
@Entity('events')
export class WebhookEvent {
  @IdColumn()
  id: string;

  @WorkspaceIdColumn()
  workspaceId: string;

  @Column('text')
  type: EventType;

  /** `json`, not `jsonb`: the text is kept as written, so the body keeps the API's field order. */
  @Column('json')
  data: Record<string, unknown>;

  /** The job the event is about, when it is a job event. */
  @Column('text', { name: 'job_id', nullable: true })
  jobId: string | null;

  @CreatedAtColumn()
  createdAt: Date;
}

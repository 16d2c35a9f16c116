import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, JsonbObjectColumn, TimestampOrNullColumn, UpdatedAtColumn, WorkspaceIdColumn } from '../infra/database/columns';

/** A batch of renders of one project version, one job per row (jobs.batch_id); its counts are read from its jobs. */
@Entity('batches')
export class Batch {
  @IdColumn()
  id: string;

  @WorkspaceIdColumn()
  workspaceId: string;

  @Column('text', { name: 'project_id' })
  projectId: string;

  @Column('integer', { name: 'project_version' })
  projectVersion: number;

  @Column('integer', { name: 'row_count' })
  rowCount: number;

  /** The file name template of its rows (`{{name}}-{{row}}`), as given. */
  @Column('text', { name: 'output_filename', nullable: true })
  outputFilename: string | null;

  @JsonbObjectColumn()
  metadata: Record<string, unknown>;

  /** Receives `batch.completed` (and each row's events, as every row's own webhook_url). */
  @Column('text', { name: 'webhook_url', nullable: true })
  webhookUrl: string | null;

  @TimestampOrNullColumn('cancelled_at')
  cancelledAt: Date | null;

  /** Set once, when every row has ended; `batch.completed` is sent then. */
  @TimestampOrNullColumn('completed_at')
  completedAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}

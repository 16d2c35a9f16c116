import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A batch of renders of one project version, one job per row (jobs.batch_id); its counts are read from its jobs. */
@Entity('batches')
export class Batch {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'workspace_id' })
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

  @Column('jsonb', { default: {} })
  metadata: Record<string, unknown>;

  /** Receives `batch.completed` (and each row's events, as every row's own webhook_url). */
  @Column('text', { name: 'webhook_url', nullable: true })
  webhookUrl: string | null;

  @Column('timestamptz', { name: 'cancelled_at', nullable: true })
  cancelledAt: Date | null;

  /** Set once, when every row has ended; `batch.completed` is sent then. */
  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

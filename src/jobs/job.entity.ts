import type { RenderedPreviewOptions } from '../../composition/src/schema';
import type { LoudnessReport } from '../infra/media/loudness';
import { Column, Entity } from 'typeorm';
import { CreatedAtColumn, IdColumn, JsonbObjectColumn, TimestampOrNullColumn, UpdatedAtColumn, WorkspaceIdColumn } from '../infra/database/columns';

export const JOB_KINDS = ['render', 'task'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export const JOB_STATUSES = ['ingesting', 'queued', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** The spec's stages, plus `transcribing`: a render recognising the speech its captions show. */
export const PROGRESS_STAGES = ['downloading', 'transcribing', 'compositing', 'encoding', 'uploading'] as const;
export type ProgressStage = (typeof PROGRESS_STAGES)[number];

export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

export interface JobOutput {
  /** Signed at read time (JobPresenterService); null once retention deleted the file. */
  url: string | null;
  /** When the retention sweep deleted the file (RENDER_RETENTION_DAYS); the record stays. */
  expired_at?: string;
  width: number;
  height: number;
  duration: number;
  size_bytes: number;
  /** Renders with `audio_normalize`: the output's measured loudness (EBU R128). */
  loudness?: LoudnessReport;
  /** Renders with `duck`: the sound spans found per source URL (merge into the Player's `media`). */
  sound_analysis?: Record<string, { audible_spans?: [number, number][]; speech_spans?: [number, number][] }>;
  /** A reused render: the earlier render whose stored output this job hands out. */
  reused_from?: string;
}

export interface JobError {
  code: string;
  message: string;
}

/** Renders and tasks share one table and one lifecycle (docs/decisions/0004-jobs.md). */
@Entity('jobs')
export class Job {
  @IdColumn()
  id: string;

  @WorkspaceIdColumn()
  workspaceId: string;

  @Column('text')
  kind: JobKind;

  @Column('text', { name: 'task_type', nullable: true })
  taskType: string | null;

  @Column('text')
  status: JobStatus;

  @Column('boolean', { name: 'is_preview', default: false })
  isPreview: boolean;

  /** What a preview job draws (`preview` of POST /v1/preview); null for a full render. */
  @Column('jsonb', { nullable: true })
  preview: RenderedPreviewOptions | null;

  @Column('integer', { name: 'progress_percent', default: 0 })
  progressPercent: number;

  @Column('text', { name: 'progress_stage', nullable: true })
  progressStage: ProgressStage | null;

  /** The validated request as submitted. */
  @Column('jsonb')
  request: Record<string, unknown>;

  @Column('jsonb', { nullable: true })
  output: JobOutput | null;

  @Column('jsonb', { nullable: true })
  result: Record<string, unknown> | null;

  @Column('jsonb', { nullable: true })
  error: JobError | null;

  @JsonbObjectColumn()
  metadata: Record<string, unknown>;

  /** How the work was carried out (renders: `render_path`, frames drawn); internal, not in the API. */
  @Column('jsonb', { nullable: true })
  diagnostics: Record<string, unknown> | null;

  @Column('text', { name: 'webhook_url', nullable: true })
  webhookUrl: string | null;

  @Column('text', { name: 'project_id', nullable: true })
  projectId: string | null;

  /** The project version rendered (its request at that version). */
  @Column('integer', { name: 'project_version', nullable: true })
  projectVersion: number | null;

  /** The batch this render is a row of (its row number from 1), null otherwise. */
  @Column('text', { name: 'batch_id', nullable: true })
  batchId: string | null;

  @Column('integer', { name: 'batch_row', nullable: true })
  batchRow: number | null;

  /** Hash of the canonical resolved request when the render may be reused (RenderReuseService); null when not. */
  @Column('text', { name: 'request_hash', nullable: true })
  requestHash: string | null;

  /**
   * A batch row identical to an earlier row of its batch: the id of that row, which renders for
   * both; this one waits unqueued and ends with its outcome (JobRepository.complete and fail).
   */
  @Column('text', { name: 'reuse_of', nullable: true })
  reuseOf: string | null;

  /** Storage key of the artifact, for signed download URLs. */
  @Column('text', { name: 'output_key', nullable: true })
  outputKey: string | null;

  /** Seconds of output of a completed render: the unit of render-minute billing. */
  @Column('double precision', { name: 'output_seconds', nullable: true })
  outputSeconds: number | null;

  @Column('integer', { default: 0 })
  attempts: number;

  /**
   * Quota seconds the job holds while it is unfinished (render output seconds, transcribed audio
   * seconds): set at submit from what the request tells, corrected once the media are probed.
   */
  @Column('double precision', { name: 'reserved_seconds', default: 0 })
  reservedSeconds: number;

  /** How long one attempt may run, from the job's size; the queue ends an attempt that runs longer. */
  @Column('integer', { name: 'run_limit_seconds', nullable: true })
  runLimitSeconds: number | null;

  /** The queue the job runs from, named when it is created. */
  @Column('text', { name: 'queue_name', nullable: true })
  queueName: string | null;

  /** Its entry in that queue (null while ingesting), cancelled with the job. */
  @Column('uuid', { name: 'queue_entry_id', nullable: true })
  queueEntryId: string | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;

  @TimestampOrNullColumn('started_at')
  startedAt: Date | null;

  @TimestampOrNullColumn('completed_at')
  completedAt: Date | null;
}

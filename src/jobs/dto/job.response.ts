import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { PageDto } from '../../common/openapi/page.dto';
import { JOB_KINDS, JOB_STATUSES, JobKind, JobStatus, PROGRESS_STAGES, ProgressStage } from '../job.entity';
import { ApiId, ApiNullable, ApiTimestamp, ApiTimestampOrNull } from '../../common/openapi/fields';

@ApiSchema({ name: 'LoudnessMeasure' })
export class LoudnessMeasureDto {
  @ApiProperty({ description: 'Integrated loudness (EBU R128), LUFS', example: -14.1 })
  integrated_lufs: number;

  @ApiProperty({ description: 'True peak, dBTP', example: -1.2 })
  true_peak_db: number;

  @ApiProperty({ description: 'Loudness range, LU', example: 5.3 })
  loudness_range_lu: number;
}

@ApiSchema({ name: 'LoudnessReport' })
export class LoudnessReportDto extends LoudnessMeasureDto {
  @ApiProperty({ example: -14 })
  target_lufs: number;

  @ApiProperty({ example: -1 })
  true_peak_ceiling_db: number;

  @ApiProperty({ enum: ['linear', 'dynamic'], description: 'linear: one gain for the whole mix; dynamic: loudnorm had to compress or limit' })
  method: 'linear' | 'dynamic';

  @ApiProperty({ type: LoudnessMeasureDto, description: 'The mix before normalisation' })
  before: LoudnessMeasureDto;
}

@ApiSchema({ name: 'JobOutput' })
export class JobOutputDto {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Signed URL of the artifact (valid 24 h; each read of the job signs a fresh one); null once the file expired (`expired_at`)',
  })
  url: string | null;

  @ApiPropertyOptional({
    format: 'date-time',
    description: "When the service deleted the file under its operator's retention policy (RENDER_RETENTION_DAYS); the job and its usage stay",
  })
  expired_at?: string;

  @ApiProperty({ example: 320 })
  width: number;

  @ApiProperty({ example: 180 })
  height: number;

  @ApiProperty({ description: 'Seconds', example: 1 })
  duration: number;

  @ApiProperty({ example: 48213 })
  size_bytes: number;

  @ApiPropertyOptional({ type: LoudnessReportDto, description: 'Renders with `audio_normalize`: the measured loudness of the output' })
  loudness?: LoudnessReportDto;

  @ApiPropertyOptional({
    description: 'Renders with `duck`: sound spans found per source URL, seconds (merge into a Player\'s `media`)',
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: {
        audible_spans: { type: 'array', items: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 } },
        speech_spans: { type: 'array', items: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2 } },
      },
    },
  })
  sound_analysis?: Record<string, { audible_spans?: [number, number][]; speech_spans?: [number, number][] }>;

  @ApiPropertyOptional({ description: 'A reused render: the id of the earlier identical render whose output this is (no render minutes charged)', example: 'render_01JD8Z3N5Q7W9X2Y4A6B8C0D1E' })
  reused_from?: string;
}

@ApiSchema({ name: 'JobError' })
export class JobErrorDto {
  @ApiProperty({ example: 'render_failed' })
  code: string;

  @ApiProperty({ example: 'The source could not be decoded' })
  message: string;
}

/** The Job object, as every render and task route, event stream and webhook shows it (toJobView). */
@ApiSchema({ name: 'Job' })
export class JobDto {
  @ApiId('job')
  id: string;

  @ApiProperty({ enum: JOB_KINDS })
  kind: JobKind;

  @ApiId('ws')
  workspace_id: string;

  @ApiProperty({ enum: JOB_STATUSES, example: 'queued' })
  status: JobStatus;

  @ApiTimestamp()
  created_at: string;

  @ApiTimestamp()
  updated_at: string;

  @ApiProperty({ description: 'A preview job (POST /v1/preview)' })
  is_preview: boolean;

  @ApiNullable('string', { description: 'Tasks only (e.g. `transcribe`)' })
  task_type: string | null;

  @ApiProperty({ minimum: 0, maximum: 100, example: 0 })
  progress_percent: number;

  @ApiProperty({ enum: PROGRESS_STAGES, nullable: true })
  progress_stage: ProgressStage | null;

  @ApiProperty({ type: () => JobOutputDto, nullable: true, description: 'Set when a render completed' })
  output: JobOutputDto | null;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'A completed task’s result' })
  result: Record<string, unknown> | null;

  @ApiProperty({ type: () => JobErrorDto, nullable: true, description: 'Set when the job failed' })
  error: JobErrorDto | null;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Caller metadata, as submitted' })
  metadata: Record<string, unknown>;

  @ApiNullable('string', { description: 'The project a project render came from' })
  project_id: string | null;

  @ApiNullable('integer', { description: 'The project version rendered' })
  project_version: number | null;

  @ApiNullable('string', { description: 'The batch this render is a row of' })
  batch_id: string | null;

  @ApiNullable('integer', { description: "The render's row in its batch, from 1" })
  batch_row: number | null;

  @ApiTimestampOrNull()
  completed_at: string | null;
}

@ApiSchema({ name: 'Violation' })
export class ViolationDto {
  @ApiProperty({ example: 'ELEMENT_OUTSIDE_CANVAS' })
  code: string;

  @ApiProperty({ enum: ['error', 'warning', 'info'] })
  severity: 'error' | 'warning' | 'info';

  @ApiProperty()
  message: string;

  @ApiProperty({ description: 'JSON Pointer into the request', example: '/elements/0' })
  pointer: string;

  @ApiProperty({ type: [String] })
  element_ids: string[];

  @ApiPropertyOptional({ description: 'On the `VIOLATIONS_TRUNCATED` marker only: how many findings there were' })
  total?: number;
}

/** A submitted render (or preview job): the Job plus the request's findings. */
@ApiSchema({ name: 'SubmittedJob' })
export class SubmittedJobDto extends JobDto {
  @ApiProperty({ description: 'False when a finding has severity `error`' })
  ok: boolean;

  @ApiProperty({ type: [ViolationDto], description: 'Findings, errors first; cut to 40 with a `VIOLATIONS_TRUNCATED` marker' })
  violations: ViolationDto[];
}

export const JobPageDto = PageDto(JobDto, 'JobPage');

@ApiSchema({ name: 'DownloadLink' })
export class DownloadLinkDto {
  @ApiProperty({ description: 'Short-lived signed URL of the artifact (Content-Disposition: attachment)' })
  url: string;

  @ApiTimestamp()
  expires_at: string;
}

import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ViolationDto } from '../../jobs/dto/job.response';

@ApiSchema({ name: 'SubmitError' })
export class SubmitErrorDto {
  @ApiProperty({ type: 'integer', example: 402 })
  status: number;

  @ApiProperty({ example: 'quota_exceeded' })
  code: string;

  @ApiProperty()
  message: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  details?: Record<string, unknown>;
}

@ApiSchema({ name: 'TimelineElement' })
export class TimelineElementDto {
  @ApiProperty({ type: 'integer' })
  index: number;

  @ApiProperty({ type: 'string', nullable: true })
  id: string | null;

  @ApiProperty({ example: 'text' })
  type: string;

  @ApiProperty({ description: 'Seconds' })
  start: number;

  @ApiProperty({ description: 'Seconds' })
  end: number;

  @ApiProperty({ description: 'Visible at some point of the output' })
  shown: boolean;

  @ApiProperty({ description: 'A media length not known without reading the file (the schema fallback was used)' })
  length_estimated: boolean;
}

@ApiSchema({ name: 'Timeline' })
export class TimelineDto {
  @ApiProperty({ type: 'integer' })
  width: number;

  @ApiProperty({ type: 'integer' })
  height: number;

  @ApiProperty()
  frame_rate: number;

  @ApiProperty({ description: 'Seconds' })
  duration: number;

  @ApiProperty({ type: 'integer' })
  frame_count: number;

  @ApiProperty({ type: [TimelineElementDto] })
  elements: TimelineElementDto[];
}

@ApiSchema({ name: 'RenderEstimate' })
export class RenderEstimateDto {
  @ApiProperty({ description: 'Billed render minutes' })
  render_minutes: number;

  @ApiProperty({ type: 'integer' })
  frames: number;

  @ApiProperty({ type: 'integer' })
  pixels_per_frame: number;

  @ApiProperty({ type: 'integer' })
  pixel_frames: number;

  @ApiProperty()
  media_seconds: number;
}

/** `preview.mode: dry_run`: every check of a submit, reported; nothing stored. */
@ApiSchema({ name: 'DryRun' })
export class DryRunDto {
  @ApiProperty({ enum: ['dry_run'] })
  mode: 'dry_run';

  @ApiProperty({ description: 'True when a submit would be accepted and no finding is an error' })
  ok: boolean;

  @ApiProperty({ type: () => SubmitErrorDto, nullable: true, description: 'What a submit of the same body would answer instead of 202' })
  submit_error: SubmitErrorDto | null;

  @ApiProperty({ type: [ViolationDto], description: 'Every finding, never truncated' })
  violations: ViolationDto[];

  @ApiProperty({ type: () => TimelineDto, nullable: true })
  timeline: TimelineDto | null;

  @ApiProperty({ type: () => RenderEstimateDto, nullable: true })
  estimate: RenderEstimateDto | null;
}

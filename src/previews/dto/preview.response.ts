import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ViolationDto } from '../../jobs/dto/job.response';
import { ApiInteger, ApiNullable } from '../../common/openapi/fields';

@ApiSchema({ name: 'SubmitError' })
export class SubmitErrorDto {
  @ApiInteger({ example: 402 })
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
  @ApiInteger()
  index: number;

  @ApiNullable('string')
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

  @ApiPropertyOptional({ type: 'number', nullable: true, description: 'Text with font_size "auto" only: the size in px the render is expected to choose (estimated without drawing; the render measures the glyphs)' })
  font_size?: number | null;
}

@ApiSchema({ name: 'Timeline' })
export class TimelineDto {
  @ApiInteger()
  width: number;

  @ApiInteger()
  height: number;

  @ApiProperty()
  frame_rate: number;

  @ApiProperty({ description: 'Seconds' })
  duration: number;

  @ApiInteger()
  frame_count: number;

  @ApiProperty({ type: [TimelineElementDto] })
  elements: TimelineElementDto[];
}

@ApiSchema({ name: 'RenderEstimate' })
export class RenderEstimateDto {
  @ApiProperty({ description: 'Billed render minutes' })
  render_minutes: number;

  @ApiInteger()
  frames: number;

  @ApiInteger()
  pixels_per_frame: number;

  @ApiInteger()
  pixel_frames: number;

  @ApiProperty()
  media_seconds: number;
}

@ApiSchema({ name: 'SourceProblem' })
export class SourceProblemDto {
  @ApiProperty({ example: 'source_not_found' })
  code: string;

  @ApiProperty()
  message: string;
}

@ApiSchema({ name: 'DryRunSource' })
export class DryRunSourceDto {
  @ApiProperty({ description: 'JSON Pointer of the field naming the source', example: '/elements/0/source_url' })
  pointer: string;

  @ApiProperty()
  url: string;

  @ApiProperty({ enum: ['video', 'audio', 'image', 'background', 'watermark', 'lut', 'font'] })
  kind: string;

  @ApiProperty({
    enum: ['ok', 'failed', 'not_checked'],
    description: "`ok`/`failed`: the submit's check of this source ran (`failed`: `error` says why); `not_checked`: it did not (`note` says why)",
  })
  status: 'ok' | 'failed' | 'not_checked';

  @ApiProperty({ type: () => SourceProblemDto, nullable: true, description: "What a submit refuses, or what the render would fail with (`codec_unsupported`)" })
  error: SourceProblemDto | null;

  @ApiProperty({ description: 'Its length and size are in `media`, as the render will measure them' })
  measured: boolean;

  @ApiNullable('string', { description: 'Why it was not checked or not measured' })
  note: string | null;
}

@ApiSchema({ name: 'MeasuredMedia' })
export class MeasuredMediaDto {
  @ApiPropertyOptional({ description: 'Seconds (video and audio)' })
  duration?: number;

  @ApiPropertyOptional({ type: 'integer' })
  width?: number;

  @ApiPropertyOptional({ type: 'integer' })
  height?: number;

  @ApiPropertyOptional()
  has_video?: boolean;

  @ApiPropertyOptional()
  has_audio?: boolean;
}

/** `preview.mode: dry_run`: every check of a submit, reported; nothing stored. */
@ApiSchema({ name: 'DryRun' })
export class DryRunDto {
  @ApiProperty({ enum: ['dry_run'] })
  mode: 'dry_run';

  @ApiProperty({
    description:
      'True when a submit would be accepted, no finding is an error and no checked source would fail the render. It says nothing of a source not checked: see `sources_checked`',
  })
  ok: boolean;

  @ApiProperty({ type: () => SubmitErrorDto, nullable: true, description: 'What a submit of the same body would answer instead of 202' })
  submit_error: SubmitErrorDto | null;

  @ApiProperty({ type: [ViolationDto], description: 'Every finding, never truncated' })
  violations: ViolationDto[];

  @ApiProperty({ type: () => TimelineDto, nullable: true })
  timeline: TimelineDto | null;

  @ApiProperty({ type: () => RenderEstimateDto, nullable: true })
  estimate: RenderEstimateDto | null;

  @ApiProperty({ type: [String], example: ['Lobster'], description: 'Google Fonts families the render would fetch first (not in storage yet); a render of cached families never waits on the network' })
  fonts_to_fetch: string[];

  @ApiProperty({
    enum: ['all', 'some', 'none'],
    description:
      'Whether every source was checked as a submit checks it. Without `check_sources` the checks get a few seconds (the rest are `not_checked`, and kept for the next dry run); `check_sources: true` waits for all; `false` checks none',
  })
  sources_checked: 'all' | 'some' | 'none';

  @ApiProperty({ type: [DryRunSourceDto], description: 'Every distinct source URL of the request, in request order' })
  sources: DryRunSourceDto[];

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/MeasuredMedia' },
    description: "Source URL → length, size and streams as the render will measure them (the files downloaded and probed): `playerPropsFor(request, media)` makes a Player as long as the render",
  })
  media: Record<string, MeasuredMediaDto>;
}

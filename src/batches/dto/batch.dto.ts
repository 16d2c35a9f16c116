import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsText } from '../../common/validation/is-text.validator';
import { HTTP_URL_PATTERN } from '../../common/openapi/url-pattern';
import { IsHttpUrl, URL_MAX_LENGTH } from '../../common/validation/http-url.validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { PageDto } from '../../common/openapi/page.dto';
import { JobPageDto } from '../../jobs/dto/job.response';
import { BATCH_LIMITS } from '../batch-rows';
import { ApiId, ApiNullable, ApiTimestamp, ApiTimestampOrNull } from '../../common/openapi/fields';

/** The JSON body of POST /v1/projects/{id}/batches (a CSV body gives the same options as query parameters). */
@ApiSchema({ name: 'BatchRequest' })
export class BatchRequestDto {
  @ApiProperty({
    description: `One object of variable values (name → string) per render, over the project defaults; at most ${BATCH_LIMITS.rows}`,
    type: 'array',
    maxItems: BATCH_LIMITS.rows,
    items: { type: 'object', additionalProperties: { type: 'string' } },
  })
  rows: Record<string, string>[];

  @ApiPropertyOptional({ description: 'File name template of each row\'s output, without extension: its variables and {{row}} (from 1), e.g. "{{name}}-{{row}}"', maxLength: 200 })
  output_filename?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Stored on the batch and on every row\'s render' })
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({
    description: 'Receives every row\'s render events and `batch.completed` (instead of the workspace webhooks): https (plain http only where the deployment allows it), a public address',
    minLength: 1,
    maxLength: URL_MAX_LENGTH,
    // WebhooksService.assertJobWebhookUrl checks the rest (https, a public address).
    format: 'uri',
    pattern: HTTP_URL_PATTERN,
  })
  webhook_url?: string;

  @ApiPropertyOptional({ description: 'false: every row renders, even when an earlier stored render or another row of the batch is identical (default: identical ones render once)' })
  reuse?: boolean;
}

/** Options of a CSV batch, which has no JSON body to carry them. */
export class BatchCsvQueryDto {
  @ApiPropertyOptional({ description: 'CSV bodies: as `output_filename` of the JSON body', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  output_filename?: string;

  @ApiPropertyOptional({ description: 'CSV bodies: as `webhook_url` of the JSON body', format: 'uri', pattern: HTTP_URL_PATTERN })
  @IsOptional()
  @IsText(URL_MAX_LENGTH)
  @IsHttpUrl()
  webhook_url?: string;

  @ApiPropertyOptional({ description: 'CSV bodies: as `reuse` of the JSON body', enum: ['true', 'false'] })
  @IsOptional()
  @IsIn(['true', 'false'])
  reuse?: 'true' | 'false';
}

export class ListBatchesDto extends PageQueryDto {}

@ApiSchema({ name: 'BatchCounts' })
export class BatchCountsDto {
  @ApiProperty({ description: 'Waiting for a worker (or for their sources to be copied)' })
  queued: number;

  @ApiProperty()
  processing: number;

  @ApiProperty()
  completed: number;

  @ApiProperty()
  failed: number;

  @ApiProperty()
  cancelled: number;
}

@ApiSchema({ name: 'Batch' })
export class BatchDto {
  @ApiId('batch')
  id: string;

  @ApiId('proj')
  project_id: string;

  @ApiProperty({ description: 'The project version every row rendered' })
  project_version: number;

  @ApiProperty({ enum: ['queued', 'processing', 'completed', 'cancelled'], description: '`completed` (or `cancelled`) once every row has ended' })
  status: string;

  @ApiProperty()
  row_count: number;

  @ApiProperty({ type: BatchCountsDto, description: 'Rows per state' })
  counts: BatchCountsDto;

  @ApiProperty({ minimum: 0, maximum: 100, description: 'Share of rows that have ended' })
  progress_percent: number;

  @ApiNullable('string')
  output_filename: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata: Record<string, unknown>;

  @ApiNullable('string')
  webhook_url: string | null;

  @ApiTimestamp()
  created_at: string;

  @ApiTimestamp()
  updated_at: string;

  @ApiTimestampOrNull()
  cancelled_at: string | null;

  @ApiTimestampOrNull('When the last row ended (`batch.completed`)')
  completed_at: string | null;
}

export const BatchPageDto = PageDto(BatchDto, 'BatchPage');

@ApiSchema({ name: 'BatchWithRenders' })
export class BatchWithRendersDto extends BatchDto {
  @ApiProperty({ type: () => JobPageDto, description: 'Its renders in row order, paged by `limit` and `cursor`' })
  renders: unknown;
}

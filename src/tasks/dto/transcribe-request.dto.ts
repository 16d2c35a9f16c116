import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { REQUEST_LIMITS } from '../../../composition/src/schema';
import { IsHttpUrl, URL_MAX_LENGTH } from '../../common/validation/http-url.validator';
import { IsMetadata } from '../../common/validation/metadata.validator';
import { RequiresSibling } from '../../common/validation/requires-sibling.validator';
import { OptionalFlag } from '../../common/validation/optional-fields';

/** Fields every task body has. */
export class TaskRequestDto {
  @ApiProperty({ description: 'Public URL of the media, or the `source_url` of an upload', format: 'uri', minLength: 1, maxLength: URL_MAX_LENGTH })
  @IsString()
  @IsHttpUrl()
  source_url: string;

  @ApiPropertyOptional({
    description: `Caller key-value pairs, echoed on every response and webhook; at most ${REQUEST_LIMITS.metadata_bytes} bytes as JSON, nested at most ${REQUEST_LIMITS.metadata_depth} deep`,
    type: 'object',
    additionalProperties: true,
  })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Receives task.completed, task.failed and task.progress for this job only', nullable: true, format: 'uri', minLength: 1, maxLength: URL_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @IsHttpUrl()
  webhook_url?: string | null;
}

export class TranscribeRequestDto extends TaskRequestDto {
  @ApiPropertyOptional({ description: 'BCP-47 language of the speech, e.g. en-US; omitted: detected by engines that can, else their one language', example: 'en-US' })
  @IsOptional()
  @IsString()
  @MaxLength(35)
  @Matches(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, { message: 'language_code must be a BCP-47 code such as en-US' })
  language_code?: string;

  @OptionalFlag({ description: 'Label each word and utterance with its speaker (A, B, …)', default: false })
  speaker_labels?: boolean;

  @ApiPropertyOptional({ description: 'How many speakers there are, when known; needs speaker_labels', minimum: 1, maximum: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10)
  @RequiresSibling('speaker_labels', true)
  speakers_expected?: number;

  @OptionalFlag({ description: 'Punctuation and casing; omitted: the engine default (GET /v1/capabilities)' })
  punctuate?: boolean;

  @OptionalFlag({ description: 'Adds `key_phrases`: the most telling noun phrases, with when each was said', default: false })
  key_phrases?: boolean;

  @OptionalFlag({ description: 'Adds `sentiment`: POSITIVE/NEUTRAL/NEGATIVE per sentence', default: false })
  sentiment?: boolean;

  @OptionalFlag({ description: 'Adds `entities`: people, places, organisations, dates, amounts…', default: false })
  entities?: boolean;

  @OptionalFlag({ description: 'Adds `chapters`: topic segments with gist, headline and summary', default: false })
  chapters?: boolean;

  @OptionalFlag({ description: 'Adds `summary`: the most central sentences', default: false })
  summary?: boolean;
}

export class RemoveBackgroundRequestDto extends TaskRequestDto {
  @OptionalFlag({ description: 'true: PNG/WebM with alpha; false: a white background', default: true })
  output_alpha?: boolean;
}

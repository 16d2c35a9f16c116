import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { CAPTION_DEFAULTS } from '../../../composition/src/schema';

export const CAPTION_FORMATS = ['srt', 'vtt'] as const;
export type CaptionFormat = (typeof CAPTION_FORMATS)[number];

/** `GET /v1/tasks/{id}/captions`: the format, and the line breaking of a text element's `transcript`. */
export class CaptionsQueryDto {
  @ApiProperty({ enum: CAPTION_FORMATS })
  @IsIn(CAPTION_FORMATS)
  format: CaptionFormat;

  @ApiPropertyOptional({ minimum: 1, maximum: 50, default: CAPTION_DEFAULTS.maxWords, description: 'Words per caption line' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(50)
  max_words?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 500, default: CAPTION_DEFAULTS.maxChars, description: 'Characters per caption line' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  max_chars?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 10, default: CAPTION_DEFAULTS.maxLines, description: 'Lines per caption' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10)
  max_lines?: number;
}

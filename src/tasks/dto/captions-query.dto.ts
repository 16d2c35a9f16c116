import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { CAPTION_DEFAULTS } from '../../../composition/src/schema';
import { OptionalQueryInt } from '../../common/validation/optional-fields';

export const CAPTION_FORMATS = ['srt', 'vtt'] as const;
export type CaptionFormat = (typeof CAPTION_FORMATS)[number];

/** `GET /v1/tasks/{id}/captions`: the format, and the line breaking of a text element's `transcript`. */
export class CaptionsQueryDto {
  @ApiProperty({ enum: CAPTION_FORMATS })
  @IsIn(CAPTION_FORMATS)
  format: CaptionFormat;

  @OptionalQueryInt(1, 50, { default: CAPTION_DEFAULTS.maxWords, description: 'Words per caption line' })
  max_words?: number;

  @OptionalQueryInt(1, 500, { default: CAPTION_DEFAULTS.maxChars, description: 'Characters per caption line' })
  max_chars?: number;

  @OptionalQueryInt(1, 10, { default: CAPTION_DEFAULTS.maxLines, description: 'Lines per caption' })
  max_lines?: number;
}

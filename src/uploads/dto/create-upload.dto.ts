import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNumber, IsOptional, IsPositive, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsText } from '../../common/validation/is-text.validator';

/** `text` matched in any case, written out so the OpenAPI `pattern` (which has no flags) says the same. */
const anyCase = (text: string) => [...text].map((c) => (/[a-z]/.test(c) ? `[${c.toUpperCase()}${c}]` : c.replace(/\./g, '\\.'))).join('');

/**
 * CONTENT_TYPE_PATTERN with the type's first part one of the media assetKindOf takes, `font/`, or
 * an `application/` type fonts are served with (any case): one pattern, so the OpenAPI document can
 * state it as one `pattern`, and it takes exactly what uploadKindOf takes. `application/octet-stream`
 * is not among them: whether it is a font would depend on the filename, which no pattern can say.
 */
const UPLOAD_CONTENT_TYPE_PATTERN = new RegExp(
  `^(?:(?:${['video', 'audio', 'image', 'font'].map(anyCase).join('|')})/[A-Za-z0-9][\\w!#$&^.+-]*` +
    `|${anyCase('application')}/(?:${anyCase('font-')}|${anyCase('x-font-')})[A-Za-z0-9][\\w!#$&^.+-]*` +
    `|${anyCase('application')}/${anyCase('vnd.ms-opentype')})(\\s*;[\\x20-\\x7e]*)?$`,
);

export class CreateUploadDto {
  @ApiProperty({
    description:
      'MIME type of the file: video/…, audio/…, image/…, or a font (font/ttf, font/otf, font/woff, font/woff2, application/font-…, application/vnd.ms-opentype); the PUT must send exactly this Content-Type',
    example: 'video/mp4',
  })
  @IsString()
  @MinLength(3)
  @MaxLength(255)
  @Matches(UPLOAD_CONTENT_TYPE_PATTERN, { message: 'content_type must be a video/…, audio/…, image/… or font MIME type such as video/mp4 or font/woff2' })
  content_type: string;

  @ApiPropertyOptional({ description: 'Sets the stored extension and the asset display name', example: 'intro.mp4', maxLength: 255 })
  @IsOptional()
  @IsText(255)
  // eslint-disable-next-line no-control-regex -- the pattern exists to refuse control characters
  @Matches(/^[^\x00-\x1f\x7f]+$/, { message: 'filename must not contain control characters' })
  filename?: string;

  @ApiPropertyOptional({
    description:
      "The file's exact size in bytes. Above the upload limit the slot is refused (422 `source_too_large`); on S3 storage the upload URL then accepts exactly this many bytes",
    type: 'integer',
    minimum: 1,
    example: 1048576,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  size_bytes?: number;

  @ApiPropertyOptional({ description: 'Seconds, as probed by the client (video and audio only): the asset is listed at once; the server probe overrides it' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive({ message: 'duration must be greater than 0' })
  @Max(24 * 3600)
  duration?: number;

  @ApiPropertyOptional({ description: 'Pixels, as probed by the client (video or image)' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(16384)
  width?: number;

  @ApiPropertyOptional({ description: 'Pixels, as probed by the client (video or image)' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(16384)
  height?: number;
}

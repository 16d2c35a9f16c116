import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { PageDto } from '../../common/openapi/page.dto';
import { ApiId, ApiNullable, ApiTimestamp } from '../../common/openapi/fields';

@ApiSchema({ name: 'BrandPalette' })
export class BrandPaletteDto {
  @ApiPropertyOptional({ example: '#1a73e8' })
  primary?: string;

  @ApiPropertyOptional()
  secondary?: string;

  @ApiPropertyOptional()
  accent?: string;

  @ApiPropertyOptional({ description: 'Background' })
  bg?: string;

  @ApiPropertyOptional({ description: 'Text colour' })
  ink?: string;
}

@ApiSchema({ name: 'BrandFontFile' })
export class BrandFontFileResponseDto {
  @ApiProperty({ example: 'Acme Sans' })
  family: string;

  @ApiProperty({ description: "The uploaded font's `source_url`" })
  source_url: string;

  @ApiPropertyOptional({ type: 'integer', example: 400 })
  weight?: number;

  @ApiPropertyOptional({ enum: ['normal', 'italic'] })
  style?: string;
}

@ApiSchema({ name: 'BrandFonts' })
export class BrandFontsDto {
  @ApiPropertyOptional({ description: 'The font (family or CSS stack) the page uses; templates get its first family of `files`, shipped or Google Fonts, else the nearest shipped one', example: 'Montserrat' })
  heading?: string;

  @ApiPropertyOptional({ example: 'Inter' })
  body?: string;

  @ApiPropertyOptional({ type: () => [BrandFontFileResponseDto], description: 'Uploaded font files (set with PATCH); a render naming the kit registers them in its `fonts`' })
  files?: BrandFontFileResponseDto[];
}

@ApiSchema({ name: 'BrandKitError' })
export class BrandKitErrorDto {
  @ApiProperty({ example: 'source_not_found' })
  code: string;

  @ApiProperty()
  message: string;
}

/** A field not confidently extracted is absent. */
@ApiSchema({ name: 'BrandKit' })
export class BrandKitDto {
  @ApiId('bk')
  id: string;

  @ApiProperty()
  workspace_id: string;

  @ApiNullable('string')
  name: string | null;

  @ApiProperty({ enum: ['extracting', 'ready', 'failed'] })
  status: string;

  @ApiTimestamp()
  created_at: string;

  @ApiTimestamp()
  updated_at: string;

  @ApiProperty({ example: 'https://example.com' })
  source_url: string;

  @ApiProperty({ type: () => BrandPaletteDto })
  palette: BrandPaletteDto;

  @ApiProperty({ type: () => BrandFontsDto })
  fonts: BrandFontsDto;

  @ApiNullable('string')
  logo_url: string | null;

  @ApiProperty({ enum: ['sharp', 'soft', 'pill'], nullable: true })
  corner_feel: string | null;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'number', minimum: 0, maximum: 1 }, description: 'Per-field scores 0–1, keyed like `palette.primary`' })
  confidence: Record<string, number>;

  @ApiProperty({ type: () => BrandKitErrorDto, nullable: true })
  error: BrandKitErrorDto | null;
}

export const BrandKitPageDto = PageDto(BrandKitDto, 'BrandKitPage');

import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDivisibleBy, IsIn, IsInt, IsObject, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { IsText } from '../../common/validation/is-text.validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { IsHttpUrl, URL_MAX_LENGTH } from '../../common/validation/http-url.validator';

/** Font files a kit may hold (a render's `fonts` takes 20 in all). */
export const BRAND_FONT_FILES_MAX = 8;

export class CreateBrandKitDto {
  @ApiProperty({ description: 'http(s) page to extract the brand from', example: 'https://example.com', maxLength: URL_MAX_LENGTH })
  @IsText(URL_MAX_LENGTH)
  @IsHttpUrl()
  url: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsText(200)
  name?: string;
}

export class ListBrandKitsDto extends PageQueryDto {}

@ApiSchema({ name: 'BrandFontFileInput' })
export class BrandFontFileDto {
  @ApiPropertyOptional({ description: 'The name text elements use; omitted: the family name inside the file', maxLength: 100, example: 'Acme Sans' })
  @IsOptional()
  @IsText(100)
  family?: string;

  @ApiProperty({ description: "An uploaded font's `source_url` (POST /v1/uploads with a font content_type), of this workspace", maxLength: URL_MAX_LENGTH })
  @IsText(URL_MAX_LENGTH)
  source_url: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 100, maximum: 900, multipleOf: 100, default: 400 })
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(900)
  @IsDivisibleBy(100)
  weight?: number;

  @ApiPropertyOptional({ enum: ['normal', 'italic'], default: 'normal' })
  @IsOptional()
  @IsIn(['normal', 'italic'])
  style?: 'normal' | 'italic';
}

@ApiSchema({ name: 'BrandFontsInput' })
export class BrandFontsInputDto {
  @ApiPropertyOptional({ description: 'Family (or CSS stack) for {{brand.fonts.heading}}: one of `files`, a shipped or a Google Fonts family', maxLength: 200, example: 'Acme Sans' })
  @IsOptional()
  @IsText(200)
  heading?: string;

  @ApiPropertyOptional({ description: 'Family (or CSS stack) for {{brand.fonts.body}}', maxLength: 200, example: 'Inter' })
  @IsOptional()
  @IsText(200)
  body?: string;

  @ApiPropertyOptional({ type: () => [BrandFontFileDto], maxItems: BRAND_FONT_FILES_MAX, description: "Uploaded font files; a render naming the kit registers them in its `fonts`" })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(BRAND_FONT_FILES_MAX)
  @ValidateNested({ each: true })
  @Type(() => BrandFontFileDto)
  files?: BrandFontFileDto[];
}

export class UpdateBrandKitDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsText(200)
  name?: string;

  @ApiPropertyOptional({ type: () => BrandFontsInputDto, description: "Replaces the kit's fonts (heading, body and files) as a whole" })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => BrandFontsInputDto)
  fonts?: BrandFontsInputDto;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { IsHttpUrl, URL_MAX_LENGTH } from '../../common/validation/http-url.validator';

export class CreateBrandKitDto {
  @ApiProperty({ description: 'http(s) page to extract the brand from', example: 'https://example.com', maxLength: URL_MAX_LENGTH })
  @IsString()
  @MinLength(1)
  @MaxLength(URL_MAX_LENGTH)
  @IsHttpUrl()
  url: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;
}

export class ListBrandKitsDto extends PageQueryDto {}

import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { IsHttpUrl, URL_MAX_LENGTH } from '../../common/validation/http-url.validator';

export class ImportAssetDto {
  @ApiProperty({
    description: 'Public http(s) URL of a video, audio or image file; fetched by the service under its network rules (no private addresses)',
    example: 'https://example.com/intro.mp4',
    format: 'uri',
    minLength: 1,
    maxLength: URL_MAX_LENGTH,
  })
  @IsString()
  @IsHttpUrl()
  url: string;
}

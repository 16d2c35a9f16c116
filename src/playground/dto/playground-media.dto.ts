import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { IsHttpUrl } from '../../common/validation/http-url.validator';

export class PlaygroundMediaDto {
  @ApiProperty({ description: 'A source URL of the request being previewed (the render request URL rule)', example: 'https://example.com/clip.mp4' })
  @IsString()
  @IsHttpUrl()
  url!: string;
}

import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsText } from '../../common/validation/is-text.validator';

export class CreateApiKeyDto {
  @ApiPropertyOptional({ description: 'A label to tell keys apart', example: 'ci', maxLength: 100, default: 'api key' })
  @IsOptional()
  @IsText(100)
  name?: string;
}

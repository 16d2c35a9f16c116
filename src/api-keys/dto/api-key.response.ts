import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PageDto } from '../../common/openapi/page.dto';

@ApiSchema({ name: 'ApiKey' })
export class ApiKeyDto {
  @ApiProperty({ example: 'key_01JD8Z3N5Q7W9X2Y4A6B8C0D1E' })
  id: string;

  @ApiProperty({ example: 'ci' })
  name: string;

  @ApiProperty({ description: 'The first characters of the key, to recognise it', example: 'sk_3fK9aQ2b' })
  prefix: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Refreshed at most once a minute' })
  last_used_at: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  revoked_at: string | null;
}

/** A new key: the plaintext `key` is shown here only, never again. */
@ApiSchema({ name: 'CreatedApiKey' })
export class CreatedApiKeyDto {
  @ApiProperty({ example: 'key_01JD8Z3N5Q7W9X2Y4A6B8C0D1E' })
  id: string;

  @ApiProperty({ example: 'ci' })
  name: string;

  @ApiProperty({ example: 'sk_3fK9aQ2b' })
  prefix: string;

  @ApiProperty({ description: 'The key; send it as `Authorization: Bearer <key>`', example: 'sk_3fK9aQ2bX7mN1pL5vR8tY2wE4uI6oA0s' })
  key: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export const ApiKeyPageDto = PageDto(ApiKeyDto, 'ApiKeyPage');

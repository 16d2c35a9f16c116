import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PageDto } from '../../common/openapi/page.dto';
import { ApiId, ApiTimestamp, ApiTimestampOrNull } from '../../common/openapi/fields';

@ApiSchema({ name: 'ApiKey' })
export class ApiKeyDto {
  @ApiId('key')
  id: string;

  @ApiProperty({ example: 'ci' })
  name: string;

  @ApiProperty({ description: 'The first characters of the key, to recognise it', example: 'sk_3fK9aQ2b' })
  prefix: string;

  @ApiTimestamp()
  created_at: string;

  @ApiTimestampOrNull('Refreshed at most once a minute')
  last_used_at: string | null;

  @ApiTimestampOrNull()
  revoked_at: string | null;
}

/** A new key: the plaintext `key` is shown here only, never again. */
@ApiSchema({ name: 'CreatedApiKey' })
export class CreatedApiKeyDto {
  @ApiId('key')
  id: string;

  @ApiProperty({ example: 'ci' })
  name: string;

  @ApiProperty({ example: 'sk_3fK9aQ2b' })
  prefix: string;

  @ApiProperty({ description: 'The key; send it as `Authorization: Bearer <key>`', example: 'sk_3fK9aQ2bX7mN1pL5vR8tY2wE4uI6oA0s' })
  key: string;

  @ApiTimestamp()
  created_at: string;
}

export const ApiKeyPageDto = PageDto(ApiKeyDto, 'ApiKeyPage');

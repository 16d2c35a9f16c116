import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CreatedApiKeyDto } from '../../api-keys/dto/api-key.response';
import { WorkspaceDto } from '../../workspaces/dto/workspace.response';
import { ApiTimestamp } from '../../common/openapi/fields';

@ApiSchema({ name: 'SignupVerification' })
export class SignupVerificationDto {
  @ApiProperty({ example: 'dev@example.com' })
  sent_to: string;

  @ApiTimestamp('When the emailed code expires')
  expires_at: string;
}

@ApiSchema({ name: 'SignupResult' })
export class SignupResultDto {
  @ApiProperty({ type: () => WorkspaceDto })
  workspace: WorkspaceDto;

  @ApiProperty({ type: () => CreatedApiKeyDto, description: 'Works once POST /v1/signup/verify accepted the emailed code' })
  api_key: CreatedApiKeyDto;

  @ApiProperty({ type: () => SignupVerificationDto })
  verification: SignupVerificationDto;
}

@ApiSchema({ name: 'AuthSyncResult' })
export class AuthSyncResultDto {
  @ApiProperty({ type: () => WorkspaceDto })
  workspace: WorkspaceDto;

  @ApiProperty({ type: () => CreatedApiKeyDto, nullable: true, description: 'A new key on the first login only' })
  api_key: CreatedApiKeyDto | null;

  @ApiProperty({ description: 'Whether this login created the workspace' })
  created: boolean;
}

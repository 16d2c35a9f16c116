import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsText } from '../../common/validation/is-text.validator';
import { ApiObjectRules } from '../../common/openapi/api-docs.decorators';
import { OptionalFlag } from '../../common/validation/optional-fields';

// WorkspacesService refuses an empty body (nothing to change).
@ApiObjectRules({ minProperties: 1 })
export class UpdateWorkspaceDto {
  @ApiPropertyOptional({ description: 'Display name', example: 'Acme video', minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsText(100)
  name?: string;

  @OptionalFlag({ description: 'Default of `ingest_external` for renders that omit it (initially true)' })
  ingest_external?: boolean;
}

import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { ApiObjectRules } from '../../common/openapi/api-docs.decorators';

// WorkspacesService refuses an empty body (nothing to change).
@ApiObjectRules({ minProperties: 1 })
export class UpdateWorkspaceDto {
  @ApiPropertyOptional({ description: 'Display name', example: 'Acme video', minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Default of `ingest_external` for renders that omit it (initially true)' })
  @IsOptional()
  @IsBoolean()
  ingest_external?: boolean;
}

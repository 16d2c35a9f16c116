import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsInt, IsObject, IsOptional, Min } from 'class-validator';
import { IsText } from '../../common/validation/is-text.validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { VARIABLE_NAME_PATTERN } from '../../../composition/src/schema';
import { PROJECT_LIMITS } from '../project-template';

/** What parseVariables takes: names as in {{name}}, none of them brand.…, string values. */
const VARIABLES_SCHEMA = {
  type: 'object',
  propertyNames: { pattern: VARIABLE_NAME_PATTERN.source, not: { pattern: '^brand(?:\\.|$)' } },
  maxProperties: PROJECT_LIMITS.variables,
  additionalProperties: { type: 'string', maxLength: PROJECT_LIMITS.variable_value_length },
} as const;

export class CreateProjectDto {
  @ApiProperty({ minLength: 1, maxLength: PROJECT_LIMITS.name_length })
  @IsText(PROJECT_LIMITS.name_length)
  name: string;

  @ApiProperty({
    description: 'A render request (POST /v1/renders body); strings may hold {{variable}} placeholders',
    allOf: [{ $ref: '#/components/schemas/RenderRequest' }],
  })
  @IsObject()
  render_request: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Default values of the placeholders: name → string', ...VARIABLES_SCHEMA })
  @IsOptional()
  @IsObject()
  variables?: Record<string, unknown>;
}

export class ProjectOpsDto {
  @ApiPropertyOptional({ description: 'The version these ops were written against; another current version is 409' })
  @IsOptional()
  @IsInt()
  @Min(1)
  base_version?: number;

  @ApiProperty({ description: 'RFC 6902 JSON Patch operations on the render request, applied all or nothing', type: 'array', items: { type: 'object' } })
  // Checked op by op by the service, which can point at the offending op.
  @IsDefined()
  ops: unknown;
}

export class ProjectRenderDto {
  @ApiPropertyOptional({ description: 'Values for this render, over the project defaults', ...VARIABLES_SCHEMA })
  @IsOptional()
  @IsObject()
  variables?: Record<string, unknown>;
}

export class GetProjectQueryDto {
  @ApiPropertyOptional({ enum: ['summary', 'full'], default: 'summary' })
  @IsOptional()
  @IsIn(['summary', 'full'])
  view?: 'summary' | 'full';
}

export class ListProjectsDto extends PageQueryDto {}

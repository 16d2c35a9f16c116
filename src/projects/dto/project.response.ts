import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { PageDto } from '../../common/openapi/page.dto';
import { ApiId, ApiInteger, ApiNullable, ApiTimestamp } from '../../common/openapi/fields';

@ApiSchema({ name: 'ProjectElementSummary' })
export class ProjectElementSummaryDto {
  @ApiNullable('string', { example: 'text' })
  type: string | null;

  @ApiNullable('string')
  id: string | null;

  @ApiProperty({ oneOf: [{ type: 'number' }, { type: 'string' }], description: 'As written in the request (seconds or a relative time)' })
  time: number | string;

  @ApiProperty({ oneOf: [{ type: 'number' }, { type: 'string' }], nullable: true })
  duration: number | string | null;

  @ApiNullable('string', { description: 'The element name, else its text (cut to 80 characters)' })
  label: string | null;

  @ApiNullable('string')
  source: string | null;
}

@ApiSchema({ name: 'ProjectSummary' })
export class ProjectSummaryDto {
  @ApiNullable('integer')
  width: number | null;

  @ApiNullable('integer')
  height: number | null;

  @ApiNullable('number', { description: 'Seconds, when the request or its elements say so' })
  duration: number | null;

  @ApiProperty()
  frame_rate: number;

  @ApiProperty({ example: 'mp4' })
  output_format: string;

  @ApiInteger()
  element_count: number;

  @ApiInteger()
  transition_count: number;

  @ApiInteger()
  renders_count: number;

  @ApiProperty({ type: [ProjectElementSummaryDto] })
  elements: ProjectElementSummaryDto[];
}

@ApiSchema({ name: 'Project' })
export class ProjectDto {
  @ApiId('proj')
  id: string;

  @ApiProperty({ example: 'Weekly promo' })
  name: string;

  @ApiInteger({ minimum: 1, description: 'Bumped by each ops call' })
  version: number;

  @ApiProperty()
  workspace_id: string;

  @ApiTimestamp()
  created_at: string;

  @ApiTimestamp()
  updated_at: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'Default values of the placeholders' })
  variables: Record<string, string>;

  @ApiProperty({ type: () => ProjectSummaryDto })
  summary: ProjectSummaryDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The stored render request (a RenderRequest whose strings may hold {{variable}} placeholders); only with view=full',
  })
  render_request?: Record<string, unknown>;
}

export const ProjectPageDto = PageDto(ProjectDto, 'ProjectPage');

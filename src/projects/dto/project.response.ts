import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { PageDto } from '../../common/openapi/page.dto';

@ApiSchema({ name: 'ProjectElementSummary' })
export class ProjectElementSummaryDto {
  @ApiProperty({ type: 'string', nullable: true, example: 'text' })
  type: string | null;

  @ApiProperty({ type: 'string', nullable: true })
  id: string | null;

  @ApiProperty({ oneOf: [{ type: 'number' }, { type: 'string' }], description: 'As written in the request (seconds or a relative time)' })
  time: number | string;

  @ApiProperty({ oneOf: [{ type: 'number' }, { type: 'string' }], nullable: true })
  duration: number | string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The element name, else its text (cut to 80 characters)' })
  label: string | null;

  @ApiProperty({ type: 'string', nullable: true })
  source: string | null;
}

@ApiSchema({ name: 'ProjectSummary' })
export class ProjectSummaryDto {
  @ApiProperty({ type: 'integer', nullable: true })
  width: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  height: number | null;

  @ApiProperty({ type: 'number', nullable: true, description: 'Seconds, when the request or its elements say so' })
  duration: number | null;

  @ApiProperty()
  frame_rate: number;

  @ApiProperty({ example: 'mp4' })
  output_format: string;

  @ApiProperty({ type: 'integer' })
  element_count: number;

  @ApiProperty({ type: 'integer' })
  transition_count: number;

  @ApiProperty({ type: 'integer' })
  renders_count: number;

  @ApiProperty({ type: [ProjectElementSummaryDto] })
  elements: ProjectElementSummaryDto[];
}

@ApiSchema({ name: 'Project' })
export class ProjectDto {
  @ApiProperty({ example: 'proj_01JD8Z3N5Q7W9X2Y4A6B8C0D1E' })
  id: string;

  @ApiProperty({ example: 'Weekly promo' })
  name: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Bumped by each ops call' })
  version: number;

  @ApiProperty()
  workspace_id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
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

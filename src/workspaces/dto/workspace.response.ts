import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ApiId, ApiInteger, ApiNullable, ApiTimestamp } from '../../common/openapi/fields';

@ApiSchema({ name: 'Workspace' })
export class WorkspaceDto {
  @ApiId('ws')
  id: string;

  @ApiProperty({ example: 'Acme videos' })
  name: string;

  @ApiNullable('string', { example: 'dev@example.com' })
  email: string | null;

  @ApiProperty()
  email_verified: boolean;

  @ApiProperty({ example: 'free' })
  plan: string;

  @ApiProperty({ description: 'Default of `ingest_external` for renders that omit it' })
  ingest_external: boolean;

  @ApiTimestamp()
  created_at: string;

  @ApiTimestamp()
  updated_at: string;
}

@ApiSchema({ name: 'UsagePeriod' })
export class UsagePeriodDto {
  @ApiTimestamp()
  start: string;

  @ApiTimestamp()
  end: string;
}

@ApiSchema({ name: 'UsagePlan' })
export class UsagePlanDto {
  @ApiProperty({ example: 'free' })
  name: string;

  @ApiNullable('number', { description: 'Render minutes a calendar month (UTC); null on a plan without a limit', example: 60 })
  render_minutes_limit: number | null;

  @ApiNullable('number', { description: 'Left this calendar month; null on a plan without a limit', example: 59.5 })
  render_minutes_remaining: number | null;
}

@ApiSchema({ name: 'Usage' })
export class UsageDto {
  @ApiProperty({ type: () => UsagePeriodDto })
  period: UsagePeriodDto;

  @ApiProperty({ example: 0.5 })
  render_minutes: number;

  @ApiInteger({ example: 3 })
  render_count: number;

  @ApiInteger({ example: 1 })
  task_count: number;

  @ApiInteger({ example: 0 })
  egress_bytes: number;

  @ApiProperty({ type: () => UsagePlanDto })
  plan: UsagePlanDto;
}

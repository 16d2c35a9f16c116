import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'Workspace' })
export class WorkspaceDto {
  @ApiProperty({ example: 'ws_01JD8Z3N5Q7W9X2Y4A6B8C0D1E' })
  id: string;

  @ApiProperty({ example: 'Acme videos' })
  name: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'dev@example.com' })
  email: string | null;

  @ApiProperty()
  email_verified: boolean;

  @ApiProperty({ example: 'free' })
  plan: string;

  @ApiProperty({ description: 'Default of `ingest_external` for renders that omit it' })
  ingest_external: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

@ApiSchema({ name: 'UsagePeriod' })
export class UsagePeriodDto {
  @ApiProperty({ format: 'date-time' })
  start: string;

  @ApiProperty({ format: 'date-time' })
  end: string;
}

@ApiSchema({ name: 'UsagePlan' })
export class UsagePlanDto {
  @ApiProperty({ example: 'free' })
  name: string;

  @ApiProperty({ type: 'number', nullable: true, description: 'Render minutes a calendar month (UTC); null on a plan without a limit', example: 60 })
  render_minutes_limit: number | null;

  @ApiProperty({ type: 'number', nullable: true, description: 'Left this calendar month; null on a plan without a limit', example: 59.5 })
  render_minutes_remaining: number | null;
}

@ApiSchema({ name: 'Usage' })
export class UsageDto {
  @ApiProperty({ type: () => UsagePeriodDto })
  period: UsagePeriodDto;

  @ApiProperty({ example: 0.5 })
  render_minutes: number;

  @ApiProperty({ type: 'integer', example: 3 })
  render_count: number;

  @ApiProperty({ type: 'integer', example: 1 })
  task_count: number;

  @ApiProperty({ type: 'integer', example: 0 })
  egress_bytes: number;

  @ApiProperty({ type: () => UsagePlanDto })
  plan: UsagePlanDto;
}

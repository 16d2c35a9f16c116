import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

export const USAGE_PERIODS = ['7d', '30d', '90d'] as const;

export class UsageQueryDto {
  @ApiPropertyOptional({
    enum: USAGE_PERIODS,
    description: 'Rolling window ending now; omitted means the current calendar-month billing period',
  })
  @IsOptional()
  @IsIn(USAGE_PERIODS)
  period?: (typeof USAGE_PERIODS)[number];
}

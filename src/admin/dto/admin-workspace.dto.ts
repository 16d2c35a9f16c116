import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsText } from '../../common/validation/is-text.validator';
import { PageQueryDto } from '../../common/pagination/pagination';
import { OptionalFlag } from '../../common/validation/optional-fields';

const PLAN_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export class AdminWorkspaceQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Workspaces whose email contains this text (case-insensitive)', maxLength: 254, example: '@example.com' })
  @IsOptional()
  @IsText(254)
  email?: string;

  @ApiPropertyOptional({ description: 'Workspaces on this plan', example: 'free', maxLength: 40 })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  plan?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Only suspended (true) or only active (false) workspaces' })
  @IsOptional()
  @IsIn(['true', 'false'])
  suspended?: 'true' | 'false';
}

export class CreateAdminWorkspaceDto {
  @ApiProperty({ example: 'Acme video', minLength: 1, maxLength: 100 })
  @IsText(100)
  name: string;

  @ApiProperty({ description: 'The owner\'s email, taken as verified (no mail is sent)', example: 'dev@example.com', maxLength: 254 })
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @ApiPropertyOptional({ description: 'A plan of GET /v1/admin/plans; default DEFAULT_PLAN', example: 'team', maxLength: 40 })
  @IsOptional()
  @IsString()
  @Matches(PLAN_NAME, { message: 'plan must be a plan name of GET /v1/admin/plans' })
  plan?: string;
}

export class UpdateAdminWorkspaceDto {
  @ApiPropertyOptional({ description: 'Move the workspace to this plan (GET /v1/admin/plans)', example: 'team', maxLength: 40 })
  @IsOptional()
  @IsString()
  @Matches(PLAN_NAME, { message: 'plan must be a plan name of GET /v1/admin/plans' })
  plan?: string;

  @OptionalFlag({
    description: "true: every key of the workspace is refused (403) from its next request and its queued jobs are cancelled; running ones finish. false: lifts it",
  })
  suspended?: boolean;

  @ApiPropertyOptional({ example: 'Acme video', minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsText(100)
  name?: string;
}

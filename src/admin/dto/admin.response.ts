import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CreatedApiKeyDto } from '../../api-keys/dto/api-key.response';
import { PageDto } from '../../common/openapi/page.dto';
import { UsageDto, WorkspaceDto } from '../../workspaces/dto/workspace.response';
import { ApiInteger, ApiTimestampOrNull } from '../../common/openapi/fields';

/** A workspace as the operator sees it: the owner's view plus its suspension. */
@ApiSchema({ name: 'AdminWorkspace' })
export class AdminWorkspaceDto extends WorkspaceDto {
  @ApiProperty({ description: 'Whether its keys are refused (403)' })
  suspended: boolean;

  @ApiTimestampOrNull()
  suspended_at: string | null;
}

@ApiSchema({ name: 'AdminWorkspaceDetail' })
export class AdminWorkspaceDetailDto extends AdminWorkspaceDto {
  @ApiProperty({ type: () => UsageDto, description: "This calendar month's usage against its plan" })
  usage: UsageDto;
}

export const AdminWorkspacePageDto = PageDto(AdminWorkspaceDto, 'AdminWorkspacePage');

@ApiSchema({ name: 'CreatedAdminWorkspace' })
export class CreatedAdminWorkspaceDto {
  @ApiProperty({ type: () => AdminWorkspaceDto })
  workspace: AdminWorkspaceDto;

  @ApiProperty({ type: () => CreatedApiKeyDto, description: 'Its first key, working at once; the plaintext is shown only here' })
  api_key: CreatedApiKeyDto;
}

const LIMIT = { type: 'number', nullable: true, minimum: 0 } as const;

@ApiSchema({ name: 'AdminPlanJobLimits' })
class AdminPlanJobLimitsDto {
  @ApiProperty(LIMIT) frames: number | null;
  @ApiProperty(LIMIT) pixels_per_frame: number | null;
  @ApiProperty(LIMIT) pixel_frames: number | null;
  @ApiProperty(LIMIT) elements: number | null;
  @ApiProperty(LIMIT) media_seconds: number | null;
}

@ApiSchema({ name: 'AdminPlanWorkspaceLimits' })
class AdminPlanWorkspaceLimitsDto {
  @ApiProperty(LIMIT) webhooks: number | null;
  @ApiProperty(LIMIT) api_keys: number | null;
  @ApiProperty(LIMIT) open_uploads: number | null;
  @ApiProperty(LIMIT) projects: number | null;
  @ApiProperty(LIMIT) brand_kits: number | null;
  @ApiProperty(LIMIT) concurrent_renders: number | null;
}

/** A plan with the limits of `limits.plans` in /v1/capabilities (null: unlimited). */
@ApiSchema({ name: 'AdminPlan' })
export class AdminPlanDto {
  @ApiProperty({ example: 'free' })
  name: string;

  @ApiProperty({ description: 'Whether new workspaces get it (DEFAULT_PLAN)' })
  default: boolean;

  @ApiProperty({ description: 'Always `free`: the built-in plan; the others come from PLANS_FILE' })
  built_in: boolean;

  @ApiInteger({ description: 'Workspaces on it now' })
  workspaces: number;

  @ApiProperty(LIMIT) render_minutes_per_month: number | null;
  @ApiProperty(LIMIT) transcribe_minutes_per_month: number | null;
  @ApiProperty({ type: () => AdminPlanJobLimitsDto }) job: AdminPlanJobLimitsDto;
  @ApiProperty({ type: () => AdminPlanWorkspaceLimitsDto }) workspace: AdminPlanWorkspaceLimitsDto;
}

@ApiSchema({ name: 'AdminPlanList' })
export class AdminPlanListDto {
  @ApiProperty({ example: 'free' })
  default_plan: string;

  @ApiProperty({ type: [AdminPlanDto] })
  data: AdminPlanDto[];
}

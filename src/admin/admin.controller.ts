import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/auth/decorators';
import { ADMIN_KEY_SCHEME, ApiErrors, ApiRoute } from '../common/openapi/api-docs.decorators';
import { PAGE_LIMIT } from '../common/pagination/pagination';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { AdminKeyGuard } from './admin-key.guard';
import { AdminService } from './admin.service';
import { AdminWorkspaceQueryDto, CreateAdminWorkspaceDto, UpdateAdminWorkspaceDto } from './dto/admin-workspace.dto';
import { AdminPlanListDto, AdminWorkspaceDetailDto, AdminWorkspaceDto, AdminWorkspacePageDto, CreatedAdminWorkspaceDto } from './dto/admin.response';

/**
 * The operator's API: workspaces and plans across the whole service. Not a workspace route
 * (@Public to the API-key guard): AdminKeyGuard takes ADMIN_API_KEY instead, and without it
 * configured every route here is 404. Each route has its own per-address rate limit, counted
 * before the key is checked, so guessing the key is slow too.
 */
@ApiTags('admin')
@ApiBearerAuth(ADMIN_KEY_SCHEME)
@ApiErrors(401, 404)
@Public()
@UseGuards(AdminKeyGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Get('workspaces')
  @RateLimit('admin')
  @ApiRoute({ summary: 'List workspaces, newest first', description: 'Filters: `email` (contains, case-insensitive), `plan`, `suspended`.', ok: [200, AdminWorkspacePageDto, 'A page of workspaces'], errors: [422] })
  list(@Query() query: AdminWorkspaceQueryDto) {
    return this.admin.list(query, query.limit ?? PAGE_LIMIT.default);
  }

  @Post('workspaces')
  @RateLimit('admin')
  @ApiRoute({
    summary: 'Create a verified workspace and its first key',
    description: 'No mail is sent; the key works at once and is shown only here. 409 when the email has a workspace.',
    ok: [201, CreatedAdminWorkspaceDto, 'The workspace and its key'],
    errors: [409, 413, 422],
  })
  create(@Body() body: CreateAdminWorkspaceDto) {
    return this.admin.create(body);
  }

  @Get('workspaces/:id')
  @RateLimit('admin')
  @ApiRoute({ summary: "A workspace with this calendar month's usage", ok: [200, AdminWorkspaceDetailDto, 'The workspace and its usage'] })
  get(@Param('id') id: string) {
    return this.admin.get(id);
  }

  @Patch('workspaces/:id')
  @RateLimit('admin')
  @ApiRoute({
    summary: 'Change plan, suspend or unsuspend, rename',
    description:
      "A new plan applies from each job's next check: queued renders are re-checked against it when a worker takes them. Suspending refuses the workspace's keys (403) from their next request and cancels its queued jobs (`error.code` workspace_suspended); running jobs finish.",
      ok: [200, AdminWorkspaceDto, 'The workspace as changed'],
      errors: [413, 422],
  })
  update(@Param('id') id: string, @Body() body: UpdateAdminWorkspaceDto) {
    return this.admin.update(id, body);
  }

  @Delete('workspaces/:id')
  @HttpCode(204)
  @RateLimit('admin')
  @ApiRoute({ summary: 'Delete a workspace and all its data, irreversibly', description: "The owner's delete: rows, running jobs and stored files go.", noContent: 'Deleted' })
  async remove(@Param('id') id: string): Promise<void> {
    await this.admin.remove(id);
  }

  @Get('plans')
  @RateLimit('admin')
  @ApiRoute({ summary: 'The plans (free and PLANS_FILE), the default, and how many workspaces are on each', ok: [200, AdminPlanListDto, 'The plans'] })
  plans() {
    return this.admin.listPlans();
  }
}

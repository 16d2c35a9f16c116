import { Body, Controller, Delete, Get, HttpCode, Patch, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiRoute } from '../common/openapi/api-docs.decorators';
import { UsageDto, WorkspaceDto } from './dto/workspace.response';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import { CurrentWorkspace } from '../common/auth/decorators';
import { UpdateWorkspaceDto } from './dto/update-workspace.dto';
import { UsageQueryDto } from './dto/usage-query.dto';
import { UsageService } from './usage.service';
import { Workspace } from './workspace.entity';
import { toWorkspaceView } from './workspace.view';
import { WorkspacesService } from './workspaces.service';

@ApiTags('workspace')
@ApiKeyAuth()
@Controller('v1/workspace')
export class WorkspacesController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly usage: UsageService,
  ) {}

  @Get()
  @ApiRoute({ summary: "The caller's workspace", ok: [200, WorkspaceDto, 'The workspace'] })
  get(@CurrentWorkspace() ws: Workspace) {
    return toWorkspaceView(ws);
  }

  @Patch()
  @ApiRoute({ summary: 'Rename the workspace or change its ingest_external default', ok: [200, WorkspaceDto, 'The updated workspace'], errors: [413, 422] })
  update(@CurrentWorkspace() ws: Workspace, @Body() body: UpdateWorkspaceDto) {
    return this.workspaces.update(ws, body);
  }

  @Delete()
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete the workspace and all its data, irreversibly', noContent: 'Deleted' })
  async remove(@CurrentWorkspace() ws: Workspace): Promise<void> {
    await this.workspaces.remove(ws);
  }

  @Get('usage')
  @ApiRoute({ summary: 'Render minutes, render and task counts, egress bytes over a period', ok: [200, UsageDto, 'Usage over the period'], errors: [422] })
  getUsage(@CurrentWorkspace() ws: Workspace, @Query() query: UsageQueryDto) {
    return this.usage.report(ws, query.period);
  }
}

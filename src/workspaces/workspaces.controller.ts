import { Body, Controller, Delete, Get, HttpCode, Patch, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
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
  @ApiOperation({ summary: "The caller's workspace" })
  get(@CurrentWorkspace() ws: Workspace) {
    return toWorkspaceView(ws);
  }

  @Patch()
  @ApiOperation({ summary: 'Rename the workspace or change its ingest_external default' })
  update(@CurrentWorkspace() ws: Workspace, @Body() body: UpdateWorkspaceDto) {
    return this.workspaces.update(ws, body);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete the workspace and all its data, irreversibly' })
  async remove(@CurrentWorkspace() ws: Workspace): Promise<void> {
    await this.workspaces.remove(ws);
  }

  @Get('usage')
  @ApiOperation({ summary: 'Render minutes, render and task counts, egress bytes over a period' })
  getUsage(@CurrentWorkspace() ws: Workspace, @Query() query: UsageQueryDto) {
    return this.usage.report(ws, query.period);
  }
}

import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import type { Response } from 'express';
import { CurrentWorkspace } from '../common/auth/decorators';
import { PAGE_LIMIT } from '../common/pagination/pagination';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { Workspace } from '../workspaces/workspace.entity';
import { CreateProjectDto, GetProjectQueryDto, ListProjectsDto, ProjectOpsDto, ProjectRenderDto } from './dto/project.dto';
import { ProjectsService } from './projects.service';

@ApiTags('projects')
@ApiKeyAuth()
@Controller('v1/projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Post()
  @ApiOperation({ summary: 'Store a render request (a template with {{variables}}) as a project at version 1' })
  create(@CurrentWorkspace() ws: Workspace, @Body() body: CreateProjectDto) {
    return this.projects.create(ws, body);
  }

  @Get()
  @ApiOperation({ summary: 'List projects, newest first (summary view)' })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListProjectsDto) {
    return this.projects.list(ws, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One project; `render_request` only with view=full' })
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Query() query: GetProjectQueryDto) {
    return this.projects.get(ws, id, query.view ?? 'summary');
  }

  @Post(':id/ops')
  @HttpCode(200)
  @ApiOperation({ summary: 'Apply RFC 6902 ops to the render request, all or nothing; bumps version; stale base_version is 409' })
  ops(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Body() body: ProjectOpsDto) {
    return this.projects.applyOps(ws, id, body);
  }

  @Post(':id/renders')
  @RateLimit('render_submit')
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Same key + same body replays the first response (200)' })
  @ApiOperation({ summary: "Render the project's current version with its variables; same response as POST /v1/renders" })
  async render(
    @CurrentWorkspace() ws: Workspace,
    @Param('id') id: string,
    @Body() body: ProjectRenderDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const outcome = await this.projects.render(ws, id, body, idempotencyKey);
    res.status(outcome.replayed ? 200 : 202);
    return outcome.body;
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete the project; its past renders stay and keep project_id' })
  remove(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.projects.remove(ws, id);
  }
}

import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiRoute, ApiSubmit } from '../common/openapi/api-docs.decorators';
import { submitAnswer } from '../common/idempotency/submit-answer';
import { SubmittedJobDto } from '../jobs/dto/job.response';
import { ProjectDto, ProjectPageDto } from './dto/project.response';
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
  @ApiRoute({ summary: 'Store a render request (a template with {{variables}}) as a project at version 1', ok: [201, ProjectDto, 'The project (summary view)'], errors: [402, 413, 422] })
  create(@CurrentWorkspace() ws: Workspace, @Body() body: CreateProjectDto) {
    return this.projects.create(ws, body);
  }

  @Get()
  @ApiRoute({ summary: 'List projects, newest first (summary view)', ok: [200, ProjectPageDto, 'A page of projects'], errors: [422] })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListProjectsDto) {
    return this.projects.list(ws, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Get(':id')
  @ApiRoute({ summary: 'One project; `render_request` only with view=full', ok: [200, ProjectDto, 'The project'], errors: [404, 422] })
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Query() query: GetProjectQueryDto) {
    return this.projects.get(ws, id, query.view ?? 'summary');
  }

  @Post(':id/ops')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Apply RFC 6902 ops to the render request',
    description: 'All or nothing; bumps version; a stale base_version is 409.',
    ok: [200, ProjectDto, 'The project at its new version'],
    errors: [404, 409, 413, 422],
  })
  ops(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Body() body: ProjectOpsDto) {
    return this.projects.applyOps(ws, id, body);
  }

  @Post(':id/renders')
  @RateLimit('render_submit')
  @ApiRoute({ summary: "Render the project's current version with its variables", description: 'Same response as POST /v1/renders.', errors: [402, 404, 409, 413, 422] })
  @ApiSubmit(SubmittedJobDto, 'The render is queued')
  async render(
    @CurrentWorkspace() ws: Workspace,
    @Param('id') id: string,
    @Body() body: ProjectRenderDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const outcome = await this.projects.render(ws, id, body, idempotencyKey);
    return submitAnswer(res, outcome);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiRoute({ summary: 'Delete the project; its past renders stay and keep project_id', noContent: 'Deleted', errors: [404] })
  remove(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.projects.remove(ws, id);
  }
}

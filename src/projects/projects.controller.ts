import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiNoContent, ApiOk, ApiSubmit } from '../common/openapi/api-docs.decorators';
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
  @ApiOperation({ summary: 'Store a render request (a template with {{variables}}) as a project at version 1' })
  @ApiOk(201, ProjectDto, 'The project (summary view)')
  @ApiErrors(402, 413, 422)
  create(@CurrentWorkspace() ws: Workspace, @Body() body: CreateProjectDto) {
    return this.projects.create(ws, body);
  }

  @Get()
  @ApiOperation({ summary: 'List projects, newest first (summary view)' })
  @ApiOk(200, ProjectPageDto, 'A page of projects')
  @ApiErrors(422)
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListProjectsDto) {
    return this.projects.list(ws, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One project; `render_request` only with view=full' })
  @ApiOk(200, ProjectDto, 'The project')
  @ApiErrors(404, 422)
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Query() query: GetProjectQueryDto) {
    return this.projects.get(ws, id, query.view ?? 'summary');
  }

  @Post(':id/ops')
  @HttpCode(200)
  @ApiOperation({ summary: 'Apply RFC 6902 ops to the render request', description: 'All or nothing; bumps version; a stale base_version is 409.' })
  @ApiOk(200, ProjectDto, 'The project at its new version')
  @ApiErrors(404, 409, 413, 422)
  ops(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Body() body: ProjectOpsDto) {
    return this.projects.applyOps(ws, id, body);
  }

  @Post(':id/renders')
  @RateLimit('render_submit')
  @ApiOperation({ summary: "Render the project's current version with its variables", description: 'Same response as POST /v1/renders.' })
  @ApiSubmit(SubmittedJobDto, 'The render is queued')
  @ApiErrors(402, 404, 409, 413, 422)
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
  @ApiOperation({ summary: 'Delete the project; its past renders stay and keep project_id' })
  @ApiNoContent('Deleted')
  @ApiErrors(404)
  remove(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.projects.remove(ws, id);
  }
}

import { PAGE_LIMIT } from '../common/pagination/pagination';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth, ApiRoute, ApiSubmit } from '../common/openapi/api-docs.decorators';
import { submitAnswer } from '../common/idempotency/submit-answer';
import { DownloadLinkDto, JobDto, JobPageDto, SubmittedJobDto } from '../jobs/dto/job.response';
import type { Response } from 'express';
import { schemaRef } from '../common/openapi/openapi-document';
import { CurrentWorkspace } from '../common/auth/decorators';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { Workspace } from '../workspaces/workspace.entity';
import { ListRendersDto } from './dto/list-renders.dto';
import { RendersService } from './renders.service';

@ApiTags('renders')
@ApiKeyAuth()
@Controller('v1/renders')
export class RendersController {
  constructor(private readonly renders: RendersService) {}

  @Post()
  @RateLimit('render_submit')
  @ApiBody({ schema: schemaRef('RenderRequest') })
  @ApiRoute({ summary: 'Submit a render', description: '202 with the queued job, `ok` and `violations`; a replay of an Idempotency-Key is a 200 with the first answer.', errors: [402, 409, 413, 422, 429] })
  @ApiSubmit(SubmittedJobDto, 'The render is queued (or ingesting its sources)')
  async submit(
    @CurrentWorkspace() ws: Workspace,
    @Body() body: Record<string, unknown>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const outcome = await this.renders.submit(ws, body, { idempotencyKey });
    return submitAnswer(res, outcome);
  }

  @Get()
  @ApiRoute({ summary: 'List renders, newest first (previews excluded)', ok: [200, JobPageDto, 'A page of render jobs'], errors: [422] })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListRendersDto) {
    return this.renders.list(ws, { ...query, limit: query.limit ?? PAGE_LIMIT.default });
  }

  @Get(':id')
  @ApiRoute({ summary: 'One render job', ok: [200, JobDto, 'The render job'], errors: [404] })
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.renders.get(ws, id);
  }

  @Get(':id/download')
  @ApiRoute({ summary: 'A short-lived signed URL of the artifact', ok: [200, DownloadLinkDto, 'Signed URL, valid 15 minutes'], errors: [404] })
  download(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.renders.download(ws, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiRoute({ summary: 'Cancel a queued or running render; 409 when already finished', ok: [200, JobDto, 'The cancelled job'], errors: [404, 409] })
  cancel(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.renders.cancel(ws, id);
  }
}

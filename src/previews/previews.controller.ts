import { Body, Controller, Headers, Post, Res } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiIdempotencyKey, ApiRoute } from '../common/openapi/api-docs.decorators';
import { SubmittedJobDto } from '../jobs/dto/job.response';
import { DryRunDto, MeasuredMediaDto } from './dto/preview.response';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import type { Response } from 'express';
import { schemaRef } from '../common/openapi/openapi-document';
import { CurrentWorkspace } from '../common/auth/decorators';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { Workspace } from '../workspaces/workspace.entity';
import { PreviewsService } from './previews.service';

@ApiTags('previews')
@ApiKeyAuth()
@ApiExtraModels(DryRunDto, MeasuredMediaDto, SubmittedJobDto)
@Controller('v1/preview')
export class PreviewsController {
  constructor(private readonly previews: PreviewsService) {}

  @Post()
  @RateLimit('preview')
  @ApiIdempotencyKey()
  @ApiBody({ schema: schemaRef('PreviewRequest') })
  @ApiRoute({
    summary: 'Preview a render, never metered',
    description:
      '`preview.mode` `dry_run`: 200 with `ok`, every violation (untruncated), the resolved timeline, the estimated render minutes, the error a submit would give (`submit_error`), which sources were checked (`sources_checked`, `sources`) and their measured lengths (`media`); nothing is stored. ' +
      '`frame`, `clip`, `contact_sheet`: 202 with an `is_preview` render job, followed with GET /v1/renders/{id} and its webhooks like any render; it never appears in GET /v1/renders.',
      ok: [202, SubmittedJobDto, 'The preview job is queued'],
      errors: [402, 409, 413, 422],
  })
  @ApiResponse({ status: 200, description: '`dry_run` findings, or the replay of a preview job submit', content: { 'application/json': { schema: { oneOf: [{ $ref: getSchemaPath(DryRunDto) }, { $ref: getSchemaPath(SubmittedJobDto) }] } } } })
  async preview(
    @CurrentWorkspace() ws: Workspace,
    @Body() body: Record<string, unknown>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const outcome = await this.previews.preview(ws, body, idempotencyKey);
    res.status(outcome.status);
    return outcome.body;
  }
}

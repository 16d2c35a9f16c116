import { Body, Controller, Headers, Post, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth } from '../common/openapi/api-docs.decorators';
import type { Response } from 'express';
import { schemaRef } from '../common/openapi/openapi-document';
import { CurrentWorkspace } from '../common/auth/decorators';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { Workspace } from '../workspaces/workspace.entity';
import { PreviewsService } from './previews.service';

@ApiTags('previews')
@ApiKeyAuth()
@Controller('v1/preview')
export class PreviewsController {
  constructor(private readonly previews: PreviewsService) {}

  @Post()
  @RateLimit('preview')
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Preview jobs: same key + same body replays the first response (200)' })
  @ApiBody({ schema: schemaRef('PreviewRequest') })
  @ApiOperation({
    summary: 'Preview a render, never metered',
    description:
      '`preview.mode` `dry_run`: 200 with `ok`, every violation (untruncated), the resolved timeline, the estimated render minutes and the error a submit would give (`submit_error`); nothing is stored. ' +
      '`frame`, `clip`, `contact_sheet`: 202 with an `is_preview` render job, followed with GET /v1/renders/{id} and its webhooks like any render; it never appears in GET /v1/renders.',
  })
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

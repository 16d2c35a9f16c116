import { PAGE_LIMIT } from '../common/pagination/pagination';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { requestJsonSchema } from '../../composition/src/schema';
import { CurrentWorkspace } from '../common/auth/decorators';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { Workspace } from '../workspaces/workspace.entity';
import { ListRendersDto } from './dto/list-renders.dto';
import { RendersService } from './renders.service';

@ApiTags('renders')
@ApiBearerAuth()
@Controller('v1/renders')
export class RendersController {
  constructor(private readonly renders: RendersService) {}

  @Post()
  @RateLimit('render_submit')
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Same key + same body replays the first response (200)' })
  @ApiBody({ schema: requestJsonSchema() as object })
  @ApiOperation({ summary: 'Submit a render; 202 with the queued job, `ok` and `violations`' })
  async submit(
    @CurrentWorkspace() ws: Workspace,
    @Body() body: Record<string, unknown>,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const outcome = await this.renders.submit(ws, body, { idempotencyKey });
    res.status(outcome.replayed ? 200 : 202);
    return outcome.body;
  }

  @Get()
  @ApiOperation({ summary: 'List renders, newest first (previews excluded)' })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListRendersDto) {
    return this.renders.list(ws, { ...query, limit: query.limit ?? PAGE_LIMIT.default });
  }

  @Get(':id')
  @ApiOperation({ summary: 'One render job' })
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.renders.get(ws, id);
  }

  @Get(':id/download')
  @ApiOperation({ summary: 'A short-lived signed URL of the artifact' })
  download(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.renders.download(ws, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a queued or running render; 409 when already finished' })
  cancel(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.renders.cancel(ws, id);
  }
}

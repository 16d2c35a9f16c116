import { Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentWorkspace } from '../common/auth/decorators';
import { ApiKeyAuth, ApiRoute, ApiSubmit } from '../common/openapi/api-docs.decorators';
import { submitAnswer } from '../common/idempotency/submit-answer';
import { PAGE_LIMIT } from '../common/pagination/pagination';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { Workspace } from '../workspaces/workspace.entity';
import { BatchEventStreamService } from './batch-event-stream.service';
import { csvBatchInput, jsonBatchInput } from './batch-input';
import { isCsvBatchUpload, readCsvBody } from './batch-rows';
import { BatchesService } from './batches.service';
import { BatchCsvQueryDto, BatchDto, BatchPageDto, BatchRequestDto, BatchWithRendersDto, ListBatchesDto } from './dto/batch.dto';

@ApiTags('batches')
@ApiKeyAuth()
@Controller('v1')
export class BatchesController {
  constructor(
    private readonly batches: BatchesService,
    private readonly stream: BatchEventStreamService,
  ) {}

  @Post('projects/:id/batches')
  @RateLimit('render_submit')
  @ApiConsumes('application/json', 'text/csv')
  @ApiBody({
    type: BatchRequestDto,
    description:
      'JSON rows, or a CSV (Content-Type: text/csv; UTF-8 with or without BOM, quoted fields, CRLF or LF): a header row of variable names, then one row per render; its options go in the query',
  })
  @ApiRoute({
    summary: "Render the project's current version once per row of variables",
    description:
      'Every row is checked before anything is queued (422 pointing at `/rows/N/…`; a CSV problem names its line and column); the whole estimate must fit the month (402). Each row becomes an ordinary render job with `batch_id` and `batch_row`.',
      errors: [402, 404, 409, 413, 422, 429],
  })
  @ApiSubmit(BatchDto, 'The batch; its rows are queued')
  async create(
    @CurrentWorkspace() ws: Workspace,
    @Param('id') projectId: string,
    @Query() query: BatchCsvQueryDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const input = isCsvBatchUpload(req) ? csvBatchInput(await readCsvBody(req), query) : jsonBatchInput(req.body, query);
    const outcome = await this.batches.create(ws, projectId, input, idempotencyKey);
    return submitAnswer(res, outcome);
  }

  @Get('batches')
  @ApiRoute({ summary: 'List batches, newest first', ok: [200, BatchPageDto, 'A page of batches'], errors: [422] })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListBatchesDto) {
    return this.batches.list(ws, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Get('batches/:id')
  @ApiRoute({ summary: 'One batch: rows per state, progress, and its renders in row order (paged by `limit` and `cursor`)', ok: [200, BatchWithRendersDto, 'The batch and a page of its renders'], errors: [404, 422] })
  async get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Query() query: ListBatchesDto) {
    const batch = await this.batches.get(ws, id);
    const renders = await this.batches.rendersPage(ws, id, query.limit ?? PAGE_LIMIT.default, query.cursor);
    return { ...batch, renders };
  }

  @Post('batches/:id/cancel')
  @HttpCode(200)
  @ApiRoute({ summary: 'Cancel the rows still queued; rows already rendering finish. 409 when the batch has ended', ok: [200, BatchDto, 'The batch'], errors: [404, 409] })
  cancel(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.batches.cancel(ws, id);
  }

  @Get('batches/:id/events')
  @ApiRoute({
    summary: 'Follow the batch as Server-Sent Events',
    description: '`event: status` (the status changed; the first event always is one) and `event: progress` (the counts changed), each with the Batch as JSON, until every row has ended.',
    errors: [404],
  })
  @ApiResponse({ status: 200, description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string', description: '`data` is a Batch' } } } })
  events(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Req() req: Request, @Res() res: Response) {
    return this.stream.stream(ws, id, req, res);
  }
}

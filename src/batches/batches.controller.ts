import { Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentWorkspace } from '../common/auth/decorators';
import { ApiError } from '../common/errors/api-error';
import { ApiErrors, ApiIdempotencyKey, ApiKeyAuth, ApiOk } from '../common/openapi/api-docs.decorators';
import { PAGE_LIMIT } from '../common/pagination/pagination';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { Workspace } from '../workspaces/workspace.entity';
import { BatchEventStream } from './batch-event-stream';
import { isCsvBatchUpload, readCsvBody, rowsFromCsv, rowsFromJson } from './batch-rows';
import { BatchInput, BatchesService } from './batches.service';
import { BatchCsvQueryDto, BatchDto, BatchPageDto, BatchRequestDto, BatchWithRendersDto, ListBatchesDto } from './dto/batch.dto';

const JSON_FIELDS = new Set(['rows', 'output_filename', 'metadata', 'webhook_url']);

@ApiTags('batches')
@ApiKeyAuth()
@Controller('v1')
export class BatchesController {
  constructor(
    private readonly batches: BatchesService,
    private readonly stream: BatchEventStream,
  ) {}

  @Post('projects/:id/batches')
  @RateLimit('render_submit')
  @ApiIdempotencyKey()
  @ApiConsumes('application/json', 'text/csv')
  @ApiBody({
    type: BatchRequestDto,
    description:
      'JSON rows, or a CSV (Content-Type: text/csv; UTF-8 with or without BOM, quoted fields, CRLF or LF): a header row of variable names, then one row per render; its options go in the query',
  })
  @ApiOperation({
    summary: "Render the project's current version once per row of variables",
    description:
      'Every row is checked before anything is queued (422 pointing at `/rows/N/…`; a CSV problem names its line and column); the whole estimate must fit the month (402). Each row becomes an ordinary render job with `batch_id` and `batch_row`.',
  })
  @ApiOk(202, BatchDto, 'The batch; its rows are queued')
  @ApiOk(200, BatchDto, 'Replay of an earlier submit with the same Idempotency-Key')
  @ApiErrors(402, 404, 409, 413, 422, 429)
  async create(
    @CurrentWorkspace() ws: Workspace,
    @Param('id') projectId: string,
    @Query() query: BatchCsvQueryDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const input = isCsvBatchUpload(req) ? await csvInput(req, query) : jsonInput(req.body, query);
    const outcome = await this.batches.create(ws, projectId, input, idempotencyKey);
    res.status(outcome.replayed ? 200 : 202);
    return outcome.body;
  }

  @Get('batches')
  @ApiOperation({ summary: 'List batches, newest first' })
  @ApiOk(200, BatchPageDto, 'A page of batches')
  @ApiErrors(422)
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListBatchesDto) {
    return this.batches.list(ws, query.limit ?? PAGE_LIMIT.default, query.cursor);
  }

  @Get('batches/:id')
  @ApiOperation({ summary: 'One batch: rows per state, progress, and its renders in row order (paged by `limit` and `cursor`)' })
  @ApiOk(200, BatchWithRendersDto, 'The batch and a page of its renders')
  @ApiErrors(404, 422)
  async get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Query() query: ListBatchesDto) {
    const batch = await this.batches.get(ws, id);
    const renders = await this.batches.rendersPage(ws, id, query.limit ?? PAGE_LIMIT.default, query.cursor);
    return { ...batch, renders };
  }

  @Post('batches/:id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel the rows still queued; rows already rendering finish. 409 when the batch has ended' })
  @ApiOk(200, BatchDto, 'The batch')
  @ApiErrors(404, 409)
  cancel(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.batches.cancel(ws, id);
  }

  @Get('batches/:id/events')
  @ApiOperation({
    summary: 'Follow the batch as Server-Sent Events',
    description: '`event: status` (the status changed; the first event always is one) and `event: progress` (the counts changed), each with the Batch as JSON, until every row has ended.',
  })
  @ApiResponse({ status: 200, description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string', description: '`data` is a Batch' } } } })
  @ApiErrors(404)
  events(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Req() req: Request, @Res() res: Response) {
    return this.stream.stream(ws, id, req, res);
  }
}

async function csvInput(req: Request, query: BatchCsvQueryDto): Promise<BatchInput> {
  return { rows: rowsFromCsv(await readCsvBody(req)), ...query };
}

/** The JSON body, checked field by field: an unknown field is a 422, never ignored. */
function jsonInput(body: unknown, query: BatchCsvQueryDto): BatchInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw ApiError.validation([{ type: 'model_type', loc: ['body'], msg: 'The body should be a JSON object {rows, …} or a text/csv file', pointer: '' }]);
  }
  const fields = body as Record<string, unknown>;
  const problems = Object.keys(fields)
    .filter((key) => !JSON_FIELDS.has(key))
    .map((key) => ({ type: 'extra_forbidden', loc: ['body', key], msg: `Unknown field "${key}" (known: ${[...JSON_FIELDS].join(', ')})`, pointer: `/${key}` }));
  if (Object.keys(query).some((key) => query[key as keyof BatchCsvQueryDto] !== undefined)) {
    problems.push({ type: 'extra_forbidden', loc: ['query'], msg: 'Query options are for CSV bodies; put them in the JSON body', pointer: '' });
  }
  const { output_filename, metadata, webhook_url } = fields;
  if (output_filename !== undefined && typeof output_filename !== 'string') problems.push({ type: 'string_type', loc: ['body', 'output_filename'], msg: 'Input should be a string', pointer: '/output_filename' });
  if (webhook_url !== undefined && typeof webhook_url !== 'string') problems.push({ type: 'string_type', loc: ['body', 'webhook_url'], msg: 'Input should be a string', pointer: '/webhook_url' });
  if (metadata !== undefined && (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))) {
    problems.push({ type: 'dict_type', loc: ['body', 'metadata'], msg: 'Input should be an object', pointer: '/metadata' });
  }
  if (problems.length > 0) throw ApiError.validation(problems);
  return {
    rows: rowsFromJson(fields.rows),
    output_filename: output_filename as string | undefined,
    metadata: metadata as Record<string, unknown> | undefined,
    webhook_url: webhook_url as string | undefined,
  };
}

import { PAGE_LIMIT } from '../common/pagination/pagination';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiIdempotencyKey, ApiKeyAuth, ApiOk } from '../common/openapi/api-docs.decorators';
import { DownloadLinkDto, JobDto, JobPageDto } from '../jobs/dto/job.response';
import type { Response } from 'express';
import { CurrentWorkspace } from '../common/auth/decorators';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { Workspace } from '../workspaces/workspace.entity';
import { ListTasksDto } from './dto/list-tasks.dto';
import { RemoveBackgroundRequestDto, TranscribeRequestDto } from './dto/transcribe-request.dto';
import { TasksService } from './tasks.service';

@ApiTags('tasks')
@ApiKeyAuth()
@Controller('v1/tasks')
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Post('transcribe')
  @RateLimit('task_submit')
  @ApiIdempotencyKey()
  @ApiOperation({ summary: 'Transcribe speech from audio or video', description: '202 with the queued task; its transcript is on `result` when completed.' })
  @ApiOk(202, JobDto, 'The task is queued')
  @ApiOk(200, JobDto, 'Replay of an earlier submit with the same Idempotency-Key')
  @ApiErrors(400, 402, 409, 413, 415, 422, 429)
  async transcribe(
    @CurrentWorkspace() ws: Workspace,
    @Body() body: TranscribeRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const outcome = await this.tasks.submitTranscribe(ws, body, idempotencyKey);
    res.status(outcome.replayed ? 200 : 202);
    return outcome.body;
  }

  @Post('remove-background')
  @RateLimit('task_submit')
  @ApiOperation({ summary: 'Remove the background of an image (not supported yet)', description: 'The body is validated, then 422 `unsupported_feature`.' })
  @ApiErrors(400, 413, 415, 422, 429)
  removeBackground(@Body() body: RemoveBackgroundRequestDto) {
    return this.tasks.submitRemoveBackground(body);
  }

  @Post(':type')
  @RateLimit('task_submit')
  @ApiOperation({ summary: 'Other task types', description: '422 `unsupported_feature` for those in the catalog, 404 for unknown ones.' })
  @ApiErrors(400, 404, 413, 415, 422, 429)
  other(@Param('type') type: string) {
    return this.tasks.submitOther(type);
  }

  @Get()
  @ApiOperation({ summary: 'List tasks, newest first' })
  @ApiOk(200, JobPageDto, 'A page of task jobs')
  @ApiErrors(422)
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListTasksDto) {
    return this.tasks.list(ws, { ...query, limit: query.limit ?? PAGE_LIMIT.default });
  }

  @Get(':id')
  @ApiOperation({ summary: 'One task job' })
  @ApiOk(200, JobDto, 'The task job')
  @ApiErrors(404)
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.tasks.get(ws, id);
  }

  @Get(':id/download')
  @ApiOperation({ summary: 'A short-lived signed URL of the artifact', description: '404 for transcribe (its data is on `result`).' })
  @ApiOk(200, DownloadLinkDto, 'Signed URL, valid 15 minutes')
  @ApiErrors(404)
  download(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.tasks.download(ws, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a queued or running task', description: '409 when already finished.' })
  @ApiOk(200, JobDto, 'The cancelled job')
  @ApiErrors(404, 409)
  cancel(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.tasks.cancel(ws, id);
  }
}

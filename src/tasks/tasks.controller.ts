import { PAGE_LIMIT } from '../common/pagination/pagination';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiKeyAuth, ApiRoute, ApiSubmit } from '../common/openapi/api-docs.decorators';
import { submitAnswer } from '../common/idempotency/submit-answer';
import { DownloadLinkDto, JobDto, JobPageDto } from '../jobs/dto/job.response';
import type { Response } from 'express';
import { CurrentWorkspace } from '../common/auth/decorators';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { Workspace } from '../workspaces/workspace.entity';
import { CaptionsQueryDto } from './dto/captions-query.dto';
import { ListTasksDto } from './dto/list-tasks.dto';
import { RemoveBackgroundRequestDto, TranscribeRequestDto } from './dto/transcribe-request.dto';
import { TasksService } from './tasks.service';

/** The success of a task type the catalog names but this version cannot run (GET /v1/capabilities). */
const NOT_YET = 'The queued task, once GET /v1/capabilities lists this type as supported; this version answers 422 `unsupported_feature` instead';

@ApiTags('tasks')
@ApiKeyAuth()
@Controller('v1/tasks')
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Post('transcribe')
  @RateLimit('task_submit')
  @ApiRoute({ summary: 'Transcribe speech from audio or video', description: '202 with the queued task; its transcript is on `result` when completed.', errors: [402, 409, 413, 422, 429] })
  @ApiSubmit(JobDto, 'The task is queued')
  async transcribe(
    @CurrentWorkspace() ws: Workspace,
    @Body() body: TranscribeRequestDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ) {
    const outcome = await this.tasks.submitTranscribe(ws, body, idempotencyKey);
    return submitAnswer(res, outcome);
  }

  @Post('remove-background')
  @RateLimit('task_submit')
  @ApiRoute({ summary: 'Remove the background of an image (not supported yet)', description: 'The body is validated, then 422 `unsupported_feature`.', ok: [202, JobDto, NOT_YET], errors: [413, 422, 429] })
  removeBackground(@Body() body: RemoveBackgroundRequestDto) {
    return this.tasks.submitRemoveBackground(body);
  }

  // One documented route per catalog type without its own (TASK_TYPES); `:type` below answers the rest.
  @Post('super-resolution')
  @RateLimit('task_submit')
  @ApiRoute({ summary: 'Upscale a video or image (not supported yet)', description: '422 `unsupported_feature`.', ok: [202, JobDto, NOT_YET], errors: [413, 422, 429] })
  superResolution() {
    return this.tasks.submitOther('super-resolution');
  }

  @Post('gaze-redirect')
  @RateLimit('task_submit')
  @ApiRoute({ summary: 'Redirect the gaze of a speaker to the camera (not supported yet)', description: '422 `unsupported_feature`.', ok: [202, JobDto, NOT_YET], errors: [413, 422, 429] })
  gazeRedirect() {
    return this.tasks.submitOther('gaze-redirect');
  }

  /** Types outside the catalog: 404 naming where the catalog is (not documented: no such operation). */
  @Post(':type')
  @RateLimit('task_submit')
  @ApiExcludeEndpoint()
  other(@Param('type') type: string) {
    return this.tasks.submitOther(type);
  }

  @Get()
  @ApiRoute({ summary: 'List tasks, newest first', ok: [200, JobPageDto, 'A page of task jobs'], errors: [422] })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListTasksDto) {
    return this.tasks.list(ws, { ...query, limit: query.limit ?? PAGE_LIMIT.default });
  }

  @Get(':id')
  @ApiRoute({ summary: 'One task job', ok: [200, JobDto, 'The task job'], errors: [404] })
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.tasks.get(ws, id);
  }

  @Get(':id/download')
  @ApiRoute({ summary: 'A short-lived signed URL of the artifact', description: '404 for transcribe (its data is on `result`).', ok: [200, DownloadLinkDto, 'Signed URL, valid 15 minutes'], errors: [404] })
  download(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.tasks.download(ws, id);
  }

  @Get(':id/captions')
  @ApiRoute({ summary: 'Captions of a completed transcribe task as SubRip (srt) or WebVTT (vtt), broken into lines as a text element\'s transcript is', errors: [404, 409, 422] })
  @ApiProduces('application/x-subrip', 'text/vtt')
  @ApiResponse({
    status: 200,
    description: 'The captions file',
    content: { 'application/x-subrip': { schema: { type: 'string' } }, 'text/vtt': { schema: { type: 'string' } } },
  })
  async captions(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Query() query: CaptionsQueryDto, @Res({ passthrough: true }) res: Response) {
    const captions = await this.tasks.captions(ws, id, query);
    res.setHeader('Content-Type', captions.contentType);
    res.setHeader('Content-Disposition', `inline; filename="${id}.${query.format}"`);
    return captions.body;
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiRoute({ summary: 'Cancel a queued or running task', description: '409 when already finished.', ok: [200, JobDto, 'The cancelled job'], errors: [404, 409] })
  cancel(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.tasks.cancel(ws, id);
  }
}

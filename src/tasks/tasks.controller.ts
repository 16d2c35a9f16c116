import { PAGE_LIMIT } from '../common/pagination/pagination';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentWorkspace } from '../common/auth/decorators';
import { RateLimit } from '../common/rate-limit/rate-limit.guard';
import { Workspace } from '../workspaces/workspace.entity';
import { CaptionsQueryDto } from './dto/captions-query.dto';
import { ListTasksDto } from './dto/list-tasks.dto';
import { RemoveBackgroundRequestDto, TranscribeRequestDto } from './dto/transcribe-request.dto';
import { TasksService } from './tasks.service';

@ApiTags('tasks')
@ApiBearerAuth()
@Controller('v1/tasks')
export class TasksController {
  constructor(private readonly tasks: TasksService) {}

  @Post('transcribe')
  @RateLimit('task_submit')
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Same key + same body replays the first response (200)' })
  @ApiOperation({ summary: 'Transcribe speech from audio or video; 202 with the queued task, its transcript on `result` when completed' })
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
  @ApiOperation({ summary: 'Not supported yet: the body is validated, then 422 unsupported_feature' })
  removeBackground(@Body() body: RemoveBackgroundRequestDto) {
    return this.tasks.submitRemoveBackground(body);
  }

  @Post(':type')
  @RateLimit('task_submit')
  @ApiOperation({ summary: 'Other task types: 422 unsupported_feature for those in the catalog, 404 for unknown ones' })
  other(@Param('type') type: string) {
    return this.tasks.submitOther(type);
  }

  @Get()
  @ApiOperation({ summary: 'List tasks, newest first' })
  list(@CurrentWorkspace() ws: Workspace, @Query() query: ListTasksDto) {
    return this.tasks.list(ws, { ...query, limit: query.limit ?? PAGE_LIMIT.default });
  }

  @Get(':id')
  @ApiOperation({ summary: 'One task job' })
  get(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.tasks.get(ws, id);
  }

  @Get(':id/download')
  @ApiOperation({ summary: 'A short-lived signed URL of the artifact; 404 for transcribe (its data is on `result`)' })
  download(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.tasks.download(ws, id);
  }

  @Get(':id/captions')
  @ApiOperation({ summary: 'Captions of a completed transcribe task as SubRip (srt) or WebVTT (vtt), broken into lines as a text element\'s transcript is' })
  @ApiProduces('application/x-subrip', 'text/vtt')
  async captions(@CurrentWorkspace() ws: Workspace, @Param('id') id: string, @Query() query: CaptionsQueryDto, @Res({ passthrough: true }) res: Response) {
    const captions = await this.tasks.captions(ws, id, query);
    res.setHeader('Content-Type', captions.contentType);
    res.setHeader('Content-Disposition', `inline; filename="${id}.${query.format}"`);
    return captions.body;
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a queued or running task; 409 when already finished' })
  cancel(@CurrentWorkspace() ws: Workspace, @Param('id') id: string) {
    return this.tasks.cancel(ws, id);
  }
}
